package org.gpuemu.emulator.run;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.LockSupport;

/**
 * Waits in tests for a condition, not for a length of time: the condition is re-checked every few milliseconds until
 * it holds, and the test fails with {@code what} when it has not held within a generous deadline (a deadline, not a
 * timing assumption: a passing run returns as soon as the condition holds).
 */
public final class Poll {
  private static final long EVERY_NANOS = 5_000_000;

  private Poll() {}

  /** Returns as soon as {@code condition} holds; fails naming {@code what} if it has not within {@code within}. */
  public static void until(String what, Duration within, Callable<Boolean> condition) throws Exception {
    long deadline = System.nanoTime() + within.toNanos();
    while (!condition.call()) {
      if (System.nanoTime() - deadline > 0) throw new AssertionError("not within " + within + ": " + what);
      LockSupport.parkNanos(EVERY_NANOS);
    }
  }

  /**
   * Re-checks {@code invariant} (which throws when broken) at every poll while {@code wallNanos} of wall time pass:
   * for a test whose subject is a stretch of wall time in which something must stand still (a pause).
   */
  public static void holdsFor(long wallNanos, Runnable invariant) {
    long end = System.nanoTime() + wallNanos;
    do {
      invariant.run();
      LockSupport.parkNanos(EVERY_NANOS);
    } while (System.nanoTime() - end < 0);
    invariant.run();
  }
}
