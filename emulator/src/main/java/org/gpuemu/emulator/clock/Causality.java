package org.gpuemu.emulator.clock;

import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * The run's causal order: how every actor's {@link CausalInbox} decides when to hand an event to its actor, and what
 * the inboxes measured. One per run, shared by every actor (like the clock).
 *
 * <p>Every event an actor handles (a stamped message or a timer) has a model time, its <em>stamp</em>, and a
 * <em>generation</em>: a message is stamped with the model time of the event its sender was handling and one
 * generation more, so among events of the same model time a message comes after the event that sent it; ties
 * between independent senders are broken by the sender's stable key and its sequence number, the same in every run.
 * Two orders are built in ({@link Order}):
 *
 * <ul>
 *   <li>{@link Order#CONSERVATIVE} (the default): an inbox hands an event over only when nothing earlier is
 *       outstanding anywhere in the run ({@link Frontier}); every actor sees its events in the same order in every
 *       run with the same seed, whatever the threads do, and a late thread delays the model (lag) instead of
 *       reordering it;
 *   <li>{@link Order#ARRIVAL}: an inbox hands each event over as it arrives, in order when it can; an event that
 *       arrives after a later one has been handled is a <em>causality violation</em>, counted with its size (how
 *       much earlier it was stamped than the latest event handled) and handled at once at the actor's latest model
 *       time. Which of two racing chains reaches a shared actor first is then decided by thread timing
 *       (docs/concepts/time-and-order.md: the design this one replaced, kept to measure against).
 * </ul>
 *
 * <p>One thread-local ({@link OnThread}) carries the sender's side across a {@code tell}: {@link CausalMailbox} reads
 * {@link #sending()} on the sender's thread as it enqueues, and sets {@link OnThread#arrived} on the receiver's thread
 * as it dequeues.
 */
public final class Causality {

  /** How inboxes order events (class comment). */
  public enum Order {
    CONSERVATIVE("conservative"),
    ARRIVAL("arrival");

    private final String label;

    Order(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }

    /** The order named {@code label}, or null. */
    public static Order of(String label) {
      for (Order o : values()) if (o.label.equals(label)) return o;
      return null;
    }
  }

  /**
   * What the runtime knows of a message from the event its sender was handling when it sent it; {@code frontier}:
   * the run's frontier it was counted in (null: not counted, the arrival order).
   */
  public record Sent(long stamp, int generation, long sender, long seq, Frontier frontier) {
    Frontier.Level level() {
      return new Frontier.Level(stamp, generation);
    }
  }

  /**
   * What runs on one thread: the event an inbox is handing to its actor ({@code run} non-null while one is), what
   * the mailbox dequeued last, and the inbox of the actor that runs. One thread-local for all three: every message
   * reads and writes them several times.
   */
  static final class OnThread {
    Causality run;
    CausalInbox inbox;
    long stamp;
    int generation;
    Sent arrived;
    CausalInbox actor;
  }

  private static final ThreadLocal<OnThread> ON_THREAD = ThreadLocal.withInitial(OnThread::new);

  private final EmulatedClock clock;
  private final Order order;
  private final Frontier frontier;
  private final LongAdder ordered = new LongAdder();
  private final LongAdder held = new LongAdder();
  private final LongAdder violations = new LongAdder();
  private final LongAdder tieInversions = new LongAdder();
  private final LongAdder observerViolations = new LongAdder();
  private final LongAdder beyondHorizon = new LongAdder();
  private final long horizonNanos;
  private final LongAccumulator largestViolation = new LongAccumulator(Math::max, 0);
  private final TimerLateness violationSizes;
  private final TimerLateness lag;
  /** The seed the tie order among events of one level is drawn from; 0: the senders' stable keys ({@link #tieRank}). */
  private final long orderSeed;

  /**
   * The causal order of a run on {@code clock}; {@code horizonNanos}: the lag (emulated ns) beyond which an event
   * counts as handled behind the horizon ({@link Snapshot#beyondHorizon}).
   */
  public Causality(EmulatedClock clock, Order order, long horizonNanos) {
    this(clock, order, horizonNanos, 0);
  }

  /**
   * As {@link #Causality(EmulatedClock, Order, long)}, with the tie order among events of the same level drawn from
   * {@code orderSeed} (0: the senders' stable keys, the default order): see {@link #tieRank}.
   */
  public Causality(EmulatedClock clock, Order order, long horizonNanos, long orderSeed) {
    this.orderSeed = orderSeed;
    this.clock = clock;
    this.order = order;
    this.horizonNanos = horizonNanos;
    this.frontier = order == Order.CONSERVATIVE ? new Frontier() : null;
    this.violationSizes = new TimerLateness(clock);
    this.lag = new TimerLateness(clock);
  }

  /** Events handled as they arrive, still measured (actor tests, and the design measured against). */
  public static Causality immediate(EmulatedClock clock) {
    return new Causality(clock, Order.ARRIVAL, Long.MAX_VALUE);
  }

  /** Events handled in the run's one order (the default of every run). */
  public static Causality conservative(EmulatedClock clock) {
    return new Causality(clock, Order.CONSERVATIVE, Long.MAX_VALUE);
  }

  public EmulatedClock clock() {
    return clock;
  }

  /** The seed of the tie order; 0: the default order (the senders' stable keys). */
  public long orderSeed() {
    return orderSeed;
  }

  /**
   * Where events sent by {@code sender} stand among the other senders' events of the same level (model time and
   * generation) at model time {@code stamp}: lower goes first; an inbox then orders one sender's events by its
   * sequence number. With no order seed it is the sender's stable key, the same order in every run; with one, a
   * 64-bit mix of key, seed and model time, so each model time gets its own permutation of the senders. Either is a
   * legal causal order: no event causes another of its own level (a consequence is at least one generation later),
   * and one sender's events keep the order it sent them in, as Pekko keeps it between two actors (docs/guides/explore.md).
   */
  long tieRank(long sender, long stamp) {
    if (orderSeed == 0) return sender;
    return mix(sender ^ mix(orderSeed ^ stamp * 0x9E3779B97F4A7C15L));
  }

  /** SplittableRandom's 64-bit finaliser (Stafford's variant 13 of MurmurHash3's). */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  public Order order() {
    return order;
  }

  /** The run's safe time under the conservative order; null under the arrival order. */
  public Frontier frontier() {
    return frontier;
  }

  /**
   * The model time of the event being handled on this thread; outside any event, the conservative order's safe
   * time (the model's present: what every actor has reached), or, under the arrival order, the clock.
   */
  public long now() {
    OnThread t = ON_THREAD.get();
    if (t.run == this) return t.stamp;
    if (frontier != null) {
      Frontier.Level present = frontier.bound();
      if (frontier.cap().compareTo(present) < 0) present = frontier.cap();
      if (present != Frontier.Level.TOP) return present.stamp();
    }
    return clock.nowNanos();
  }

  /**
   * After {@link #freeze}: waits (up to {@code timeoutMillis} of wall time) until every event up to the end has
   * been handled, so that what the actors report is their state at the end. At once under the arrival order.
   */
  public void awaitSettled(long timeoutMillis) throws InterruptedException {
    if (frontier == null) return;
    long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
    while (!frontier.settled() && System.nanoTime() < deadline) Thread.sleep(1);
  }

  /**
   * Ends the run at the event being handled: from now on no later event is handed to any actor (conservative
   * order), so that what the actors report afterwards is their state at the end, the same in every run. A no-op
   * under the arrival order or outside an event.
   */
  public void freeze() {
    OnThread t = ON_THREAD.get();
    if (frontier != null && t.run == this) frontier.freeze(new Frontier.Level(t.stamp, t.generation));
  }

  /** The level a new event due at {@code due} gets: its due time, and never before the event that caused it. */
  Frontier.Level levelOfTimer(long due) {
    OnThread t = ON_THREAD.get();
    if (t.run != this || due > t.stamp) return new Frontier.Level(due, 0);
    return new Frontier.Level(t.stamp, t.generation + 1);
  }

  /** On the sender's thread, as a message is enqueued: the sender's event, or null outside one. */
  static Sent sending() {
    OnThread t = ON_THREAD.get();
    Causality run = t.run;
    if (run == null) return null;
    Sent sent = new Sent(t.stamp, t.generation + 1, t.inbox.key(), t.inbox.nextSeq(), run.frontier);
    if (run.frontier != null) run.frontier.add(sent.stamp(), sent.generation());
    return sent;
  }

  /** This thread's state. */
  static OnThread onThread() {
    return ON_THREAD.get();
  }

  /** The inbox of the actor running on this thread, or null outside one. */
  static CausalInbox actor() {
    return ON_THREAD.get().actor;
  }

  void countOrdered(boolean wasHeld) {
    ordered.increment();
    if (wasHeld) held.increment();
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

  /**
   * How far behind the clock an event was handed over: the clock's time less its stamp (emulated ns, >= 0). Every
   * event is checked against the horizon; {@code sampled} ones (one in eight of each actor's, a fixed pattern) go
   * into the lag distribution, which costs a few atomic operations per record.
   */
  void recordLag(long lagNanos, boolean sampled) {
    if (sampled) lag.recordNanos(lagNanos);
    if (lagNanos > horizonNanos) beyondHorizon.increment();
  }

  /** The lag record: how far behind the clock events were handed over (for windows and snapshots). */
  public TimerLateness lag() {
    return lag;
  }

  /** What the inboxes measured so far. */
  public Snapshot snapshot() {
    return new Snapshot(order, ordered.sum(), held.sum(), violations.sum(), tieInversions.sum(),
        observerViolations.sum(), largestViolation.get(), violationSizes.snapshot(), lag.snapshot(),
        horizonNanos, beyondHorizon.sum());
  }

  /**
   * The run's causal order in figures.
   *
   * @param order how the inboxes ordered events
   * @param ordered stamped events handed over in order
   * @param held of those, events that waited in their inbox for an earlier one (an event elsewhere in the run, or
   *     one still on its way to the same actor)
   * @param violations events that arrived after an event stamped later had been handled
   * @param tieInversions events that arrived after one stamped the same, from another sender, which the tie order
   *     puts after them: no model-time order was broken, but which of two simultaneous events came first was a
   *     thread race (reported, not judged)
   * @param observerViolations violations at observers, whose order decides nothing in the model (reported, not
   *     judged; their events are not in {@code ordered} either)
   * @param largestViolationNanos the largest violation's size, emulated ns
   * @param violationSizes violation sizes, µs
   * @param lag how far behind the clock events were handed over, µs of emulated time (one event in eight of each
   *     actor's)
   * @param horizonNanos the horizon, emulated ns (Long.MAX_VALUE: none)
   * @param beyondHorizon events handed over more than the horizon behind the clock
   */
  public record Snapshot(Order order, long ordered, long held, long violations, long tieInversions,
      long observerViolations, long largestViolationNanos, TimerLateness.Snapshot violationSizes,
      TimerLateness.Snapshot lag, long horizonNanos, long beyondHorizon) {}
}
