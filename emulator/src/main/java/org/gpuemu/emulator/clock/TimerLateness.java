package org.gpuemu.emulator.clock;

import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * How late timers fire, in emulated microseconds (fired minus due, never negative), as an HDR histogram from 1 µs
 * to 1 hour at 3 significant digits.
 *
 * <p>This and the {@link EmulatedClock} are the only shared mutable objects actors may touch: every timer in the
 * run records into one instance so that the fidelity report sees the whole distribution. Recording is wait-free
 * (an HdrHistogram {@link Recorder}), so a busy actor never blocks on another; {@link #snapshot()} folds what was
 * recorded since the previous snapshot into a running total and is cheap enough to call every emulated second.
 */
public final class TimerLateness {

  private static final long HIGHEST_MICROS = TimeUnit.HOURS.toMicros(1);
  private static final int SIGNIFICANT_DIGITS = 3;

  private final EmulatedClock clock;
  private final Recorder recorder = new Recorder(1, HIGHEST_MICROS, SIGNIFICANT_DIGITS);
  private final Histogram total = new Histogram(1, HIGHEST_MICROS, SIGNIFICANT_DIGITS); // guarded by this
  private Histogram interval; // guarded by this; recycled between snapshots to avoid garbage

  /** Lateness measured against the given clock. */
  public TimerLateness(EmulatedClock clock) {
    this.clock = clock;
  }

  /** Records a timer that was due at the given emulated time and is being handled now. */
  public void recordDue(long dueEmulatedNanos) {
    long latenessNanos = Math.max(0L, clock.nowNanos() - dueEmulatedNanos);
    // Rounded to the nearest µs; beyond an hour the run is broken anyway, and clamping beats throwing.
    long micros = Math.min((latenessNanos + 500) / 1_000, HIGHEST_MICROS);
    recorder.recordValue(micros);
  }

  /** Lateness of every timer recorded so far. */
  public synchronized Snapshot snapshot() {
    interval = recorder.getIntervalHistogram(interval);
    total.add(interval);
    return new Snapshot(
        total.getTotalCount(),
        total.getValueAtPercentile(50.0),
        total.getValueAtPercentile(99.0),
        total.getValueAtPercentile(99.9),
        total.getMaxValue());
  }

  /**
   * Timer lateness percentiles in emulated microseconds; all zero when nothing was recorded. Values carry the
   * histogram's 3 significant digits (exact below 2048 µs).
   *
   * @param count timers recorded
   * @param p50 median lateness, µs
   * @param p99 99th percentile, µs
   * @param p999 99.9th percentile, µs
   * @param max largest lateness, µs
   */
  public record Snapshot(long count, long p50, long p99, long p999, long max) {}
}
