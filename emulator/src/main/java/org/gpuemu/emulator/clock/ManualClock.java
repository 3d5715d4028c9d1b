package org.gpuemu.emulator.clock;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that moves only when a test tells it to; it holds emulated time directly, and its time scale only
 * affects the wall/emulated conversions. Thread-safe, so actors under test may read it while the test advances it.
 */
public final class ManualClock implements EmulatedClock {

  private final double timeScale;
  private final AtomicLong nowNanos = new AtomicLong();

  /** A real-time-scaled manual clock at emulated time zero. */
  public ManualClock() {
    this(1.0);
  }

  /** A manual clock at emulated time zero whose conversions use the given scale. */
  public ManualClock(double timeScale) {
    this.timeScale = EmulatedClock.requireValidScale(timeScale);
  }

  /** Moves emulated time forward by a non-negative amount; returns the new time. */
  public long advance(long emulatedNanos) {
    if (emulatedNanos < 0) {
      throw new IllegalArgumentException("a clock cannot advance by a negative amount: " + emulatedNanos);
    }
    return nowNanos.addAndGet(emulatedNanos);
  }

  /** Sets emulated time to an absolute non-negative value (tests may rewind). */
  public void set(long emulatedNanos) {
    if (emulatedNanos < 0) {
      throw new IllegalArgumentException("emulated time starts at 0, got " + emulatedNanos);
    }
    nowNanos.set(emulatedNanos);
  }

  @Override
  public long nowNanos() {
    return nowNanos.get();
  }

  @Override
  public double timeScale() {
    return timeScale;
  }

  @Override
  public String toString() {
    return "ManualClock[now=" + nowNanos.get() + "ns, scale=" + timeScale + "]";
  }
}
