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
   * What runs on one thread: the event an inbox is handing to its actor ({@code run} non-null while one is), what
   * the mailbox dequeued last, and the inbox of the actor that runs. One thread-local for all three: every message
   * reads and writes them several times.
   */
  static final class OnThread {
    Causality run;
    CausalInbox inbox;
    long stamp;
    int generation;
    CausalEvent arrived;
    CausalInbox actor;
    /** The token of the frontier's wake-up the mailbox dequeued last ({@link CausalMailbox.Queue#wake}). */
    long woken;
  }

  private static final ThreadLocal<OnThread> ON_THREAD = ThreadLocal.withInitial(OnThread::new);

  /**
   * A dispatcher's thread that carries its {@link OnThread} in a field: every message reads it several times, and a
   * field is cheaper than the thread-local's lookup. Other threads use the thread-local.
   */
  public static final class CausalThread extends Thread {
    final OnThread onThread = new OnThread();

    public CausalThread(Runnable task, String name) {
      super(task, name);
    }
  }

  private final EmulatedClock clock;
  private final Order order;
  private final Frontier frontier;
  /**
   * The run's causal partitions, each with its own safe time ({@link #partitioned}): [0] the run's guardian and
   * everything not under a host or the metrics hub, [1] the metrics hub, [2 + h] host h. One, the run's, when the run
   * is not partitioned (the default).
   */
  private Frontier[] partitions;
  /** Partition by the name of the guardian's child an actor lives under (its top actor). */
  private java.util.Map<String, Integer> partitionByTop = java.util.Map.of();
  /** What an event of each partition waits for while the hosts run apart: a host itself and the run, the rest all. */
  private Frontier[][] apart;
  /** What every event waits for once the run's end gathers the hosts: every partition. */
  private Frontier[][] together;
  private volatile boolean coupled;
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
    this.partitions = new Frontier[] {frontier};
    this.apart = new Frontier[][] {partitions};
    this.together = apart;
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

  /**
   * The safe time of the run's guardian's partition under the conservative order (the whole run's, when it is not
   * partitioned); null under the arrival order.
   */
  public Frontier frontier() {
    return frontier;
  }

  /**
   * Gives every host its own causal partition (conservative order; before any actor exists): {@code hostActors}, the
   * names of the hosts' actors under the guardian. A host's events then wait only for its own partition and the
   * guardian's (the guardian's fault injector, planned controls, starts and stops are what reaches a host from outside
   * it: hosts exchange no model messages); the guardian's and the metrics hub's wait for every partition, since every
   * host reports to them. A message is counted in its receiver's partition. So hosts run ahead of one another up to
   * the guardian's next event, on as many threads as the dispatcher has, and every actor still sees its events in the
   * run's one order: what a host's actor handles depends only on events of its own host and the guardian's, which it
   * waits for. Once the run's end begins ({@link #gather}) every partition waits for all, as in a run of one
   * partition: the end's drain and freeze gather every host, and a host must not run past the guardian's last event.
   * An event that arrived out of order anyway (a message between hosts, which the model does not send) would be
   * counted as a causality violation and make the run unfaithful, not silently reorder it.
   */
  public void partitioned(java.util.List<String> hostActors) {
    if (frontier == null) throw new IllegalStateException("hosts in parallel need the conservative order");
    int n = 2 + hostActors.size();
    Frontier[] all = new Frontier[n];
    all[0] = frontier;
    for (int i = 1; i < n; i++) all[i] = new Frontier();
    java.util.Map<String, Integer> byTop = new java.util.HashMap<>();
    byTop.put("metrics", 1);
    for (int h = 0; h < hostActors.size(); h++) byTop.put(hostActors.get(h), 2 + h);
    Frontier[][] apartGates = new Frontier[n][];
    Frontier[][] togetherGates = new Frontier[n][];
    for (int p = 0; p < n; p++) {
      togetherGates[p] = all;
      apartGates[p] = p >= 2 ? new Frontier[] {all[p], all[0]} : all;
    }
    partitions = all;
    partitionByTop = byTop;
    apart = apartGates;
    together = togetherGates;
  }

  /** How many causal partitions the run has (1: not partitioned). */
  public int partitionCount() {
    return partitions.length;
  }

  /**
   * The partition of the actor at {@code path} (without address, e.g. {@code /user/host-a/vm-1/vgpu}): the host it
   * lives under, the metrics hub, or the guardian's (anything else, also actors outside the run's tree).
   */
  int partitionOf(String path) {
    if (partitions.length == 1 || !path.startsWith("/user/")) return 0;
    int end = path.indexOf('/', 6);
    Integer p = partitionByTop.get(end < 0 ? path.substring(6) : path.substring(6, end));
    return p == null ? 0 : p;
  }

  /** The safe time of partition {@code p}. */
  Frontier partition(int p) {
    return partitions[p];
  }

  /** What an event of partition {@code p} waits for now: every frontier whose bound it must not pass. */
  Frontier[] gates(int p) {
    return coupled ? together[p] : apart[p];
  }

  /**
   * The run's end begins (called by the guardian as it handles the end, before it sends anything): from now on every
   * partition waits for all, as a run of one partition does.
   */
  public void gather() {
    coupled = true;
  }

  /** The earliest bound over every partition: the model's present ({@link Frontier.Level#TOP}: nothing outstanding). */
  public Frontier.Level present() {
    Frontier.Level min = Frontier.Level.TOP;
    for (Frontier f : partitions) {
      Frontier.Level b = f.bound();
      if (b.compareTo(min) < 0) min = b;
    }
    return min;
  }

  /** Whether the run is frozen and every partition has handled every event up to its end. */
  public boolean settled() {
    if (frontier == null) return true;
    for (Frontier f : partitions) if (!f.settled()) return false;
    return true;
  }

  /**
   * Pauses every partition at the model's present, or at model time {@code clockNanos} when that is earlier
   * ({@link Frontier#pause}); returns the level it is paused at.
   */
  public Frontier.Level pause(long clockNanos) {
    if (partitions.length == 1) return frontier.pause(clockNanos);
    Frontier.Level present = present();
    Frontier.Level clock = new Frontier.Level(clockNanos, Integer.MAX_VALUE);
    Frontier.Level level = frontier.pauseAt(present.compareTo(clock) <= 0 ? present : clock);
    for (int i = 1; i < partitions.length; i++) partitions[i].pauseAt(level);
    return level;
  }

  /** Resumes every partition ({@link Frontier#resume}). */
  public void resume() {
    for (Frontier f : partitions) f.resume();
  }

  /**
   * The model time of the event being handled on this thread; outside any event, the conservative order's safe
   * time (the model's present: what every actor has reached), or, under the arrival order, the clock.
   */
  public long now() {
    OnThread t = onThread();
    if (t.run == this) return t.stamp;
    if (frontier != null) {
      Frontier.Level present = present();
      if (frontier.cap().compareTo(present) < 0) present = frontier.cap();
      if (present != Frontier.Level.TOP) return present.stamp();
    }
    return clock.nowNanos();
  }

  /**
   * The generation of the event being handled on this thread (with {@link #now}, its level: a message it sends is one
   * generation later); 0 outside any event.
   */
  public int generation() {
    OnThread t = onThread();
    return t.run == this ? t.generation : 0;
  }

  /**
   * After {@link #freeze}: waits (up to {@code timeoutMillis} of wall time) until every event up to the end has
   * been handled, so that what the actors report is their state at the end. At once under the arrival order.
   */
  public void awaitSettled(long timeoutMillis) throws InterruptedException {
    if (frontier == null) return;
    long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
    while (!settled() && System.nanoTime() < deadline) Thread.sleep(1);
  }

  /**
   * Ends the run at the event being handled: from now on no later event is handed to any actor (conservative
   * order), so that what the actors report afterwards is their state at the end, the same in every run. A no-op
   * under the arrival order or outside an event.
   */
  public void freeze() {
    OnThread t = onThread();
    if (frontier == null || t.run != this) return;
    Frontier.Level end = new Frontier.Level(t.stamp, t.generation);
    for (Frontier f : partitions) f.freeze(end);
  }

  /**
   * On the sender's thread, as a message is enqueued into {@code to}'s queue: the message's event, stamped from the
   * sender's (its model time, one generation more, the sender's key and sequence number), or null outside one; under
   * the conservative order the new event is counted in the receiver's partition.
   */
  static CausalEvent sending(CausalMailbox.Queue to) {
    OnThread t = onThread();
    Causality run = t.run;
    if (run == null) return null;
    Frontier f = run.frontier == null ? null : to.frontierIn(run);
    int generation = t.generation + 1;
    CausalEvent sent = new CausalEvent(t.stamp, generation, t.inbox.key(), t.inbox.nextSeq(), f != null);
    if (f != null) f.add(t.stamp, generation);
    return sent;
  }

  /** This thread's state. */
  static OnThread onThread() {
    return Thread.currentThread() instanceof CausalThread d ? d.onThread : ON_THREAD.get();
  }

  /** The inbox of the actor running on this thread, or null outside one. */
  static CausalInbox actor() {
    return onThread().actor;
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
