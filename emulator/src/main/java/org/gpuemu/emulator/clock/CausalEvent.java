package org.gpuemu.emulator.clock;

import org.apache.pekko.dispatch.Envelope;

/**
 * One stamped event of the run's causal order, from the moment it comes into being until its actor has handled it:
 * a message, made on the sender's thread as {@link CausalMailbox} enqueues it (it carries Pekko's envelope through the
 * queue), or a timer, made by the {@link CausalInbox} it is armed in and kept there until it is handled or cancelled.
 * The receiver's inbox fills in its tie rank and arrival when it arrives (a timer: when it fires) and keeps the same
 * object in its order: one object per event, where a message took three (the sender's record, the queue's entry,
 * the inbox's event) and a timer two (the armed timer, its event).
 *
 * <p>Its order ({@link #compareTo}): level (model time, then generation), then the tie rank, the sender's stable key,
 * the sender's sequence number, and the arrival at the inbox (written out: a chain of comparator lambdas was not
 * inlined). Published from the sender's thread to the receiver's through the mailbox's concurrent queue, whose node it
 * is ({@link CausalMailbox.Node}); the receiver's fields are written and read on the receiver's thread only.
 *
 * <p>64 bytes (a timer, {@link Timer}, 72; they were 80): Pekko's envelope and the message share a field (the
 * envelope leaves the event as it is dequeued, before the message is written), a timer's own fields are in its
 * subclass, and the arrival is an {@code int} compared by difference (the sender's key and sequence number tell any
 * two events of one inbox apart before it is reached). An event is needed for nearly every message; once handled and
 * referred to no more, the same object serves a later one ({@link Messages}, {@link Timers}).
 */
class CausalEvent extends CausalMailbox.Node implements Comparable<CausalEvent> {
  // not final: an event nothing refers to any more is filled again for a later one (Timers, Messages)
  long stamp;
  /** How many messages it is, at its own stamp, after a timer. */
  int generation;
  /** The stable key of the actor that sent it (its own, for a timer). */
  long sender;
  long seq;
  long tie;
  /** The inbox's count of arrivals when it arrived (wraps after 2^31: compared by difference, {@link #arrivedBefore}). */
  int arrival;
  /**
   * Pekko's envelope while the message is in the mailbox ({@link #envelope}), then, once it has arrived, the message
   * itself (a timer's: from the start).
   */
  Object msg;
  /**
   * It is in the run's frontier (its receiver's partition's), to be done once handled: a message sent under the
   * conservative order from the moment it is sent, a timer from the moment it fires.
   */
  boolean counted;
  CausalEvent(long stamp, int generation, long sender, long seq, boolean counted) {
    fill(stamp, generation, sender, seq, counted);
  }

  /** Makes it a new event of these figures, not yet arrived (a new object's, or one filled again). */
  final void fill(long stamp, int generation, long sender, long seq, boolean counted) {
    this.stamp = stamp;
    this.generation = generation;
    this.sender = sender;
    this.seq = seq;
    this.counted = counted;
    this.tie = 0;
    this.arrival = 0;
  }

  /**
   * The message events of one thread, made here as its actors send ({@link #sent}). An event its receiver handled and
   * no longer refers to (it is not the inbox's latest any more: {@link #free}, on the receiver's thread) is filled
   * again for a later message sent on that thread instead of a new one: a request's path sends thirteen messages, and
   * their events were a third of its bytes. Nothing else refers to a handled event: the mailbox's queue let go of it
   * as it was dequeued, and the sender and the frontier keep its figures, not the event. One thread's only.
   */
  static final class Messages {
    /** At most this many kept: a thread that handles more than it sends (the metrics hub's) keeps no more. */
    private final CausalEvent[] spare = new CausalEvent[64];
    private int spares;

    CausalEvent sent(long stamp, int generation, long sender, long seq, boolean counted) {
      if (spares == 0) return new CausalEvent(stamp, generation, sender, seq, counted);
      CausalEvent e = spare[--spares];
      spare[spares] = null;
      e.fill(stamp, generation, sender, seq, counted);
      return e;
    }

    /** {@code e}, a message's event, was handled and nothing refers to it any more. */
    void free(CausalEvent e) {
      e.msg = null;
      if (spares < spare.length) spare[spares++] = e;
    }
  }

  /** A timer's event: its key, and whether it fired (its event waits in the inbox). */
  static final class Timer extends CausalEvent {
    Object timerKey;
    boolean fired;

    private Timer() {
      super(0, 0, 0, 0, false);
    }
  }

  /**
   * The timers' events of one inbox, made here: a timer {@code key} armed by the actor {@code owner} with
   * {@code message}, not yet fired ({@link #timer}). An event nothing refers to any more (cancelled, or handled and no
   * longer its inbox's latest: {@link #free}) is filled again for a later timer instead of a new one: a request's
   * path arms four timers, and their events were an eighth of its bytes. Used by the inbox's actor only.
   */
  static final class Timers {
    private final Timer[] spare = new Timer[2];
    private int spares;

    Timer timer(long stamp, int generation, long owner, long seq, Object key, Object message) {
      Timer t = spares == 0 ? new Timer() : spare[--spares];
      spare[spares] = null;
      t.fill(stamp, generation, owner, seq, false);
      t.timerKey = key;
      t.msg = message;
      t.fired = false;
      return t;
    }

    /** {@code t} is out of its inbox's lists (armed, held, latest): a later timer may fill it. */
    void free(Timer t) {
      if (spares < spare.length) spare[spares++] = t;
    }
  }

  /** Pekko's envelope, while the message is in the mailbox (set by {@link #carry}). */
  Envelope envelope() {
    return (Envelope) msg;
  }

  /** The message is enqueued in {@code envelope}. */
  void carry(Envelope envelope) {
    this.msg = envelope;
  }

  /** Whether it arrived before the inbox's arrival number {@code arrival} (by difference: the count wraps). */
  boolean arrivedBefore(int arrival) {
    return this.arrival - arrival < 0;
  }

  /** The receiver's side: where it stands among the events of its level, when it arrived, what it carries. */
  CausalEvent held(long tie, int arrival, Object msg, boolean counted) {
    this.tie = tie;
    this.arrival = arrival;
    this.msg = msg;
    this.counted = counted;
    return this;
  }

  @Override
  public int compareTo(CausalEvent o) {
    int c = Frontier.compare(stamp, generation, o.stamp, o.generation);
    if (c == 0) c = Long.compare(tie, o.tie);
    if (c == 0) c = Long.compare(sender, o.sender);
    if (c == 0) c = Long.compare(seq, o.seq);
    return c != 0 ? c : Integer.compare(arrival - o.arrival, 0);
  }
}
