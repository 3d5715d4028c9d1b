package org.gpuemu.emulator.clock;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.dispatch.ExecutionContexts;
import org.junit.jupiter.api.Test;

/** The scheduler installed the way the emulator installs it, exercised through the typed timer API. */
class HighResSchedulerActorSystemTest {

  private static Behavior<String> forwarder(ActorRef<String> probe) {
    return Behaviors.receiveMessage(message -> {
      probe.tell(message);
      return Behaviors.same();
    });
  }

  private static Behavior<String> singleTimer(ActorRef<String> probe) {
    return Behaviors.withTimers(timers -> {
      timers.startSingleTimer("once", Duration.ofMillis(2));
      return forwarder(probe);
    });
  }

  private static Behavior<String> fixedRateTimer(ActorRef<String> probe) {
    return Behaviors.withTimers(timers -> {
      timers.startTimerAtFixedRate("tick", Duration.ofMillis(1));
      return forwarder(probe);
    });
  }

  @Test
  void actorSystem_withHighResScheduler_deliversTypedTimers_andTerminatesCleanly() throws Exception {
    ActorTestKit testKit = ActorTestKit.create(
        "high-res", TimerProbe.HIGH_RES_SCHEDULER.withFallback(TimerProbe.RECOMMENDED_DISPATCHER)
            .withFallback(ConfigFactory.load()));
    ActorSystem<Void> system = testKit.system();
    try {
      assertInstanceOf(HighResScheduler.class, Adapter.toClassic(system).scheduler());
      TestProbe<String> singleProbe = testKit.createTestProbe();
      TestProbe<String> rateProbe = testKit.createTestProbe();
      testKit.spawn(singleTimer(singleProbe.ref()), "single");
      testKit.spawn(fixedRateTimer(rateProbe.ref()), "fixed-rate");

      singleProbe.expectMessage(Duration.ofSeconds(10), "once");
      for (int i = 0; i < 3; i++) {
        rateProbe.expectMessage(Duration.ofSeconds(10), "tick");
      }
    } finally {
      system.terminate();
    }
    // A hang here is the bug CONTRIBUTING.md, Pekko notes warns about: close() must run Pekko's TaskRunOnClose tasks.
    system.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
    // Termination closed the scheduler, so it refuses new work.
    assertThrows(IllegalStateException.class, () -> Adapter.toClassic(system).scheduler()
        .scheduleOnce(Duration.ofMillis(1), () -> {}, ExecutionContexts.fromExecutor(Runnable::run)));
  }
}
