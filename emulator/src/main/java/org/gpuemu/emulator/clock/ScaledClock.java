package org.gpuemu.emulator.clock;

import java.util.function.LongSupplier;

/**
 * The production clock: scales a monotonic nanosecond source ({@link System#nanoTime()} by default).
 *
 * <p>The origin is captured at construction; {@link #start()} moves it to "now" so that building the actor tree
 * does not count as emulated time. Call it once, before any actor reads the clock: moving the origin later
 * would make time jump backwards.
 */
public final class ScaledClock implements EmulatedClock {

  private final double timeScale;
  private final LongSupplier nanoSource;
  // Written by start() on one thread, read by every actor: volatile makes the new origin visible to all.
  private volatile long originWallNanos;

  /** A clock over {@link System#nanoTime()}, started now. */
  public ScaledClock(double timeScale) {
    this(timeScale, System::nanoTime);
  }

  /** A clock over an injected monotonic nanosecond source (tests), started now. */
  public ScaledClock(double timeScale, LongSupplier nanoSource) {
    this.timeScale = EmulatedClock.requireValidScale(timeScale);
    this.nanoSource = nanoSource;
    this.originWallNanos = nanoSource.getAsLong();
  }

  /** Makes the current instant emulated time zero; returns this clock. */
  public ScaledClock start() {
    originWallNanos = nanoSource.getAsLong();
    return this;
  }

  @Override
  public long nowNanos() {
    return toEmulatedNanos(nanoSource.getAsLong() - originWallNanos);
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
