package org.gpuemu.emulator.clock;

import java.time.Duration;
import java.util.function.LongFunction;
import java.util.function.LongUnaryOperator;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * What every actor of a run shares: the clock, the run's causal order ({@link Causality}), the timer-lateness record
 * and the message-skew record. Every actor's behavior goes behind a {@link CausalInbox} ({@link #causal}); timers
 * are armed and cancelled here ({@link #arm}, {@link #disarm}) so that every one converts an emulated due time to a
 * wall delay the same way, takes its place in the run's order, and is measured the same way when it fires; the
 * schedulers and SM groups take every stamped message through {@link #received}.
 */
public record RunContext(EmulatedClock clock, TimerLateness lateness, TimerLateness skew, Causality causality) {

  /** A context whose events are handled as they arrive, with a message-skew record of its own (actor tests). */
  public RunContext(EmulatedClock clock, TimerLateness lateness) {
    this(clock, lateness, new TimerLateness(clock), Causality.immediate(clock));
  }

  /** A context ordered by {@code causality}. */
  public RunContext(EmulatedClock clock, TimerLateness lateness, Causality causality) {
    this(clock, lateness, new TimerLateness(clock), causality);
  }

  /**
   * The model time of the event the calling actor is handling (its stamp), or, outside any event, the model's
   * present ({@link Causality#now}).
   */
  public long now() {
    return causality.now();
  }

  /** {@code behavior} behind the run's causal inbox; inside {@code Behaviors.withTimers}, so it sees timer messages. */
  public <T> Behavior<T> causal(Behavior<T> behavior) {
    return CausalInbox.wrap(causality, behavior);
  }

  /** As {@link #causal}, for an actor that only records (the metrics hub). */
  public <T> Behavior<T> observer(Behavior<T> behavior) {
    return CausalInbox.wrap(causality, behavior, true);
  }

  /**
   * Arms single timer {@code key} (replacing one of that key) for the event at emulated time {@code due}; it fires
   * when the clock reaches {@code due}, at once when that is past (under the conservative order straight into the
   * actor's inbox, {@link CausalInbox#armed}). Its message should be {@link Timed}, so that the
   * inbox orders it with the actor's messages; called from the actor's own behavior, so that its inbox counts it in
   * the run's order until it is handled or cancelled.
   */
  public <T> void arm(TimerScheduler<T> timers, Object key, T message, long due) {
    CausalInbox inbox = Causality.actor();
    if (inbox != null && inbox.armed(key, message, due)) {
      timers.cancel(key); // fired into the inbox at once (the model runs behind the clock): none of this key is left
      return;
    }
    long wall = clock.toWallNanos(Math.max(0, due - clock.nowNanos()));
    timers.startSingleTimer(key, message, Duration.ofNanos(wall));
  }

  /**
   * Arms timer {@code key} for an event at {@code at.applyAsLong(present)}, where the present is the model's
   * ({@link #now} outside any event), reading it and counting the timer in the run's order at once (under the
   * frontier's lock): called from a message handled outside any event (a control from outside the run), it makes an
   * event no handled event is later than, whatever the other threads do meanwhile. {@code at} must give a time later
   * than the present. Returns the event's time, or -1 (nothing armed) when that is {@code before} or later.
   */
  public <T> long armAfterPresent(TimerScheduler<T> timers, Object key, LongFunction<T> message, LongUnaryOperator at,
      long before) {
    Object lock = causality.frontier() != null ? causality.frontier() : this;
    synchronized (lock) {
      long due = at.applyAsLong(now());
      if (due >= before) return -1;
      arm(timers, key, message.apply(due), due);
      return due;
    }
  }

  /** Cancels timer {@code key}, if armed (from the actor's own behavior, as {@link #arm}). */
  public void disarm(TimerScheduler<?> timers, Object key) {
    CausalInbox inbox = Causality.actor();
    if (inbox != null) inbox.disarmed(key);
    timers.cancel(key);
  }

  /** Cancels every timer of the actor (from its own behavior, as {@link #arm}). */
  public void disarmAll(TimerScheduler<?> timers) {
    CausalInbox inbox = Causality.actor();
    if (inbox != null) inbox.disarmedAll();
    timers.cancelAll();
  }

  /**
   * As {@link #disarmAll(TimerScheduler)}, returning {@code then}: for an actor's {@code PreRestart} (a crash), whose
   * restart cancels its timers, which the run's order must then stop counting.
   */
  public <B> B disarmAll(TimerScheduler<?> timers, B then) {
    disarmAll(timers);
    return then;
  }

  /** Records how late a timer due at {@code due} fired, and returns {@code due}: the model's time of the event. */
  public long fired(long due) {
    lateness.recordDue(due);
    return due;
  }

  /**
   * The model time at which an actor whose latest event was at {@code latest} acts on a message stamped
   * {@code stamp} (a message's stamp or a fired timer's due time): never before its own latest event
   * (docs/concepts/time-and-order.md). One stamped earlier arrived out of order — a message another sender stamped
   * later, or a timer due later, was handled first — and is handled later in model time than it happened; that
   * difference (0 when in order) is recorded as message skew, the part of wall-clock delay that timer lateness does not
   * see.
   */
  public long received(long latest, long stamp) {
    skew.recordNanos(latest - stamp);
    return Math.max(latest, stamp);
  }
}
