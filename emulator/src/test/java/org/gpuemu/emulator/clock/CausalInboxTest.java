package org.gpuemu.emulator.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.gpuemu.emulator.run.Runner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The causal inbox on real actors: events delivered out of wall order are handed over in stamp order while they
 * are held, a message carries the model time of the event that sent it, and an event that comes after a later one
 * has been handled is counted as a violation of its size.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CausalInboxTest {
  private static final long MS = 1_000_000;
  private final ActorTestKit kit = ActorTestKit.create(Runner.pekkoConfig());

  @AfterAll
  void shutdown() {
    kit.shutdownTestKit();
  }

  /** An event at model time {@code due}. */
  record Tick(long due) implements Timed {}

  /** A plain message: its stamp is whatever event its sender was handling. */
  record Ping(String text) {}

  /** Tells {@code seen} the model time of every event it handles ({@code run.now()}) and what it was. */
  private static Behavior<Object> recorder(Causality run, ActorRef<String> seen) {
    return recorder(run, seen, false);
  }

  private static Behavior<Object> recorder(Causality run, ActorRef<String> seen, boolean observer) {
    return CausalInbox.wrap(run, Behaviors.receive((ctx, msg) -> {
      seen.tell(run.now() / MS + ":" + (msg instanceof Tick ? "tick" : ((Ping) msg).text()));
      return Behaviors.same();
    }), observer);
  }

  /** On each tick, pings {@code next}. */
  private static Behavior<Object> forwarder(Causality run, ActorRef<Object> next) {
    return CausalInbox.wrap(run, Behaviors.receive((ctx, msg) -> {
      next.tell(new Ping("from a tick"));
      return Behaviors.same();
    }));
  }

  private static List<String> receive(TestProbe<String> probe, int n) {
    List<String> got = new ArrayList<>();
    for (int i = 0; i < n; i++) got.add(probe.receiveMessage(Duration.ofSeconds(5)));
    return got;
  }

  @Test
  void heldEvents_deliveredOutOfWallOrder_areHandledInStampOrder() {
    ScaledClock clock = new ScaledClock(1);
    // A 300 ms horizon: all three arrive long before their release points (due + 300 ms).
    Causality run = new Causality(clock, 300 * MS, 0);
    TestProbe<String> seen = kit.createTestProbe();
    ActorRef<Object> actor = kit.spawn(recorder(run, seen.getRef()));
    actor.tell(new Tick(30 * MS));
    actor.tell(new Tick(10 * MS));
    actor.tell(new Tick(20 * MS));
    assertEquals(List.of("10:tick", "20:tick", "30:tick"), receive(seen, 3));
    assertEquals(0, run.snapshot().violations());
    assertEquals(3, run.snapshot().ordered());
  }

  @Test
  void aMessage_carriesTheModelTimeOfTheEventThatSentIt_andIsOrderedWithTheReceiversOwnEvents() {
    ScaledClock clock = new ScaledClock(1);
    Causality run = new Causality(clock, 300 * MS, 0);
    TestProbe<String> seen = kit.createTestProbe();
    ActorRef<Object> receiver = kit.spawn(recorder(run, seen.getRef()));
    ActorRef<Object> sender = kit.spawn(forwarder(run, receiver));
    receiver.tell(new Tick(50 * MS)); // arrives first in wall time, stamped later
    sender.tell(new Tick(10 * MS)); // its ping reaches the receiver ~300 ms later, stamped 10 ms
    assertEquals(List.of("10:from a tick", "50:tick"), receive(seen, 2));
    assertEquals(0, run.snapshot().violations());
  }

  @Test
  void anEventArrivingAfterALaterOneWasHandled_isAViolationOfItsSize_handledAtTheLatestTime() {
    ScaledClock clock = new ScaledClock(1);
    Causality run = Causality.immediate(clock); // no horizon: each event is handled as it arrives
    TestProbe<String> seen = kit.createTestProbe();
    ActorRef<Object> actor = kit.spawn(recorder(run, seen.getRef()));
    actor.tell(new Tick(30 * MS));
    assertEquals(List.of("30:tick"), receive(seen, 1));
    actor.tell(new Tick(10 * MS)); // delayed on purpose: 20 ms of model time too late
    assertEquals(List.of("30:tick"), receive(seen, 1), "handled at once, at the actor's latest model time");
    Causality.Snapshot s = run.snapshot();
    assertEquals(1, s.violations());
    assertEquals(20 * MS, s.largestViolationNanos());
    assertEquals(1, s.ordered());
  }

  @Test
  void anObserversLateEvent_isCountedApart_notAsAModelViolation() {
    Causality run = Causality.immediate(new ScaledClock(1));
    TestProbe<String> seen = kit.createTestProbe();
    ActorRef<Object> hub = kit.spawn(recorder(run, seen.getRef(), true));
    hub.tell(new Tick(30 * MS));
    receive(seen, 1); // handled at its release point, 30 ms after the clock started
    hub.tell(new Tick(10 * MS));
    receive(seen, 1);
    Causality.Snapshot s = run.snapshot();
    assertEquals(0, s.violations());
    assertEquals(1, s.observerViolations());
    assertEquals(0, s.ordered(), "an observer's events are not the model's");
  }
}
