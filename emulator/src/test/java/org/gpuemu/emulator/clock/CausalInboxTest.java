package org.gpuemu.emulator.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * The causal inbox on real actors, with messages delayed on purpose in wall time: under the conservative order they
 * are handled in stamp order however late they come (and the delay shows as lag), under the arrival order the late
 * one is a violation of its size; ties between independent senders go by their stable keys; a timer cancelled in
 * model time is not handled even when it already fired in wall time.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CausalInboxTest {
  private static final long MS = 1_000_000;
  /** How long the slow relay holds a message, wall time: far longer than the 10 ms between the two chains. */
  private static final long RELAY_MS = 300;
  private final ActorTestKit kit = ActorTestKit.create(Runner.pekkoConfig(Causality.Order.ARRIVAL)); // two threads: a real race

  @AfterAll
  void shutdown() {
    kit.shutdownTestKit();
  }

  /** A timer event at model time {@code due}. */
  record Tick(long due) implements Timed {}

  /** A plain message: its stamp is whatever event its sender was handling. */
  record Ping(String text) {}

  /**
   * Unstamped: arm a timer for {@code due}, whose event sends {@code text} to {@code to}, after blocking its thread
   * {@code holdMs} of wall time.
   */
  record Arm(long due, String text, ActorRef<Object> to, long holdMs) {
    Arm(long due, String text, ActorRef<Object> to) {
      this(due, text, to, 0);
    }
  }

  private static RunContext context(Causality order) {
    return new RunContext(order.clock(), new TimerLateness(order.clock()), order);
  }

  /** Tells {@code seen} the model time of every event it handles ({@code run.now()}) and what it was. */
  private static Behavior<Object> recorder(RunContext run, ActorRef<String> seen) {
    return run.causal(Behaviors.receive((ctx, msg) -> {
      seen.tell(run.now() / MS + ":" + (msg instanceof Tick ? "tick" : ((Ping) msg).text()));
      return Behaviors.same();
    }));
  }

  /** On {@link Arm}, arms a timer; when it fires, sends its text on. */
  private static Behavior<Object> source(RunContext run) {
    return Behaviors.withTimers(timers -> run.causal(Behaviors.setup(ctx -> {
      List<Arm> armed = new ArrayList<>();
      return Behaviors.receive((c, msg) -> {
        if (msg instanceof Arm a) {
          armed.add(a);
          run.arm(timers, a.text(), new Tick(a.due()), a.due());
        } else if (msg instanceof Tick t) {
          for (Arm a : armed) {
            if (a.due() != t.due()) continue;
            if (a.holdMs() > 0) Thread.sleep(a.holdMs());
            a.to().tell(new Ping(a.text()));
          }
        }
        return Behaviors.same();
      });
    })));
  }

  /** Holds every message {@link #RELAY_MS} of wall time on its thread, then passes it on: a late thread. */
  private static Behavior<Object> slowRelay(RunContext run, ActorRef<Object> next) {
    return run.causal(Behaviors.receive((ctx, msg) -> {
      Thread.sleep(RELAY_MS);
      next.tell(msg);
      return Behaviors.same();
    }));
  }

  private static List<String> receive(TestProbe<String> probe, int n) {
    List<String> got = new ArrayList<>();
    for (int i = 0; i < n; i++) got.add(probe.receiveMessage(Duration.ofSeconds(5)));
    return got;
  }

  /**
   * Chain a: a timer at 10 ms whose message goes through the slow relay (arrives ~300 ms later in wall time). Chain
   * b: a timer at 20 ms whose message goes straight to the recorder (arrives at ~20 ms). Returns what the recorder saw.
   */
  private List<String> twoChains(Causality order) {
    RunContext run = context(order);
    TestProbe<String> seen = kit.createTestProbe();
    ActorRef<Object> recorder = kit.spawn(recorder(run, seen.getRef()));
    ActorRef<Object> relay = kit.spawn(slowRelay(run, recorder));
    ActorRef<Object> a = kit.spawn(source(run));
    ActorRef<Object> b = kit.spawn(source(run));
    a.tell(new Arm(10 * MS, "a", relay));
    b.tell(new Arm(20 * MS, "b", recorder));
    return receive(seen, 2);
  }

  @Test
  void conservative_aMessageDelayedInWallTime_isStillHandledInStampOrder_andShowsAsLag() {
    Causality order = Causality.conservative(new ScaledClock(1));
    assertEquals(List.of("10:a", "20:b"), twoChains(order), "b waited for a, stamped 10 ms earlier");
    Causality.Snapshot s = order.snapshot();
    assertEquals(0, s.violations());
    assertEquals(0, s.tieInversions());
    assertTrue(s.lag().max() >= 250_000, "the relay's 300 ms show as lag (µs): " + s.lag());
  }

  @Test
  void arrival_theSameDelay_isAViolationOfItsSize_handledAtTheLatestTime() {
    Causality order = Causality.immediate(new ScaledClock(1));
    assertEquals(List.of("20:b", "20:a"), twoChains(order), "a, stamped 10 ms, came after b and is handled at 20");
    Causality.Snapshot s = order.snapshot();
    assertEquals(1, s.violations());
    assertEquals(10 * MS, s.largestViolationNanos());
  }

  @Test
  void conservative_tiesBetweenIndependentSenders_goByTheirStableKeys_notByArrival() {
    Causality order = Causality.conservative(new ScaledClock(1));
    RunContext run = context(order);
    TestProbe<String> seen = kit.createTestProbe();
    ActorRef<Object> recorder = kit.spawn(recorder(run, seen.getRef()));
    ActorRef<Object> x = kit.spawn(source(run));
    ActorRef<Object> y = kit.spawn(source(run));
    long kx = CausalInbox.stableKey(x.path().toStringWithoutAddress());
    long ky = CausalInbox.stableKey(y.path().toStringWithoutAddress());
    // both at 500 ms; the one whose key sorts first holds its thread 300 ms, so it arrives last in wall time. The
    // 500 ms are the set-up's slack: both sources must have armed their timers before the first is due (at 10 ms a
    // loaded machine's slow spawn let y's timer fire before x had armed its own: nothing of x's was outstanding)
    x.tell(new Arm(500 * MS, "x", recorder, kx < ky ? RELAY_MS : 0));
    y.tell(new Arm(500 * MS, "y", recorder, ky < kx ? RELAY_MS : 0));
    assertEquals(kx < ky ? List.of("500:x", "500:y") : List.of("500:y", "500:x"), receive(seen, 2));
    assertEquals(0, order.snapshot().tieInversions());
  }

  @Test
  void conservative_aTimerCancelledInModelTime_isNotHandled_evenWhenItFiredInWallTimeAlready() {
    Causality order = Causality.conservative(new ScaledClock(1));
    RunContext run = context(order);
    TestProbe<String> seen = kit.createTestProbe();
    ActorRef<Object> victim = kit.spawn(Behaviors.withTimers(timers -> run.causal(Behaviors.receive((ctx, msg) -> {
      if (msg instanceof Arm a) {
        run.arm(timers, "t", new Tick(a.due()), a.due());
      } else if (msg instanceof Tick) {
        seen.getRef().tell("tick");
      } else if (msg instanceof Ping) {
        run.disarm(timers, "t");
        seen.getRef().tell("cancelled at " + run.now() / MS);
      }
      return Behaviors.same();
    }))));
    ActorRef<Object> relay = kit.spawn(slowRelay(run, victim));
    ActorRef<Object> canceller = kit.spawn(source(run));
    victim.tell(new Arm(20 * MS, "t", null)); // fires at ~20 ms wall
    canceller.tell(new Arm(5 * MS, "cancel", relay)); // the cancel, stamped 5 ms, arrives at ~305 ms wall
    assertEquals(List.of("cancelled at 5"), receive(seen, 1));
    seen.expectNoMessage(Duration.ofMillis(200));
    assertEquals(0, order.frontier().outstanding(), "nothing of the cancelled timer is left in the order");
  }
}
