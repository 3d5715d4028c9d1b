package org.gpuemu.emulator.clock;

import java.time.Duration;
import java.util.PriorityQueue;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.BehaviorInterceptor;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * An actor's playout buffer (DESIGN.md §4): every stamped event — a message sent while its sender handled an event
 * ({@link CausalMailbox}) or a {@link Timed} timer — waits here until the clock reaches its release point, and
 * events are handed to the actor in model-time order, ties broken by the sender's stable key and sequence number.
 * Messages without a stamp (reports, set-up) pass at once. See {@link Causality} for the rule and what is counted.
 *
 * <p>Wraps an actor's behavior inside {@code Behaviors.withTimers} (so that it sees the actor's own timer messages,
 * not Pekko's timer envelopes): {@link #wrap}. Not thread-safe: one per actor, used by its actor only.
 */
public final class CausalInbox extends BehaviorInterceptor<Object, Object> {

  /** The inbox's own wake-up: the clock reached the earliest held release point. */
  private enum Release { INSTANCE }

  /**
   * A held event. {@code generation}: how many messages it is, at its own stamp, after a timer (0 for a timer, the
   * sender's generation + 1 for a message stamped like the sender's event, 1 for one stamped later): among events of
   * equal stamp, a message comes after the event that sent it.
   */
  private record Held(long stamp, int generation, long sender, long seq, long release, long arrival, Object msg) {}

  private static final java.util.Comparator<Held> ORDER = java.util.Comparator.comparingLong(Held::stamp)
      .thenComparingInt(Held::generation).thenComparingLong(Held::sender).thenComparingLong(Held::seq)
      .thenComparingLong(Held::arrival);

  private final Causality run;
  /** An observer's (the metrics hub's) order decides nothing in the model: counted apart, not judged. */
  private final boolean observer;
  private final PriorityQueue<Held> held = new PriorityQueue<>(ORDER);
  private long key;
  private boolean keyed;
  private long sendSeq;
  private long arrivals;
  private long timerSeq;
  /** The latest event handed over: its order key (stamp, sender, seq); none before the first. */
  private Held last;
  /** The behavior the actor returned last (an AbstractBehavior returns itself). */
  private Behavior<Object> lastReturned;
  /** Release point the pending wake-up is set for; Long.MAX_VALUE: none. */
  private long wakeAt = Long.MAX_VALUE;

  private CausalInbox(Causality run, boolean observer) {
    super(Object.class);
    this.run = run;
    this.observer = observer;
  }

  /** {@code behavior} behind a causal inbox of run {@code run}. */
  public static <T> Behavior<T> wrap(Causality run, Behavior<T> behavior) {
    return wrap(run, behavior, false);
  }

  /**
   * {@code behavior} behind a causal inbox of run {@code run}; an {@code observer} (an actor that only records, like
   * the metrics hub) has its violations counted apart from the model's ({@link Causality.Snapshot#observerViolations}).
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
  public Behavior<Object> aroundReceive(TypedActorContext<Object> ctx, Object msg, ReceiveTarget<Object> target) {
    if (!keyed) {
      // The actor's path without its random uid: the same in every run of the same scenario.
      key = ctx.asJava().getSelf().path().toStringWithoutAddress().hashCode();
      keyed = true;
    }
    if (msg == Release.INSTANCE) {
      wakeAt = Long.MAX_VALUE;
      return release(ctx, target, run.clock().nowNanos());
    }
    Held event = stamp(msg);
    if (event == null) return target.apply(ctx, msg);
    long now = run.clock().nowNanos();
    if (!observer && now > event.release()) run.countLate();
    if (last != null && ORDER.compare(event, last) < 0) {
      // Arrived after a later event was handed over: too late to put in order; handled at once. Stamped earlier:
      // a causality violation; stamped the same (a tie between independent senders): an inversion of the tie order.
      if (observer) {
        if (event.stamp() < last.stamp()) run.countObserverViolation();
      } else if (event.stamp() < last.stamp()) {
        run.countViolation(last.stamp() - event.stamp());
        if (ctx.asJava().getLog().isDebugEnabled()) {
          ctx.asJava().getLog().debug("causality violation: {} (stamp {} ns, generation {}) after {} (stamp {} ns, "
              + "generation {})", event.msg().getClass().getSimpleName(), event.stamp(), event.generation(),
              last.msg().getClass().getSimpleName(), last.stamp(), last.generation());
        }
      } else {
        run.countTieInversion();
      }
      return settle(deliver(ctx, target, event, false, now));
    }
    held.add(event);
    return release(ctx, target, now);
  }

  /** The event a message stands for, or null for an unstamped one. */
  private Held stamp(Object msg) {
    long arrival = arrivals++;
    if (msg instanceof Timed t) {
      long due = t.due();
      return new Held(due, 0, key, timerSeq++, due + run.horizonNanos(), arrival, msg);
    }
    Causality.Sent sent = Causality.arrived();
    if (sent == null) return null;
    long release = Math.max(sent.stamp() + run.horizonNanos(), sent.release() + run.hopNanos());
    return new Held(sent.stamp(), sent.generation(), sent.sender(), sent.seq(), release, arrival, msg);
  }

  /**
   * Hands over every held event whose release point has passed, in order, and wakes up for the next one. Several
   * go in one call only while the actor keeps its behavior; after a change the rest follow from a fresh wake-up,
   * so that each reaches the behavior in force.
   */
  private Behavior<Object> release(TypedActorContext<Object> ctx, ReceiveTarget<Object> target, long now) {
    while (!held.isEmpty() && held.peek().release() <= now) {
      Held event = held.poll();
      if (!observer) run.countOrdered(event.arrival() < arrivals - 1);
      Behavior<Object> next = deliver(ctx, target, event, true, now);
      if (!Behavior.isAlive(next)) return next;
      if (!keeps(next)) {
        lastReturned = next;
        if (!held.isEmpty()) wake(ctx, now, 0);
        return next;
      }
    }
    if (!held.isEmpty()) wake(ctx, now, held.peek().release() - now);
    return Behaviors.same();
  }

  private Behavior<Object> settle(Behavior<Object> next) {
    if (!keeps(next)) lastReturned = next;
    return next;
  }

  /** Whether the actor kept the behavior it had: "same", unhandled, or the one it returned last time. */
  private boolean keeps(Behavior<Object> next) {
    return next == Behaviors.<Object>same() || Behavior.isUnhandled(next) || next == lastReturned;
  }

  private Behavior<Object> deliver(TypedActorContext<Object> ctx, ReceiveTarget<Object> target, Held event,
      boolean inOrder, long now) {
    // A violation is handled at the latest event's time, as if it came right after it.
    long stamp = inOrder || last == null ? event.stamp() : last.stamp();
    int generation = inOrder || last == null ? event.generation() : last.generation();
    if (inOrder) last = event;
    run.recordLag(Math.max(0, now - event.release()));
    Causality.Handling before = Causality.enter(new Causality.Handling(run, this, stamp, generation,
        event.release()));
    try {
      return target.apply(ctx, event.msg());
    } finally {
      Causality.leave(before);
    }
  }

  /** Schedules the inbox's wake-up {@code emulatedNanos} after {@code now} unless one is due sooner. */
  private void wake(TypedActorContext<Object> typed, long now, long emulatedNanos) {
    long delay = Math.max(0, emulatedNanos);
    if (now + delay >= wakeAt) return;
    wakeAt = now + delay;
    ActorContext<Object> ctx = typed.asJava();
    ctx.scheduleOnce(Duration.ofNanos(run.clock().toWallNanos(delay)), ctx.getSelf(), Release.INSTANCE);
  }
}
