package org.gpuemu.emulator.clock;

import java.time.Duration;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.clock.CausalInbox;
import org.gpuemu.emulator.clock.Causality;
import org.gpuemu.emulator.clock.EmulatedClock;
import org.gpuemu.emulator.clock.TimerLateness;

/**
 * What every actor of a run shares: the clock, the run's causal order (the playout horizon every actor's inbox
 * holds events for, {@link Causality}), the timer-lateness record and the message-skew record. Every actor's
 * behavior goes behind a {@link CausalInbox} ({@link #causal}); timers are armed here so that every one converts an
 * emulated due time to a wall delay the same way, and every firing is measured the same way; the schedulers and
 * SM groups take every stamped message through {@link #received}.
 */
public record RunContext(EmulatedClock clock, TimerLateness lateness, TimerLateness skew, Causality causality) {

  /** A context without a horizon (events handled as they arrive) and with a message-skew record of its own. */
  public RunContext(EmulatedClock clock, TimerLateness lateness) {
    this(clock, lateness, new TimerLateness(clock), Causality.immediate(clock));
  }

  /** A context whose actors hold events for {@code causality}'s horizon. */
  public RunContext(EmulatedClock clock, TimerLateness lateness, Causality causality) {
    this(clock, lateness, new TimerLateness(clock), causality);
  }

  /**
   * The model time of the event the calling actor is handling (its stamp), or, outside any event, the playout clock:
   * the clock less the horizon.
   */
  public long now() {
    return causality.now();
  }

  /** {@code behavior} behind the run's causal inbox; inside {@code Behaviors.withTimers}, so it sees timer messages. */
  public <T> Behavior<T> causal(Behavior<T> behavior) {
    return CausalInbox.wrap(causality, behavior);
  }

  /** As {@link #causal}, for an actor that only records (the metrics hub): its violations are counted apart. */
  public <T> Behavior<T> observer(Behavior<T> behavior) {
    return CausalInbox.wrap(causality, behavior, true);
  }

  /**
   * Arms a single timer for the event at emulated time {@code due}; it fires at its release point (due plus the
   * horizon, no earlier than a hop after the event arming it), immediately when that is past. Its message should be
   * {@link org.gpuemu.emulator.clock.Timed}, so that the inbox orders it with the actor's messages.
   */
  public <T> void arm(TimerScheduler<T> timers, Object key, T message, long due) {
    long wall = clock.toWallNanos(Math.max(0, causality.releaseOfTimer(due) - clock.nowNanos()));
    timers.startSingleTimer(key, message, Duration.ofNanos(wall));
  }

  /**
   * Records how late a timer due at {@code due} fired (against its release point, due plus the horizon), and
   * returns {@code due}: the model's time of the event.
   */
  public long fired(long due) {
    lateness.recordDue(due + causality.horizonNanos());
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
