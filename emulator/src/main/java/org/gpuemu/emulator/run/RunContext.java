package org.gpuemu.emulator.run;

import java.time.Duration;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.clock.EmulatedClock;
import org.gpuemu.emulator.clock.TimerLateness;

/**
 * What every actor of a run shares: the clock, the timer-lateness record and the message-skew record. Timers are
 * armed here so that every one converts an emulated due time to a wall delay the same way, and every firing is
 * measured the same way; the schedulers and SM groups take every stamped message through {@link #received}.
 */
public record RunContext(EmulatedClock clock, TimerLateness lateness, TimerLateness skew) {

  /** A context with a message-skew record of its own. */
  public RunContext(EmulatedClock clock, TimerLateness lateness) {
    this(clock, lateness, new TimerLateness(clock));
  }

  /** Emulated now. */
  public long now() {
    return clock.nowNanos();
  }

  /** Arms a single timer that fires at emulated time {@code due} (immediately when already past). */
  public <T> void arm(TimerScheduler<T> timers, Object key, T message, long due) {
    long wall = clock.toWallNanos(Math.max(0, due - clock.nowNanos()));
    timers.startSingleTimer(key, message, Duration.ofNanos(wall));
  }

  /** Records how late a timer due at {@code due} fired, and returns {@code due}: the model's time of the event. */
  public long fired(long due) {
    lateness.recordDue(due);
    return due;
  }

  /**
   * The model time at which an actor whose latest event was at {@code latest} acts on a message stamped
   * {@code stamp} (a message's stamp or a fired timer's due time): never before its own latest event (DESIGN.md
   * §4). One stamped earlier arrived out of order — a message another sender stamped later, or a timer due later,
   * was handled first — and is handled later in model time than it happened; that difference (0 when in order) is
   * recorded as message skew, the part of wall-clock delay that timer lateness does not see.
   */
  public long received(long latest, long stamp) {
    skew.recordNanos(latest - stamp);
    return Math.max(latest, stamp);
  }
}
