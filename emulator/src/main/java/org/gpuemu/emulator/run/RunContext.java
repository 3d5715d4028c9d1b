package org.gpuemu.emulator.run;

import java.time.Duration;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.clock.EmulatedClock;
import org.gpuemu.emulator.clock.TimerLateness;

/**
 * What every actor of a run shares: the clock and the timer-lateness record. Timers are armed here so that every
 * one converts an emulated due time to a wall delay the same way, and every firing is measured the same way.
 */
public record RunContext(EmulatedClock clock, TimerLateness lateness) {

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
}
