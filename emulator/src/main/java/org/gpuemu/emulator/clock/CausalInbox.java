package org.gpuemu.emulator.clock;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.BehaviorInterceptor;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * An actor's side of the run's causal order ({@link Causality}): every stamped event — a message sent while its
 * sender handled an event ({@link CausalMailbox}) or a {@link Timed} timer armed through {@link RunContext#arm} —
 * is handed to the actor in model-time order, ties broken by the sender's stable key (or a rank drawn from the run's
 * order seed, {@link Causality#tieRank}) and sequence number. Under the
 * conservative order an event waits here until it is the run's earliest ({@link Frontier}), until no stamped
 * message is left in the actor's mailbox and no earlier timer of the actor's is still to fire; under the arrival
 * order it is handed over as it arrives and counted as a violation when a later one was handled first. Messages
 * without a stamp (reports, set-up, the runner's questions) pass at once.
 *
 * <p>Wraps an actor's behavior inside {@code Behaviors.withTimers} (so that it sees the actor's own timer messages,
 * not Pekko's timer envelopes), and outside any {@code Behaviors.supervise} (so that what it holds, and the order
 * of what it sent, survive a restart): {@link #wrap}. Not thread-safe: one per actor, used by its actor only.
 */
public final class CausalInbox extends BehaviorInterceptor<Object, Object> {

  /**
   * The inbox's own wake-up: the run's safe time reached the level it waited for under registration {@code token}
   * (0: a wake-up of its own, after the actor changed its behavior).
   */
  private record WakeUp(long token) {}

  /** A wake-up of its own (after the actor changed its behavior): one for every inbox, it carries nothing else. */
  private static final WakeUp WAKE_SELF = new WakeUp(0);

  /**
   * The frontier's wake-up as the actor's mailbox hands it over ({@link CausalMailbox.Queue#wake}): its token is the
   * thread's {@link Causality.OnThread#woken}.
   */
  static final Object FRONTIER_WAKE = new Object() {
    @Override
    public String toString() {
      return "FrontierWake";
    }
  };

  /** Whether {@code message} is an inbox's wake-up (the mailbox stamps nothing for it). */
  static boolean isWakeUp(Object message) {
    return message instanceof WakeUp;
  }

  private final Causality run;
  /** The safe time of this actor's partition (the run's, unless hosts run apart): where its own events are counted. */
  private Frontier frontier;
  private int partition;
  /** An observer's (the metrics hub's) order decides nothing in the model: under the arrival order counted apart. */
  private final boolean observer;
  private final PriorityQueue<CausalEvent> held = new PriorityQueue<>();
  /** The timers armed and not yet handled ({@link CausalEvent.Timers#timer}), fired or not. */
  private final List<CausalEvent.Timer> armed = new ArrayList<>(2);
  private final CausalEvent.Timers timers = new CausalEvent.Timers();
  private ActorRef<Object> self;
  private CausalMailbox.Queue mailbox;
  private long key;
  private long sendSeq;
  /** Events arrived so far (wraps after 2^31: arrivals are compared by difference). */
  private int arrivals;
  private long handedOver;
  /** The latest event handed over; none before the first. */
  private CausalEvent last;
  /** The behavior the actor returned last (an AbstractBehavior returns itself). */
  private Behavior<Object> lastReturned;
  /** The level the frontier will wake this inbox at, and the token of that wait; 0 when it is not waiting. */
  private long waitingStamp;
  private int waitingGeneration;
  private long registration;
  private long registrations;
  /** What the frontier wakes: this inbox, with the token of the wait (one object for every wait of the inbox). */
  private final Frontier.Waiter waiter = token -> {
    if (mailbox != null) {
      mailbox.wake(token);
    } else {
      self.tell(new WakeUp(token));
    }
  };

  private CausalInbox(Causality run, boolean observer) {
    super(Object.class);
    this.run = run;
    this.frontier = run.frontier();
    this.observer = observer;
  }

  /** {@code behavior} behind a causal inbox of run {@code run}. */
  public static <T> Behavior<T> wrap(Causality run, Behavior<T> behavior) {
    return wrap(run, behavior, false);
  }

  /**
   * {@code behavior} behind a causal inbox of run {@code run}; an {@code observer} (an actor that only records, like
   * the metrics hub) has its violations counted apart from the model's under the arrival order
   * ({@link Causality.Snapshot#observerViolations}).
   */
  @SuppressWarnings("unchecked")
  public static <T> Behavior<T> wrap(Causality run, Behavior<T> behavior, boolean observer) {
    Behavior<Object> inner = (Behavior<Object>) (Behavior<?>) behavior;
    return (Behavior<T>) (Behavior<?>) Behaviors.intercept(() -> new CausalInbox(run, observer), inner);
  }

  long key() {
    return key;
  }

  long nextSeq() {
    return sendSeq++;
  }

  @Override
  public Behavior<Object> aroundStart(TypedActorContext<Object> ctx, PreStartTarget<Object> target) {
    self = ctx.asJava().getSelf();
    // The actor's path without its random uid: the same in every run of the same scenario.
    String path = self.path().toStringWithoutAddress();
    key = stableKey(path);
    if (frontier != null) {
      partition = run.partitionOf(path);
      frontier = run.partition(partition);
    }
    mailbox = CausalMailbox.queueOf(self);
    if (mailbox != null) mailbox.markCausal();
    Causality.OnThread t = Causality.onThread();
    CausalInbox before = t.actor;
    t.actor = this;
    try {
      Behavior<Object> started = target.start(ctx);
      if (!held.isEmpty()) wakeUp(); // a timer armed while starting fired into this inbox at once
      return started;
    } finally {
      t.actor = before;
    }
  }

  @Override
  public Behavior<Object> aroundReceive(TypedActorContext<Object> ctx, Object msg, ReceiveTarget<Object> target) {
    Causality.OnThread t = Causality.onThread();
    CausalInbox before = t.actor;
    t.actor = this;
    try {
      if (msg == FRONTIER_WAKE || msg instanceof WakeUp) {
        long token = msg == FRONTIER_WAKE ? t.woken : ((WakeUp) msg).token();
        if (token != 0 && token != registration) return Behaviors.same(); // an earlier wait, superseded
        if (token != 0) registration = 0;
        return release(ctx, target, t, null);
      }
      CausalEvent event = stamp(msg, t.arrived);
      if (event == null) {
        Behavior<Object> next = target.apply(ctx, msg);
        if (held.isEmpty() || !Behavior.isAlive(next)) return next;
        // it may have armed a timer that fired into this inbox at once
        if (!keeps(next)) {
          lastReturned = next;
          wakeUp();
          return next;
        }
        return release(ctx, target, t, null);
      }
      if (last != null && event.compareTo(last) < 0) return late(ctx, target, event, t);
      return release(ctx, target, t, event);
    } finally {
      t.actor = before;
    }
  }

  @Override
  public Behavior<Object> aroundSignal(TypedActorContext<Object> ctx, Signal signal, SignalTarget<Object> target) {
    Causality.OnThread t = Causality.onThread();
    CausalInbox before = t.actor;
    t.actor = this;
    try {
      if (signal instanceof PostStop || signal instanceof PreRestart) dropAll();
      return target.apply(ctx, signal);
    } finally {
      t.actor = before;
    }
  }

  /** The event a message stands for ({@code sent}: what the mailbox recorded of it), or null for an unstamped one. */
  private CausalEvent stamp(Object msg, CausalEvent sent) {
    int arrival = arrivals++;
    if (msg instanceof Timed t) {
      CausalEvent.Timer a = armedFor(msg);
      if (a == null) {
        long seq = nextSeq();
        return new CausalEvent(t.due(), 0, key, seq, false).held(run.tieRank(key, t.due()), arrival, msg, false);
      }
      a.fired = true;
      return a.held(run.tieRank(key, a.stamp), arrival, msg, frontier != null);
    }
    if (sent == null) return null;
    return sent.held(run.tieRank(sent.sender, sent.stamp), arrival, msg, sent.counted);
  }

  /**
   * An event that arrived after a later one was handed over: too late to put in order; handled at once, at the
   * latest event's time. Stamped earlier: a causality violation; stamped the same (a tie between independent
   * senders): an inversion of the tie order.
   */
  private Behavior<Object> late(TypedActorContext<Object> ctx, ReceiveTarget<Object> target, CausalEvent event,
      Causality.OnThread t) {
    if (observer) {
      if (event.stamp < last.stamp) run.countObserverViolation();
    } else if (event.stamp < last.stamp) {
      run.countViolation(last.stamp - event.stamp);
      if (ctx.asJava().getLog().isDebugEnabled()) {
        ctx.asJava().getLog().debug("causality violation: {} (stamp {} ns, generation {}) after {} (stamp {} ns, "
            + "generation {})", event.msg.getClass().getSimpleName(), event.stamp, event.generation,
            last.msg.getClass().getSimpleName(), last.stamp, last.generation);
      }
    } else {
      run.countTieInversion();
    }
    return settle(deliver(ctx, target, event, false, t));
  }

  /**
   * Hands over held events in order while each may go (see the class comment), {@code incoming} (an event that just
   * arrived, or null) among them. Several go in one call only while the actor keeps its behavior; after a change the
   * rest follow from a fresh wake-up, so that each reaches the behavior in force. An event that arrives when none is
   * held and may go at once is handed over without passing through the held queue (most events do: the queue's
   * insertion and removal were a few per cent of the dispatcher's time).
   */
  private Behavior<Object> release(TypedActorContext<Object> ctx, ReceiveTarget<Object> target,
      Causality.OnThread t, CausalEvent incoming) {
    CausalEvent next = incoming;
    if (next != null && !held.isEmpty()) {
      held.add(next);
      next = null;
    }
    while (true) {
      boolean queued = next == null; // the earliest held event; else the incoming one, earlier than any held
      if (queued) {
        next = held.peek();
        if (next == null) return Behaviors.same();
      }
      if (frontier != null && (mailbox != null && mailbox.pendingStamped() > 0 // it comes next
          || !mayGo(next) // woken when it may
          || earlierTimerPending(next))) { // it fires, then comes here
        if (!queued) held.add(next);
        return Behaviors.same();
      }
      if (queued) held.poll();
      if (!observer) run.countOrdered(next.arrivedBefore(arrivals - 1));
      Behavior<Object> behavior = deliver(ctx, target, next, true, t);
      if (!Behavior.isAlive(behavior)) return behavior;
      if (!keeps(behavior)) {
        lastReturned = behavior;
        if (!held.isEmpty()) wakeUp();
        return behavior;
      }
      next = null;
    }
  }

  private Behavior<Object> settle(Behavior<Object> next) {
    if (!keeps(next)) lastReturned = next;
    return next;
  }

  /** Whether the actor kept the behavior it had: "same", unhandled, or the one it returned last time. */
  private boolean keeps(Behavior<Object> next) {
    return next == Behaviors.<Object>same() || Behavior.isUnhandled(next) || next == lastReturned;
  }

  private Behavior<Object> deliver(TypedActorContext<Object> ctx, ReceiveTarget<Object> target, CausalEvent event,
      boolean inOrder, Causality.OnThread t) {
    // A violation is handled at the latest event's time, as if it came right after it.
    long stamp = inOrder || last == null ? event.stamp : last.stamp;
    int generation = inOrder || last == null ? event.generation : last.generation;
    if (inOrder) {
      if (last instanceof CausalEvent.Timer handled && !armed.contains(handled)) timers.free(handled); // unreferred
      last = event;
    }
    if (event.msg instanceof Timed && event.sender == key) handled(event);
    if (!observer) run.recordLag(Math.max(0, run.clock().nowNanos() - event.stamp), (handedOver++ & 7) == 0);
    Causality runBefore = t.run;
    CausalInbox inboxBefore = t.inbox;
    long stampBefore = t.stamp;
    int generationBefore = t.generation;
    t.run = run;
    t.inbox = this;
    t.stamp = stamp;
    t.generation = generation;
    try {
      return target.apply(ctx, event.msg);
    } finally {
      t.run = runBefore;
      t.inbox = inboxBefore;
      t.stamp = stampBefore;
      t.generation = generationBefore;
      if (event.counted) frontier.done(event.stamp, event.generation);
    }
  }

  private void wakeUp() {
    self.tell(WAKE_SELF);
  }

  /**
   * Whether {@code next} is the run's earliest event now; if not, the frontier wakes this inbox when it is. The inbox
   * waits at one level at a time, the earliest it needs: it registers again only for an earlier one, and a wake-up of
   * a wait it superseded is ignored (the later level's wait is then due no earlier than the current one's), so that
   * wake-ups never outnumber the waits that matter.
   */
  private boolean mayGo(CausalEvent next) {
    Frontier[] gates = run.gates(partition);
    if (registration != 0 && Frontier.compare(next.stamp, next.generation, waitingStamp, waitingGeneration) >= 0) {
      return gates.length == 1 ? frontier.mayGo(next.stamp, next.generation)
          : Frontier.allMayGo(gates, next.stamp, next.generation);
    }
    while (true) {
      long lowered = gates.length == 1 ? 0 : Frontier.lowered(gates);
      long token = ++registrations;
      for (Frontier g : gates) {
        if (!g.releasable(next.stamp, next.generation, waiter, token)) {
          registration = token;
          waitingStamp = next.stamp;
          waitingGeneration = next.generation;
          return false;
        }
      }
      registrations--; // not registered
      // several frontiers: an event that moved between two of them while they were read is read again
      if (gates.length == 1 || Frontier.lowered(gates) == lowered) return true;
    }
  }

  // ---- timers (RunContext.arm / disarm) ----

  /**
   * Timer {@code key} is armed with {@code message} for model time {@code due}, replacing one of that key. Under the
   * conservative order, a timer whose due time the clock has passed already (the model runs behind it) fires here
   * and now, into this inbox: its event waits for its place in the order as any other, and no timer thread sits
   * between the event that armed it and the event it stands for. Returns whether it fired so.
   */
  boolean armed(Object key, Object message, long due) {
    disarmed(key);
    // its level: its due time, and never before the event that armed it (one generation after it)
    Causality.OnThread t = Causality.onThread();
    boolean atOnce = t.run == run && due <= t.stamp;
    CausalEvent.Timer a = timers.timer(atOnce ? t.stamp : due, atOnce ? t.generation + 1 : 0, this.key, nextSeq(), key,
        message);
    armed.add(a);
    if (frontier == null) return false;
    frontier.add(a.stamp, a.generation);
    if (due > run.clock().nowNanos()) return false;
    a.fired = true;
    held.add(a.held(run.tieRank(this.key, a.stamp), arrivals++, message, true));
    return true;
  }

  /**
   * Timer {@code key} is cancelled (nothing when none is armed). One that fired already in wall time but whose event
   * the model has not reached is taken back too: in model time it was cancelled before it was due.
   */
  void disarmed(Object key) {
    for (int i = 0; i < armed.size(); i++) {
      CausalEvent.Timer a = armed.get(i);
      if (a.timerKey.equals(key)) {
        armed.remove(i);
        drop(a);
        return;
      }
    }
  }

  /** Every timer of the actor is cancelled. */
  void disarmedAll() {
    for (CausalEvent.Timer a : armed) drop(a);
    armed.clear();
  }

  private void drop(CausalEvent.Timer a) {
    if (a.fired) held.remove(a);
    if (frontier != null) frontier.done(a.stamp, a.generation);
    if (a != last) timers.free(a); // the latest is free once the next is handed over
  }

  /** The armed timer whose message this is (it fired); null if none. */
  private CausalEvent.Timer armedFor(Object message) {
    for (CausalEvent.Timer a : armed) if (a.msg == message) return a;
    return null;
  }

  /** A timer's event is handed over: the timer is no longer armed. */
  private void handled(CausalEvent event) {
    for (int i = 0; i < armed.size(); i++) {
      if (armed.get(i) == event) {
        armed.remove(i);
        return;
      }
    }
  }

  /**
   * Whether a timer of this actor still to fire comes before {@code event} in the order. Asked once {@code event}
   * is the run's earliest: every armed timer is then at its level or later, so only a tie can come first.
   */
  private boolean earlierTimerPending(CausalEvent event) {
    for (int i = 0; i < armed.size(); i++) {
      CausalEvent.Timer a = armed.get(i);
      if (a.stamp != event.stamp) continue;
      if (a.fired) continue;
      int c = Frontier.compare(a.stamp, a.generation, event.stamp, event.generation);
      if (c < 0) return true;
      long tie = run.tieRank(key, a.stamp);
      if (c == 0 && (tie < event.tie || tie == event.tie
          && (key < event.sender || key == event.sender && a.seq < event.seq))) {
        return true;
      }
    }
    return false;
  }

  /** The actor stops or restarts: what it holds and its timers leave the run's order (they will not be handled). */
  private void dropAll() {
    disarmedAll();
    if (frontier != null) {
      for (CausalEvent h : held) if (h.counted) frontier.done(h.stamp, h.generation);
    }
    held.clear();
  }

  /** A 64-bit FNV-1a hash of an actor's path: the same in every run, and unlikely to collide with another's. */
  static long stableKey(String path) {
    long h = 0xcbf29ce484222325L;
    for (byte b : path.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    return h;
  }
}
