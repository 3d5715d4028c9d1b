package org.gpuemu.emulator.clock;

import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.atomic.LongAccumulator;

/**
 * The run's causal order: the playout horizon every actor's {@link CausalInbox} holds events for, and what the
 * inboxes measured. One per run, shared by every actor (like the clock).
 *
 * <p>Every event an actor handles (a stamped message or a timer) has a model time, its <em>stamp</em>, and a
 * <em>release point</em> on the clock: {@code stamp + horizon} for a timer, and for a message
 * {@code max(stamp + horizon, release point of the event its sender was handling + hop)}. An inbox holds an event
 * until the clock reaches its release point and hands events over in stamp order (ties: the sender's stable key,
 * then the sender's sequence number), so that a message delayed in wall time by less than its budget — the horizon
 * for a timer's own lateness, a hop for each message after it — is still handled in model-time order: lateness
 * under the budget changes nothing that happens. A message that arrives after its inbox has handed over a later
 * event is a <em>causality violation</em>: it is counted, with its size (how much earlier it was stamped than the
 * latest event handled), and handled at once at the actor's latest model time.
 *
 * <p>The release points depend only on stamps and on which event caused which, never on when anything really
 * happened: a run whose events all arrive within their budgets hands every actor the same events in the same order
 * as any other such run with the same seed.
 *
 * <p>The thread-locals carry the sender's side across a {@code tell}: {@link CausalMailbox} reads
 * {@link #sending()} on the sender's thread as it enqueues, and sets what {@link #arrived()} returns on the
 * receiver's thread as it dequeues.
 */
public final class Causality {

  /** What the runtime knows of a message from the event its sender was handling when it sent it. */
  public record Sent(long stamp, int generation, long release, long sender, long seq) {}

  /** The event an inbox is handing to its actor on this thread. */
  record Handling(Causality run, CausalInbox inbox, long stamp, int generation, long release) {}

  private static final ThreadLocal<Handling> HANDLING = new ThreadLocal<>();
  private static final ThreadLocal<Sent> ARRIVED = new ThreadLocal<>();

  private final EmulatedClock clock;
  private final long horizonNanos;
  private final long hopNanos;
  private final LongAdder ordered = new LongAdder();
  private final LongAdder held = new LongAdder();
  private final LongAdder late = new LongAdder();
  private final LongAdder violations = new LongAdder();
  private final LongAdder tieInversions = new LongAdder();
  private final LongAdder observerViolations = new LongAdder();
  private final LongAccumulator largestViolation = new LongAccumulator(Math::max, 0);
  private final TimerLateness violationSizes;
  private final TimerLateness lag;

  /**
   * The causal order of a run on {@code clock}: events held {@code horizonNanos} of emulated time behind their
   * stamps, plus {@code hopNanos} for each message after the first in a chain. Zero and zero: every event is
   * handled as it arrives (what the emulator did before the horizon), still measured.
   */
  public Causality(EmulatedClock clock, long horizonNanos, long hopNanos) {
    if (horizonNanos < 0 || hopNanos < 0) throw new IllegalArgumentException("horizon and hop must be >= 0");
    this.clock = clock;
    this.horizonNanos = horizonNanos;
    this.hopNanos = hopNanos;
    this.violationSizes = new TimerLateness(clock);
    this.lag = new TimerLateness(clock);
  }

  /** No horizon: events are handled on arrival (actor tests on a manual clock). */
  public static Causality immediate(EmulatedClock clock) {
    return new Causality(clock, 0, 0);
  }

  public EmulatedClock clock() {
    return clock;
  }

  /** Emulated nanoseconds every event is held behind its stamp. */
  public long horizonNanos() {
    return horizonNanos;
  }

  /** Emulated nanoseconds each message of a chain gets on top of the event that caused it. */
  public long hopNanos() {
    return hopNanos;
  }

  /**
   * The model time of the event being handled on this thread, or the playout clock (the clock less the horizon)
   * outside any handled event.
   */
  public long now() {
    Handling h = HANDLING.get();
    return h != null && h.run() == this ? h.stamp() : clock.nowNanos() - horizonNanos;
  }

  /**
   * Where on the clock a timer due at {@code due}, armed now, is released: its due time plus the horizon, and no
   * earlier than a hop after the event that armed it.
   */
  public long releaseOfTimer(long due) {
    long r = due + horizonNanos;
    Handling h = HANDLING.get();
    return h != null && h.run() == this ? Math.max(r, h.release() + hopNanos) : r;
  }

  /** On the sender's thread, as a message is enqueued: the sender's event, or null outside one. */
  static Sent sending() {
    Handling h = HANDLING.get();
    return h == null ? null
        : new Sent(h.stamp(), h.generation() + 1, h.release(), h.inbox().key(), h.inbox().nextSeq());
  }

  /** On the receiver's thread, as the mailbox dequeues. */
  static void arrive(Sent sent) {
    ARRIVED.set(sent);
  }

  /** What the mailbox dequeued last on this thread: the message being received now. */
  static Sent arrived() {
    return ARRIVED.get();
  }

  static Handling enter(Handling h) {
    Handling before = HANDLING.get();
    HANDLING.set(h);
    return before;
  }

  static void leave(Handling before) {
    HANDLING.set(before);
  }

  void countOrdered(boolean wasHeld) {
    ordered.increment();
    if (wasHeld) held.increment();
  }

  void countLate() {
    late.increment();
  }

  void countObserverViolation() {
    observerViolations.increment();
  }

  void countTieInversion() {
    tieInversions.increment();
  }

  void countViolation(long sizeNanos) {
    violations.increment();
    largestViolation.accumulate(sizeNanos);
    violationSizes.recordNanos(sizeNanos);
  }

  /** How far behind the playout clock an event was handed over (emulated ns; 0 when at its release point). */
  void recordLag(long lagNanos) {
    lag.recordNanos(lagNanos);
  }

  /** The lag record: how late behind their release points events were handed over (for windows and snapshots). */
  public TimerLateness lag() {
    return lag;
  }

  /** What the inboxes measured so far. */
  public Snapshot snapshot() {
    return new Snapshot(horizonNanos, hopNanos, ordered.sum(), held.sum(), late.sum(), violations.sum(),
        tieInversions.sum(), observerViolations.sum(), largestViolation.get(), violationSizes.snapshot(),
        lag.snapshot());
  }

  /**
   * The run's causal order in figures.
   *
   * @param ordered stamped events handed over in order
   * @param held of those, events that arrived before their release point and waited in the inbox
   * @param late events that arrived after their release point, still in order (a budget overrun that broke nothing)
   * @param violations events that arrived after an event stamped later had been handed over
   * @param tieInversions events that arrived after one stamped the same, from another sender, which the tie order
   *     puts after them: no model-time order was broken, but which of two simultaneous events came first was a
   *     thread race (reported, not judged)
   * @param observerViolations violations at observers (the metrics hub), whose order decides nothing in the model
   *     (reported, not judged; their events are not in {@code ordered} either)
   * @param largestViolationNanos the largest violation's size, emulated ns
   * @param violationSizes violation sizes, µs
   * @param lag how long after their release points events were handed over, µs of emulated time
   */
  public record Snapshot(long horizonNanos, long hopNanos, long ordered, long held, long late, long violations,
      long tieInversions, long observerViolations, long largestViolationNanos, TimerLateness.Snapshot violationSizes, TimerLateness.Snapshot lag) {}
}
