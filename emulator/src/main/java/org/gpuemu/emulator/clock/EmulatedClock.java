package org.gpuemu.emulator.clock;

/**
 * The emulator's one source of time: emulated time = (wall time since the run started) x {@link #timeScale()}.
 *
 * <p>Scale 1 is real time, 0.1 slow motion (one emulated second takes ten wall seconds), 10 fast forward. Every
 * duration in configuration and output is emulated; actors convert to wall time only when they arm a timer.
 * Implementations are thread-safe: the clock and read-only configuration are the only objects actors share.
 */
public interface EmulatedClock {

  /** Emulated nanoseconds since the run started. */
  long nowNanos();

  /** Emulated nanoseconds per wall nanosecond; always positive and finite. */
  double timeScale();

  /** Wall-clock length of an emulated duration, e.g. the delay to give a timer. */
  default long toWallNanos(long emulatedNanos) {
    // Math.round saturates instead of wrapping, so absurd durations become "never", not negative delays.
    return Math.round(emulatedNanos / timeScale());
  }

  /** Emulated length of a wall-clock duration. */
  default long toEmulatedNanos(long wallNanos) {
    return Math.round(wallNanos * timeScale());
  }

  /** Rejects a time scale that would stop, reverse or blow up time; returns it otherwise. */
  static double requireValidScale(double timeScale) {
    if (!(timeScale > 0) || Double.isInfinite(timeScale)) {
      throw new IllegalArgumentException("time scale must be a positive finite number, got " + timeScale);
    }
    return timeScale;
  }
}
