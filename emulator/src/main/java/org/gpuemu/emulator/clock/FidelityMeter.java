package org.gpuemu.emulator.clock;

import java.util.function.LongSupplier;

/**
 * Live fidelity of a running emulation, period by period: how fast its timers advance emulated time per wall
 * second (the real-time factor) and how late they fired (p99) since the previous reading.
 *
 * <p>The real-time factor comes from the latest due time the timers reached ({@link TimerLateness#reachedNanos()}),
 * not from the clock: the clock advances at exactly its scale by construction, while the timers fall behind it when
 * the machine cannot keep up. A run that keeps up reads about its time scale; one that does not reads less, and its
 * p99 lateness grows. Not thread-safe: one reader (the runner's progress loop).
 */
public final class FidelityMeter implements AutoCloseable {

  private final TimerLateness lateness;
  private final LongSupplier wallNanos;
  private final TimerLateness.Window window;
  private long lastWall;
  private long lastReached;

  /** A meter over the lateness record, against the wall clock ({@link System#nanoTime()}). */
  public FidelityMeter(TimerLateness lateness) {
    this(lateness, System::nanoTime);
  }

  /** A meter over an injected wall clock (tests). The first period starts now. */
  public FidelityMeter(TimerLateness lateness, LongSupplier wallNanos) {
    this.lateness = lateness;
    this.wallNanos = wallNanos;
    this.window = lateness.window();
    this.lastWall = wallNanos.getAsLong();
    this.lastReached = lateness.reachedNanos();
  }

  /** Fidelity since the previous reading (or construction); starts the next period. */
  public Reading read() {
    long wall = wallNanos.getAsLong();
    long reached = lateness.reachedNanos();
    TimerLateness.Snapshot period = window.take();
    double factor = realTimeFactor(lastReached, reached, wall - lastWall);
    lastWall = wall;
    lastReached = reached;
    return new Reading(factor, period.count() == 0 ? -1 : period.p99(), period.count());
  }

  /**
   * Emulated nanoseconds the timers advanced per wall nanosecond: NaN before the first timer of the period's start
   * or over an empty wall interval. No timer in the period reads 0: the run is stalled or has nothing timed.
   */
  static double realTimeFactor(long reachedBefore, long reachedNow, long wallNanos) {
    if (reachedBefore < 0 || reachedNow < 0 || wallNanos <= 0) return Double.NaN;
    return Math.max(0, reachedNow - reachedBefore) / (double) wallNanos;
  }

  @Override
  public void close() {
    window.close();
  }

  /**
   * One period's fidelity.
   *
   * @param realTimeFactor emulated seconds the timers advanced per wall second; NaN when unknown
   * @param p99Micros 99th percentile of the period's timer lateness, emulated µs; -1 when no timer fired
   * @param timers timers that fired in the period
   */
  public record Reading(double realTimeFactor, long p99Micros, long timers) {}
}
