package org.gpuemu.emulator.clock;

import java.util.function.LongSupplier;

/**
 * The production clock: scales a monotonic nanosecond source ({@link System#nanoTime()} by default).
 *
 * <p>The origin is captured at construction; {@link #start()} moves it to "now" so that building the actor tree
 * does not count as emulated time. Call it once, before any actor reads the clock: moving the origin later
 * would make time jump backwards. {@link #pause} stops the clock and {@link #resume} starts it again from where it
 * stood, its origin moved by the wall time it stood still (the dashboard's pause, docs/guides/report-and-dashboard.md).
 */
public final class ScaledClock implements EmulatedClock {

  /** The origin, and the wall instant the clock stands still at ({@link #RUNNING}: it runs). One object, so that a
   * reader never sees a new origin with an old pause or the reverse. */
  private record State(long originWallNanos, long pausedWallNanos) {}

  private static final long RUNNING = Long.MIN_VALUE;

  private final double timeScale;
  private final LongSupplier nanoSource;
  // Written by start(), pause() and resume() on one thread, read by every actor: volatile makes it visible to all.
  private volatile State state;

  /** A clock over {@link System#nanoTime()}, started now. */
  public ScaledClock(double timeScale) {
    this(timeScale, System::nanoTime);
  }

  /** A clock over an injected monotonic nanosecond source (tests), started now. */
  public ScaledClock(double timeScale, LongSupplier nanoSource) {
    this.timeScale = EmulatedClock.requireValidScale(timeScale);
    this.nanoSource = nanoSource;
    this.state = new State(nanoSource.getAsLong(), RUNNING);
  }

  /** Makes the current instant emulated time zero; returns this clock. */
  public ScaledClock start() {
    state = new State(nanoSource.getAsLong(), RUNNING);
    return this;
  }

  @Override
  public long nowNanos() {
    State s = state;
    long wall = s.pausedWallNanos() == RUNNING ? nanoSource.getAsLong() : s.pausedWallNanos();
    return toEmulatedNanos(wall - s.originWallNanos());
  }

  /**
   * Stops the clock at wall instant {@code wallNanos} (of the clock's nano source, {@link #wallNanos}): it reads the
   * same until {@link #resume}. A second pause keeps the first's instant.
   */
  public synchronized void pause(long wallNanos) {
    State s = state;
    if (s.pausedWallNanos() != RUNNING) return;
    state = new State(s.originWallNanos(), wallNanos);
  }

  /**
   * Starts the clock again at wall instant {@code wallNanos}, from where it stopped: its origin moves by the wall
   * time it stood still, so emulated time does not jump. Returns that wall time (0 when it was not paused).
   */
  public synchronized long resume(long wallNanos) {
    State s = state;
    if (s.pausedWallNanos() == RUNNING) return 0;
    long stood = Math.max(0, wallNanos - s.pausedWallNanos());
    state = new State(s.originWallNanos() + stood, RUNNING);
    return stood;
  }

  /** Whether the clock stands still. */
  public boolean paused() {
    return state.pausedWallNanos() != RUNNING;
  }

  /** Now, in the clock's wall nano source (what {@link #pause} and {@link #resume} take). */
  public long wallNanos() {
    return nanoSource.getAsLong();
  }

  @Override
  public double timeScale() {
    return timeScale;
  }

  @Override
  public String toString() {
    return "ScaledClock[scale=" + timeScale + "]";
  }
}
