package org.gpuemu.emulator.clock;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAccumulator;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.HdrHistogram.Recorder;

/**
 * How late timers fire, in emulated microseconds (fired minus due, never negative), as an HDR histogram from 1 µs
 * to 1 hour at 3 significant digits.
 *
 * <p>This and the {@link EmulatedClock} are the only shared mutable objects actors may touch: every timer in the
 * run records into one instance so that the fidelity report sees the whole distribution. Recording is wait-free
 * (an HdrHistogram {@link Recorder}), so a busy actor never blocks on another; {@link #snapshot()} folds what was
 * recorded since the previous snapshot into a running total and is cheap enough to call every emulated second.
 * A {@link Window} sees only what is recorded after it was opened: the progress line's "current" p99 and the
 * bench's steady-state figures (after warm-up) come from windows, the run's verdict from the total.
 *
 * <p>A run keeps a second instance as its message-skew record ({@code RunContext.skew}, fed by
 * {@link #recordNanos}): there "timers" in the javadoc below read "messages and timers handled out of order".
 */
public final class TimerLateness {

  private static final long HIGHEST_MICROS = TimeUnit.HOURS.toMicros(1);
  private static final int SIGNIFICANT_DIGITS = 3;

  private final EmulatedClock clock;
  private final Recorder recorder = new Recorder(1, HIGHEST_MICROS, SIGNIFICANT_DIGITS);
  // The latest due time recorded: how far the timers have brought emulated time (the real-time factor's source).
  private final LongAccumulator reached = new LongAccumulator(Math::max, Long.MIN_VALUE);
  private final Histogram total = newHistogram(); // guarded by this
  private final List<Window> windows = new ArrayList<>(); // guarded by this
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
    reached.accumulate(dueEmulatedNanos);
  }

  /**
   * Records a lateness measured otherwise, in emulated nanoseconds (message skew: how much earlier than its
   * receiver's latest event a message was stamped).
   */
  public void recordNanos(long latenessNanos) {
    recorder.recordValue(Math.min((Math.max(0L, latenessNanos) + 500) / 1_000, HIGHEST_MICROS));
  }

  /**
   * The latest emulated due time of any timer recorded so far, or -1 before the first: the emulated time the run's
   * timers have reached. Its progress per wall second is the real-time factor; it falls behind {@code timeScale}
   * when timers queue up faster than they are handled.
   */
  public long reachedNanos() {
    long r = reached.get();
    return r == Long.MIN_VALUE ? -1 : r;
  }

  /** Lateness of every timer recorded so far. */
  public synchronized Snapshot snapshot() {
    fold();
    return Snapshot.of(total);
  }

  /**
   * Every timer recorded so far by lateness, in buckets that double: the first holds 0-1 µs, the next up to 2 µs,
   * then 4, 8, ... (a compact histogram for the report's lateness chart), from the first bucket with a count to the
   * last; empty when nothing was recorded.
   */
  public synchronized Buckets histogram() {
    fold();
    List<Long> upTo = new ArrayList<>();
    List<Long> counts = new ArrayList<>();
    if (total.getTotalCount() == 0) return new Buckets(upTo, counts);
    for (HistogramIterationValue v : total.logarithmicBucketValues(1, 2.0)) {
      upTo.add(v.getValueIteratedTo());
      counts.add(v.getCountAddedInThisIterationStep());
    }
    int first = 0;
    while (counts.get(first) == 0) first++;
    return new Buckets(upTo.subList(first, upTo.size()), counts.subList(first, counts.size()));
  }

  /**
   * A histogram in buckets: {@code counts.get(i)} values above the previous bucket's bound, up to
   * {@code upToMicros.get(i)} (µs, inclusive).
   */
  public record Buckets(List<Long> upToMicros, List<Long> counts) {
    public static final Buckets EMPTY = new Buckets(List.of(), List.of());

    public Buckets {
      upToMicros = List.copyOf(upToMicros);
      counts = List.copyOf(counts);
    }
  }

  /** Opens a window that sees every timer recorded from now on, until it is closed. */
  public synchronized Window window() {
    fold(); // what was recorded before belongs to the total only
    Window w = new Window();
    windows.add(w);
    return w;
  }

  // Moves what the recorder holds into the total and every open window.
  private void fold() {
    interval = recorder.getIntervalHistogram(interval);
    total.add(interval);
    for (Window w : windows) w.histogram.add(interval);
  }

  private static Histogram newHistogram() {
    return new Histogram(1, HIGHEST_MICROS, SIGNIFICANT_DIGITS);
  }

  /** Lateness recorded since a window was opened (or last {@linkplain #take() taken}). Thread-safe. */
  public final class Window implements AutoCloseable {
    private final Histogram histogram = newHistogram(); // guarded by the enclosing TimerLateness

    private Window() {}

    /** Lateness recorded since the window opened or was last taken. */
    public Snapshot snapshot() {
      synchronized (TimerLateness.this) {
        fold();
        return Snapshot.of(histogram);
      }
    }

    /** Like {@link #snapshot()}, then starts the window afresh: successive calls give successive periods. */
    public Snapshot take() {
      synchronized (TimerLateness.this) {
        fold();
        Snapshot s = Snapshot.of(histogram);
        histogram.reset();
        return s;
      }
    }

    /** Stops feeding this window (it keeps what was recorded until now); idempotent. */
    @Override
    public void close() {
      synchronized (TimerLateness.this) {
        if (windows.contains(this)) fold();
        windows.remove(this);
      }
    }
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
  public record Snapshot(long count, long p50, long p99, long p999, long max) {
    static Snapshot of(Histogram h) {
      if (h.getTotalCount() == 0) return new Snapshot(0, 0, 0, 0, 0);
      return new Snapshot(h.getTotalCount(), h.getValueAtPercentile(50.0), h.getValueAtPercentile(99.0),
          h.getValueAtPercentile(99.9), h.getMaxValue());
    }
  }
}
