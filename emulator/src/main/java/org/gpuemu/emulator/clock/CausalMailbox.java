package org.gpuemu.emulator.clock;

import com.typesafe.config.Config;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.dispatch.Envelope;
import org.apache.pekko.dispatch.MailboxType;
import org.apache.pekko.dispatch.MessageQueue;
import org.apache.pekko.dispatch.ProducesMessageQueue;
import org.apache.pekko.dispatch.UnboundedMessageQueueSemantics;
import scala.Option;

/**
 * Pekko's unbounded mailbox, plus the sender's side of causal order: as a message is enqueued — on the sender's
 * thread, inside {@code tell} — it records which event the sender was handling ({@link Causality#sending()}); as it
 * is dequeued — on the receiver's thread, just before the actor runs it — it hands that record to the receiver's
 * {@link CausalInbox} ({@link Causality#arrived()}). So every message an actor sends while handling an event is
 * stamped with that event's model time and release point, and a stable key for ties, without a field in any
 * message or a change at any {@code tell}. Messages sent from outside an event (the runner, the test kit, Pekko
 * itself) carry nothing and are handled as they arrive.
 *
 * <p>Installed as {@code pekko.actor.typed.default-mailbox.mailbox-type} (typed actors mailbox) by every run ({@code Runner.pekkoConfig}).
 */
public final class CausalMailbox implements MailboxType, ProducesMessageQueue<CausalMailbox.Queue> {

  /** The constructor Pekko calls for a configured mailbox type. */
  public CausalMailbox(ActorSystem.Settings settings, Config config) {}

  @Override
  public MessageQueue create(Option<ActorRef> owner, Option<ActorSystem> system) {
    return new Queue();
  }

  /** A message with the record of the event that sent it. */
  private record Entry(Envelope envelope, Causality.Sent sent) {}

  /** The queue: a lock-free FIFO, as Pekko's default. */
  public static final class Queue implements MessageQueue, UnboundedMessageQueueSemantics {
    private final ConcurrentLinkedQueue<Object> queue = new ConcurrentLinkedQueue<>();

    @Override
    public void enqueue(ActorRef receiver, Envelope handle) {
      Causality.Sent sent = Causality.sending();
      queue.offer(sent == null ? handle : new Entry(handle, sent));
    }

    @Override
    public Envelope dequeue() {
      Object next = queue.poll();
      if (next instanceof Entry e) {
        Causality.arrive(e.sent());
        return e.envelope();
      }
      Causality.arrive(null);
      return (Envelope) next;
    }

    @Override
    public int numberOfMessages() {
      return queue.size();
    }

    @Override
    public boolean hasMessages() {
      return !queue.isEmpty();
    }

    @Override
    public void cleanUp(ActorRef owner, MessageQueue deadLetters) {
      Object next;
      while ((next = queue.poll()) != null) {
        deadLetters.enqueue(owner, next instanceof Entry e ? e.envelope() : (Envelope) next);
      }
    }
  }
}
