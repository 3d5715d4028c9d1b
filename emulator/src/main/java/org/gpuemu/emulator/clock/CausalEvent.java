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
 */
final class CausalEvent extends CausalMailbox.Node implements Comparable<CausalEvent> {
  final long stamp;
  /** How many messages it is, at its own stamp, after a timer. */
  final int generation;
  /** The stable key of the actor that sent it (its own, for a timer). */
  final long sender;
  final long seq;
  /** Pekko's envelope while the message is in the mailbox; null after. */
  Envelope envelope;
  long tie;
  long arrival;
  Object msg;
  /**
   * It is in the run's frontier (its receiver's partition's), to be done once handled: a message sent under the
   * conservative order from the moment it is sent, a timer from the moment it fires.
   */
  boolean counted;
  /** A timer's key (null: a message), and whether it fired (its event waits in the inbox). */
  Object timerKey;
  boolean fired;

  CausalEvent(long stamp, int generation, long sender, long seq, boolean counted) {
    this.stamp = stamp;
    this.generation = generation;
    this.sender = sender;
    this.seq = seq;
    this.counted = counted;
  }

  /** A timer {@code key} armed by the actor {@code owner} with {@code message}, not yet fired. */
  static CausalEvent timer(long stamp, int generation, long owner, long seq, Object key, Object message) {
    CausalEvent e = new CausalEvent(stamp, generation, owner, seq, false);
    e.timerKey = key;
    e.msg = message;
    return e;
  }

  /** The receiver's side: where it stands among the events of its level, when it arrived, what it carries. */
  CausalEvent held(long tie, long arrival, Object msg, boolean counted) {
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
    return c != 0 ? c : Long.compare(arrival, o.arrival);
  }
}
