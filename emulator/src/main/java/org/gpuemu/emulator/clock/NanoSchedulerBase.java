package org.gpuemu.emulator.clock;

import org.apache.pekko.actor.AbstractSchedulerBase;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.SchedulerException;
import scala.concurrent.ExecutionContext;
import scala.concurrent.duration.FiniteDuration;

/**
 * What the emulator's nanosecond timer services ({@link HighResScheduler}, {@link WheelScheduler}) share as Pekko
 * schedulers: Pekko's two primitives mapped onto one {@link #enqueue} of a task due after a saturated delay in
 * nanoseconds, repeating every {@code periodNanos} (0: once), and a resolution of about a microsecond.
 */
abstract class NanoSchedulerBase extends AbstractSchedulerBase {

  /** Queues {@code runnable} to run on {@code executor} after {@code delayNanos}, then every {@code periodNanos}. */
  abstract Cancellable enqueue(Runnable runnable, ExecutionContext executor, long delayNanos, long periodNanos);

  /** Runs a task once after the delay (zero or negative: as soon as possible). */
  @Override
  public final Cancellable scheduleOnce(FiniteDuration delay, Runnable runnable, ExecutionContext executor) {
    try {
      return enqueue(runnable, executor, delayNanos(delay), 0L);
    } catch (SchedulerException e) {
      // Same contract as Pekko's default scheduler, whose callers catch IllegalStateException here.
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /** Runs a task after the initial delay and then at a fixed rate of one per interval. */
  @Override
  @SuppressWarnings("deprecation") // deprecated for callers; it stays the primitive scheduleAtFixedRate calls
  public final Cancellable schedule(
      FiniteDuration initialDelay, FiniteDuration interval, Runnable runnable, ExecutionContext executor) {
    long period = interval.toNanos();
    if (period <= 0) {
      throw new IllegalArgumentException(
          "Task scheduled with [" + interval + "] interval, which means an infinite loop; it must be > 0");
    }
    return enqueue(runnable, executor, delayNanos(initialDelay), period);
  }

  /** Tasks per second this scheduler can tell apart: its resolution is about a microsecond. */
  @Override
  public final double maxFrequency() {
    return 1_000_000.0;
  }

  private static long delayNanos(FiniteDuration delay) {
    // Saturate far-future delays: wrapping would make a timer fire immediately.
    return Math.max(0L, Math.min(delay.toNanos(), Long.MAX_VALUE >> 2));
  }
}
