package org.gpuemu.emulator.clock;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * What the operating system itself allows, without Pekko: the floor the timer path is compared with. Two figures,
 * in microseconds: how late {@link LockSupport#parkNanos} returns (a parking timer thread's lateness; Linux adds
 * its timer slack), and how long a parked thread takes to run after another thread unparks it (what every message
 * to an idle dispatcher thread pays: the part of due-to-receipt lateness no scheduler can remove).
 */
public final class OsFloor {
  private static final long HIGHEST_MICROS = TimeUnit.HOURS.toMicros(1);

  private OsFloor() {}

  /** Lateness of {@code samples} successive {@code parkNanos} of random delay in [min, max]. */
  public static TimerProbe.Result parkOvershoot(int samples, long minDelayNanos, long maxDelayNanos, long seed) {
    check(samples, minDelayNanos, maxDelayNanos);
    SplittableRandom random = new SplittableRandom(seed);
    Histogram h = new Histogram(1, HIGHEST_MICROS, 3);
    for (int i = 0; i < samples; i++) {
      long delay = minDelayNanos + random.nextLong(maxDelayNanos - minDelayNanos + 1);
      long due = System.nanoTime() + delay;
      // parkNanos may return early (spuriously): park again for the rest, as a timer thread would.
      for (long left = delay; left > 0; left = due - System.nanoTime()) {
        LockSupport.parkNanos(left);
      }
      record(h, System.nanoTime() - due);
    }
    return result(h);
  }

  /**
   * Wake-up latency: a thread parks, another unparks it after a random delay in [min, max] and the first measures
   * from the unpark call to running again; {@code samples} times.
   */
  public static TimerProbe.Result wakeUp(int samples, long minDelayNanos, long maxDelayNanos, long seed)
      throws InterruptedException {
    check(samples, minDelayNanos, maxDelayNanos);
    Histogram h = new Histogram(1, HIGHEST_MICROS, 3);
    AtomicLong unparkedAt = new AtomicLong(0); // 0: not unparked yet
    Thread sleeper = new Thread(() -> {
      for (int i = 0; i < samples; i++) {
        long at;
        while ((at = unparkedAt.get()) == 0) {
          LockSupport.park();
        }
        record(h, System.nanoTime() - at);
        unparkedAt.set(0);
      }
    }, "os-floor-sleeper");
    sleeper.setDaemon(true);
    sleeper.start();
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = 0; i < samples && sleeper.isAlive(); i++) {
      LockSupport.parkNanos(minDelayNanos + random.nextLong(maxDelayNanos - minDelayNanos + 1));
      while (unparkedAt.get() != 0 && sleeper.isAlive()) {
        Thread.onSpinWait(); // the previous wake-up is still being recorded
      }
      unparkedAt.set(System.nanoTime());
      LockSupport.unpark(sleeper);
    }
    sleeper.join(TimeUnit.SECONDS.toMillis(10));
    synchronized (h) {
      return result(h);
    }
  }

  private static void check(int samples, long minDelayNanos, long maxDelayNanos) {
    if (samples < 1 || minDelayNanos < 0 || maxDelayNanos < minDelayNanos) {
      throw new IllegalArgumentException("need samples >= 1 and 0 <= minDelay <= maxDelay; got samples=" + samples
          + " delays=[" + minDelayNanos + ", " + maxDelayNanos + "]ns");
    }
  }

  private static void record(Histogram h, long latenessNanos) {
    long micros = Math.min(Math.max(0, (latenessNanos + 500) / 1_000), HIGHEST_MICROS);
    synchronized (h) {
      h.recordValue(micros);
    }
  }

  private static TimerProbe.Result result(Histogram h) {
    if (h.getTotalCount() == 0) return new TimerProbe.Result(0, 0, 0, 0, 0);
    return new TimerProbe.Result(h.getTotalCount(), h.getValueAtPercentile(50), h.getValueAtPercentile(99),
        h.getValueAtPercentile(99.9), h.getMaxValue());
  }
}
