package org.gpuemu.emulator.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.BehaviorInterceptor;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.gpuemu.emulator.run.Poll;
import org.gpuemu.emulator.run.Runner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The causal inbox on real actors, with messages delayed on purpose in wall time: under the conservative order they
 * are handled in stamp order however late they come (and the delay shows as lag), under the arrival order the late
 * one is a violation of its size; ties between independent senders go by their stable keys; a timer cancelled in
 * model time is not handled even when it already fired in wall time. A message is delayed by holding its thread
 * until what it must come after in wall time has happened ({@link Until}): a condition, not a length of time, so
 * the race is the same on an idle and on a loaded machine.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CausalInboxTest {
  private static final long MS = 1_000_000;
  /** How long a held thread waits at most for what it waits for: a deadline for a broken test, not a timing. */
  private static final long HOLD_LIMIT_S = 30;
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
   * until {@code holdUntil} (null: no hold).
   */
  record Arm(long due, String text, ActorRef<Object> to, Until holdUntil) {
    Arm(long due, String text, ActorRef<Object> to) {
      this(due, text, to, null);
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

  /**
   * What a held thread waits for: {@code takenIn} open (an actor took in a message of a kind, {@link #takenIn}), then
   * the run's clock at {@code due} or later. Under the conservative order "another actor's timer for {@code due} has
   * been armed and is due by the clock" — its event is in the run's order from its arming, and it fires in wall time
   * (into the inbox at once when armed late, else by the timer thread); under the arrival order, with {@code due} 0,
   * "another actor has handled its timer's event" (and sent what it sends).
   */
  record Until(CountDownLatch takenIn, RunContext run, long due) {
    void await() throws Exception {
      assertTrue(takenIn.await(HOLD_LIMIT_S, TimeUnit.SECONDS), "what the held thread waited for never came");
      Poll.until("the clock at " + due + " ns", Duration.ofSeconds(HOLD_LIMIT_S), () -> run.clock().nowNanos() >= due);
    }
  }

  /** Opens {@code latch} once the actor has taken in (handled, or its causal inbox holds) a message of {@code kind}. */
  private static Behavior<Object> takenIn(Class<?> kind, CountDownLatch latch, Behavior<Object> inner) {
    return Behaviors.intercept(() -> new BehaviorInterceptor<Object, Object>(Object.class) {
      @Override
      public Behavior<Object> aroundReceive(TypedActorContext<Object> ctx, Object msg,
          BehaviorInterceptor.ReceiveTarget<Object> target) {
        Behavior<Object> next = target.apply(ctx, msg);
        if (kind.isInstance(msg)) latch.countDown();
        return next;
      }
    }, inner);
  }

  /** On {@link Arm}, arms a timer whose event sends its text on; opens {@code latch} on taking in a {@code kind}. */
  private static Behavior<Object> source(RunContext run, Class<?> kind, CountDownLatch latch) {
    return Behaviors.withTimers(timers -> takenIn(kind, latch, run.causal(Behaviors.setup(ctx -> {
      List<Arm> armed = new ArrayList<>();
      return Behaviors.receive((c, msg) -> {
        if (msg instanceof Arm a) {
          armed.add(a);
          run.arm(timers, a.text(), new Tick(a.due()), a.due());
        } else if (msg instanceof Tick t) {
          for (Arm a : armed) {
            if (a.due() != t.due()) continue;
            if (a.holdUntil() != null) a.holdUntil().await();
            a.to().tell(new Ping(a.text()));
          }
        }
        return Behaviors.same();
      });
    }))));
  }

  /**
   * Holds every message on its thread until {@code until} is open, then passes it on: a late thread. {@code
   * releasedAt} gets the clock's time (ns) when it let go.
   */
  private static Behavior<Object> slowRelay(RunContext run, ActorRef<Object> next, Until until,
      AtomicLong releasedAt) {
    return run.causal(Behaviors.receive((ctx, msg) -> {
      until.await();
      releasedAt.set(run.clock().nowNanos());
      next.tell(msg);
      return Behaviors.same();
    }));
  }

  private static boolean awaitQuietly(CountDownLatch latch) {
    try {
      return latch.await(HOLD_LIMIT_S, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static List<String> receive(TestProbe<String> probe, int n) {
    List<String> got = new ArrayList<>();
    for (int i = 0; i < n; i++) got.add(probe.receiveMessage(Duration.ofSeconds(5)));
    return got;
  }

  /**
   * Chain a: a timer at 10 ms whose message goes through the slow relay, which holds it until b's timer (20 ms) is
   * due ({@link Until}): under the arrival order b's message is at the recorder by then, under the conservative one
   * b's event waits for a's. Chain b: that timer, whose message goes straight to the recorder. Returns what the
   * recorder saw; {@code releasedAt} gets the clock's time when the relay let a's message go.
   */
  private List<String> twoChains(Causality order, boolean conservative, AtomicLong releasedAt) {
    RunContext run = context(order);
    TestProbe<String> seen = kit.createTestProbe();
    CountDownLatch bTakenIn = new CountDownLatch(1);
    Until bDue = conservative ? new Until(bTakenIn, run, 20 * MS) : new Until(bTakenIn, run, 0);
    ActorRef<Object> recorder = kit.spawn(recorder(run, seen.getRef()));
    ActorRef<Object> relay = kit.spawn(slowRelay(run, recorder, bDue, releasedAt));
    CountDownLatch aArmed = new CountDownLatch(1);
    ActorRef<Object> a = kit.spawn(takenIn(Arm.class, aArmed, source(run, Tick.class, new CountDownLatch(1))));
    ActorRef<Object> b = kit.spawn(source(run, conservative ? Arm.class : Tick.class, bTakenIn));
    a.tell(new Arm(10 * MS, "a", relay));
    // a's timer is armed before b's: armed from outside any event, a timer armed after b's event went would be late
    // by the test's own doing (a thread descheduled for 20 ms on a loaded machine did that once)
    assertTrue(awaitQuietly(aArmed), "a never took in its Arm");
    b.tell(new Arm(20 * MS, "b", recorder));
    return receive(seen, 2);
  }

  @Test
  void conservative_aMessageDelayedInWallTime_isStillHandledInStampOrder_andShowsAsLag() {
    Causality order = Causality.conservative(new ScaledClock(1));
    AtomicLong releasedAt = new AtomicLong();
    assertEquals(List.of("10:a", "20:b"), twoChains(order, true, releasedAt), "b waited for a, stamped 10 ms earlier");
    Causality.Snapshot s = order.snapshot();
    assertEquals(0, s.violations());
    assertEquals(0, s.tieInversions());
    // a (the recorder's first event, always in the sampled lag) was handed over after the relay let it go
    long heldUs = (releasedAt.get() - 10 * MS) / 1_000;
    assertTrue(heldUs >= 10_000, "the relay let go after b's timer at 20 ms: " + heldUs + " µs");
    assertTrue(s.lag().max() >= heldUs, "the relay's hold shows as lag (µs), at least " + heldUs + ": " + s.lag());
  }

  @Test
  void arrival_theSameDelay_isAViolationOfItsSize_handledAtTheLatestTime() {
    Causality order = Causality.immediate(new ScaledClock(1));
    assertEquals(List.of("20:b", "20:a"), twoChains(order, false, new AtomicLong()),
        "a, stamped 10 ms, came after b and is handled at 20");
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
    CountDownLatch xArmed = new CountDownLatch(1);
    CountDownLatch yArmed = new CountDownLatch(1);
    ActorRef<Object> x = kit.spawn(source(run, Arm.class, xArmed));
    ActorRef<Object> y = kit.spawn(source(run, Arm.class, yArmed));
    long kx = CausalInbox.stableKey(x.path().toStringWithoutAddress());
    long ky = CausalInbox.stableKey(y.path().toStringWithoutAddress());
    // both at 500 ms; the one whose key sorts first holds its thread until the other's timer is armed and due, so it
    // arrives last in wall time. The 500 ms are the set-up's slack: both sources must have
    // armed their timers before the first is due (at 10 ms a loaded machine's slow spawn let y's timer fire before x
    // had armed its own: nothing of x's was outstanding)
    x.tell(new Arm(500 * MS, "x", recorder, kx < ky ? new Until(yArmed, run, 500 * MS) : null));
    y.tell(new Arm(500 * MS, "y", recorder, ky < kx ? new Until(xArmed, run, 500 * MS) : null));
    assertEquals(kx < ky ? List.of("500:x", "500:y") : List.of("500:y", "500:x"), receive(seen, 2));
    assertEquals(0, order.snapshot().tieInversions());
  }

  @Test
  void conservative_aTimerCancelledInModelTime_isNotHandled_evenWhenItFiredInWallTimeAlready() throws InterruptedException {
    Causality order = Causality.conservative(new ScaledClock(1));
    RunContext run = context(order);
    TestProbe<String> seen = kit.createTestProbe();
    CountDownLatch victimArmed = new CountDownLatch(1);
    ActorRef<Object> victim = kit.spawn(Behaviors.withTimers(timers -> takenIn(Arm.class, victimArmed,
        run.causal(Behaviors.receive((ctx, msg) -> {
      if (msg instanceof Arm a) {
        run.arm(timers, "t", new Tick(a.due()), a.due());
      } else if (msg instanceof Tick) {
        seen.getRef().tell("tick");
      } else if (msg instanceof Ping) {
        run.disarm(timers, "t");
        seen.getRef().tell("cancelled at " + run.now() / MS);
      }
      return Behaviors.same();
    })))));
    ActorRef<Object> relay = kit.spawn(slowRelay(run, victim, new Until(victimArmed, run, 200 * MS), new AtomicLong()));
    CountDownLatch cancellerArmed = new CountDownLatch(1);
    ActorRef<Object> canceller = kit.spawn(source(run, Arm.class, cancellerArmed));
    // The cancel's timer must be in the order before the victim's exists, or nothing holds the victim's timer back:
    // the canceller takes its Arm in first, and both times leave 50 ms of wall time for a loaded machine to do so.
    canceller.tell(new Arm(50 * MS, "cancel", relay)); // the cancel, stamped 50 ms, arrives once the timer is due
    assertTrue(cancellerArmed.await(HOLD_LIMIT_S, TimeUnit.SECONDS), "the canceller never took its Arm in");
    victim.tell(new Arm(200 * MS, "t", null)); // fires at ~200 ms wall
    assertEquals(List.of("cancelled at 50"), receive(seen, 1));
    seen.expectNoMessage(Duration.ofMillis(200));
    assertEquals(0, order.frontier().outstanding(), "nothing of the cancelled timer is left in the order");
  }
}
