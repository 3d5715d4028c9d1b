package org.gpuemu.emulator.clock;

import com.typesafe.config.Config;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.ActorCell;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorRefWithCell;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.dispatch.Envelope;
import org.apache.pekko.dispatch.MailboxType;
import org.apache.pekko.dispatch.MessageQueue;
import org.apache.pekko.dispatch.ProducesMessageQueue;
import org.apache.pekko.dispatch.UnboundedMessageQueueSemantics;
import scala.Option;

/**
 * Pekko's unbounded mailbox, plus the sender's side of causal order: as a message is enqueued — on the sender's
 * thread, inside {@code tell} — it records which event the sender was handling ({@link Causality#sending()}, which
 * also counts the new event in the run's {@link Frontier} under the conservative order); as it is dequeued — on the
 * receiver's thread, just before the actor runs it — it hands that record to the receiver's {@link CausalInbox}
 * ({@link Causality.OnThread#arrived}). The record is the event itself ({@link CausalEvent}), which carries the
 * envelope through the queue in place of a wrapper. So every message an actor sends while handling an event is stamped with that
 * event's model time and a stable key for ties, without a field in any message or a change at any {@code tell}.
 * Messages sent from outside an event (the runner, the test kit, Pekko itself) carry nothing and are handled as they
 * arrive.
 *
 * <p>The queue also counts the stamped messages it holds ({@link Queue#pendingStamped}): an inbox hands nothing over
 * while a stamped message is still in its mailbox, since that message may come first in the order. An actor without
 * a causal inbox (set-up actors, test probes) has its messages counted done as they are dequeued.
 *
 * <p>Installed as {@code pekko.actor.typed.default-mailbox.mailbox-type} (typed actors' mailbox) by every run
 * ({@code Runner.pekkoConfig}).
 */
public final class CausalMailbox implements MailboxType, ProducesMessageQueue<CausalMailbox.Queue> {

  /** The constructor Pekko calls for a configured mailbox type. */
  public CausalMailbox(ActorSystem.Settings settings, Config config) {}

  @Override
  public MessageQueue create(Option<ActorRef> owner, Option<ActorSystem> system) {
    return new Queue(owner.isDefined() ? owner.get().path().toStringWithoutAddress() : "");
  }

  /**
   * The queue of {@code self}'s mailbox, or null when it has none of this type. Reached through Pekko's internal
   * {@code ActorCell} (stable across Pekko 1.x): the public API offers no way from an actor to its own mailbox.
   */
  static Queue queueOf(org.apache.pekko.actor.typed.ActorRef<?> self) {
    ActorRef classic = Adapter.toClassic(self);
    if (classic instanceof ActorRefWithCell withCell && withCell.underlying() instanceof ActorCell cell
        && cell.mailbox() != null && cell.mailbox().messageQueue() instanceof Queue q) {
      q.cell = cell;
      return q;
    }
    return null;
  }

  /**
   * What the mailbox hands its actor for the frontier's wake-up of its inbox ({@link Queue#wake}): one envelope for
   * every wake-up of every actor, its token in {@link Causality.OnThread#woken}.
   */
  private static final Envelope WAKE = Envelope.apply(CausalInbox.FRONTIER_WAKE, ActorRef.noSender());

  /**
   * A node of a mailbox's queue: a stamped message's event ({@link CausalEvent}, which is its own node), or a node of
   * its own for an unstamped envelope ({@link Plain}).
   */
  abstract static class Node {
    volatile Node next;
  }

  /** An unstamped envelope in the queue (a message sent from outside an event, an inbox's wake-up). */
  private static final class Plain extends Node {
    final Envelope envelope;

    Plain(Envelope envelope) {
      this.envelope = envelope;
    }
  }

  private static final VarHandle TAIL;
  private static final VarHandle NEXT;
  private static final VarHandle WOKEN;

  static {
    try {
      TAIL = MethodHandles.lookup().findVarHandle(Queue.class, "tail", Node.class);
      NEXT = MethodHandles.lookup().findVarHandle(Node.class, "next", Node.class);
      WOKEN = MethodHandles.lookup().findVarHandle(Queue.class, "woken", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * The queue: a lock-free FIFO of many producers and one consumer (the mailbox runs on one thread at a time),
   * D. Vyukov's intrusive MPSC queue: a producer swaps itself in as the tail and links the old tail to it; the consumer
   * takes from the head. A stamped message's event is the node itself, so a message costs no queue node (Pekko's
   * default queue, a {@code ConcurrentLinkedQueue}, allocated one for every message).
   */
  public static final class Queue implements MessageQueue, UnboundedMessageQueueSemantics {
    /** Stands in the queue when it would otherwise be empty. */
    private final Node stub = new Plain(null);
    /** The next node to take; the consumer's only. */
    private Node head = stub;
    /** The last node; swapped by producers. */
    private volatile Node tail = stub;
    private final AtomicInteger stamped = new AtomicInteger();
    /** Set by the actor's causal inbox as it starts, before it dequeues anything. */
    private volatile boolean causal;
    /** The owner's path (without address): which causal partition its events are counted in. */
    private final String path;
    /**
     * The run and its partition's frontier this queue's events are counted in (set on the first stamped one, before it
     * is enqueued; one run per actor system, so one for every event the queue holds).
     */
    private volatile Causality partitionOf;
    private volatile Frontier partition;
    /**
     * The token of the frontier's latest wake-up of the owner's inbox not yet handed to it; 0: none. A wake-up is this
     * field and the mailbox scheduled, not a message: no envelope, no queue node, no trip through {@code tell}.
     */
    private volatile long woken;
    /** The owner's cell (set as its causal inbox starts): whose mailbox a wake-up schedules. */
    private volatile ActorCell cell;

    Queue(String path) {
      this.path = path;
    }

    /** The frontier of {@code run}'s partition this queue's owner belongs to. */
    Frontier frontierIn(Causality run) {
      Frontier f = partition;
      if (f != null && partitionOf == run) return f;
      f = run.partition(run.partitionOf(path));
      partition = f;
      partitionOf = run;
      return f;
    }

    void markCausal() {
      causal = true;
    }

    /**
     * The frontier wakes the owner's inbox for its wait of {@code token} (from any thread): the token is kept until the
     * actor takes it ({@link #dequeue}, once no message is left before it) and the owner's mailbox is scheduled, as a
     * message's arrival schedules it. Of several wake-ups not yet taken the latest wait's is kept: the inbox ignores a
     * wake-up of a wait it superseded, and tokens grow with every wait it registers.
     */
    void wake(long token) {
      long current;
      do {
        current = woken;
        if (current >= token) break;
      } while (!WOKEN.compareAndSet(this, current, token));
      ActorCell c = cell;
      c.dispatcher().registerForExecution(c.mailbox(), true, false);
    }

    /** Stamped messages enqueued and not yet dequeued. */
    int pendingStamped() {
      return stamped.get();
    }

    @Override
    public void enqueue(ActorRef receiver, Envelope handle) {
      CausalEvent sent = CausalInbox.isWakeUp(handle.message()) ? null : Causality.sending(this);
      if (sent == null) {
        push(new Plain(handle));
      } else {
        sent.carry(handle);
        stamped.incrementAndGet();
        push(sent);
      }
    }

    private void push(Node node) {
      NEXT.set(node, null); // the stub comes back with the node it was taken before (the swap publishes this)
      Node previous = (Node) TAIL.getAndSet(this, node);
      NEXT.setRelease(previous, node);
    }

    /** The next node, or null when none is (or a producer has not linked its node yet: it schedules the mailbox). */
    private Node poll() {
      Node h = head;
      Node next = (Node) NEXT.getAcquire(h);
      if (h == stub) {
        if (next == null) return null;
        head = next;
        h = next;
        next = (Node) NEXT.getAcquire(h);
      }
      if (next == null) {
        if (h != tail) return null; // a producer swapped the tail and is about to link it
        push(stub);
        next = (Node) NEXT.getAcquire(h);
        if (next == null) return null;
      }
      head = next;
      NEXT.set(h, null); // no producer links to it any more: it must not keep the nodes after it alive
      return h;
    }

    @Override
    public Envelope dequeue() {
      Node next = poll();
      if (next instanceof CausalEvent e) {
        stamped.decrementAndGet();
        Envelope envelope = e.envelope();
        e.msg = null;
        if (!causal && e.counted) {
          partition.done(e.stamp, e.generation);
          e = null;
        }
        Causality.onThread().arrived = e;
        return envelope;
      }
      if (next == null) {
        if (woken == 0) return null;
        long token = (long) WOKEN.getAndSet(this, 0L);
        if (token == 0) return null;
        Causality.OnThread t = Causality.onThread();
        t.arrived = null;
        t.woken = token;
        return WAKE;
      }
      Causality.onThread().arrived = null;
      return ((Plain) next).envelope;
    }

    /** An estimate (Pekko's diagnostics): read from another thread, the walk may see a node taken meanwhile. */
    @Override
    public int numberOfMessages() {
      int n = 0;
      for (Node x = head; x != null; x = x.next) if (x != stub) n++;
      return n;
    }

    @Override
    public boolean hasMessages() {
      Node h = head;
      return h != stub || h.next != null || tail != h || woken != 0;
    }

    @Override
    public void cleanUp(ActorRef owner, MessageQueue deadLetters) {
      Node next;
      while ((next = poll()) != null) {
        if (next instanceof CausalEvent e) {
          stamped.decrementAndGet();
          if (e.counted) partition.done(e.stamp, e.generation);
          deadLetters.enqueue(owner, e.envelope());
        } else {
          deadLetters.enqueue(owner, ((Plain) next).envelope);
        }
      }
    }
  }
}
