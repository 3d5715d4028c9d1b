package org.gpuemu.emulator;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestInbox;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.gpuemu.emulator.clock.Causality;
import org.gpuemu.emulator.clock.Frontier;
import org.gpuemu.emulator.clock.ManualClock;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.clock.TimerLateness;
import org.gpuemu.emulator.run.Runner;

/**
 * Time for the actor tests that are about order and timing, not speed: the actor system's scheduler is a
 * {@link ManualScheduler} and the run's clock a {@link ManualClock}, and only the test moves them, both together.
 * Time moves from one timer to the next ({@link #advanceUntil}, {@link #pass}): before each move the test waits until
 * the actors under test have handled what the last one brought (its {@code settle}), so a timer fires exactly when
 * due, after every earlier event, never because the machine was slow or fast; and time stands still while the test
 * thread reads an answer and sends the next message.
 *
 * <p>One kit serves a test class (an actor system is slow to start); each run context it makes starts a clock of its
 * own at model time 0, and time moves for the latest one.
 */
public final class ManualTimeKit {
  /** How long a test waits (wall time) for the actors to catch up with the clock before it fails: liveness only. */
  private static final Duration CATCH_UP = Duration.ofSeconds(20);

  private final ActorTestKit kit = ActorTestKit.create(ConfigFactory.parseString(
      "pekko.scheduler.implementation = \"" + ManualScheduler.class.getName() + "\"")
      .withFallback(Runner.pekkoConfig()));
  private final ManualScheduler scheduler = (ManualScheduler) Adapter.toClassic(kit.system()).scheduler();
  private ManualClock clock = new ManualClock();
  private RunContext run;

  public ActorTestKit kit() {
    return kit;
  }

  /** The latest run context's clock. */
  public ManualClock clock() {
    return clock;
  }

  /** A run context on a new manual clock whose events are handled as they arrive (an actor on its own). */
  public RunContext immediate() {
    clock = new ManualClock();
    run = new RunContext(clock, new TimerLateness(clock));
    return run;
  }

  /** A run context on a new manual clock under the conservative causal order, as every run has it. */
  public RunContext conservative() {
    clock = new ManualClock();
    run = new RunContext(clock, new TimerLateness(clock), Causality.conservative(clock));
    return run;
  }

  /**
   * Moves time from timer to timer until {@code until} holds, at most {@code maxNanos}; before each move (and before
   * looking at {@code until}) {@code settle} returns once the actors under test have handled what they were sent and
   * armed their timers.
   */
  public void advanceUntil(BooleanSupplier until, Runnable settle, long maxNanos) {
    long end = clock.nowNanos() + maxNanos;
    while (true) {
      settle.run();
      if (until.getAsBoolean()) return;
      long next = nextDue();
      if (next > end) {
        throw new AssertionError("not reached within " + maxNanos / 1e6 + " ms of model time (at " + clock.nowNanos()
            + " ns" + (next == Long.MAX_VALUE ? ", nothing more is due)" : ", the next event at " + next + " ns)"));
      }
      moveTo(next);
    }
  }

  /** Lets {@code nanos} of model time pass, timer by timer, with {@code settle} after each; ends settled. */
  public void pass(long nanos, Runnable settle) {
    long end = clock.nowNanos() + nanos;
    while (true) {
      settle.run();
      long next = nextDue();
      if (next > end) {
        moveTo(end);
        settle.run();
        return;
      }
      moveTo(next);
    }
  }

  /** The next message {@code inbox} receives, time moving as {@link #advanceUntil} moves it. */
  public <T> T next(TestInbox<T> inbox, Runnable settle, long maxNanos) {
    advanceUntil(inbox::hasMessages, settle, maxNanos);
    return inbox.receiveMessage();
  }

  /**
   * A {@code settle} for the actors of the latest run context, under the conservative order: returns once the model
   * has handled every event up to the clock (nothing at or before it is outstanding), waiting for the actors'
   * threads; a timer armed meanwhile for the present fires.
   */
  public Runnable caughtUp() {
    RunContext ordered = run;
    return () -> {
      long deadline = System.nanoTime() + CATCH_UP.toNanos();
      while (!caughtUp(ordered.causality().present())) {
        if (System.nanoTime() > deadline) throw new AssertionError("the model did not reach " + clock);
        scheduler.advanceTo(scheduler.now());
        LockSupport.parkNanos(50_000);
      }
    };
  }

  public void shutdown() {
    kit.shutdownTestKit();
  }

  private boolean caughtUp(Frontier.Level present) {
    return present == Frontier.Level.TOP || present.stamp() > clock.nowNanos();
  }

  /**
   * The model time of the next event: the scheduler's next task, or under the conservative order the model's
   * present when it is earlier (a timer the model counts that its actor has not handed to the scheduler yet);
   * Long.MAX_VALUE: none.
   */
  private long nextDue() {
    long due = scheduler.nextDue();
    long next = due == Long.MAX_VALUE ? due : clock.nowNanos() + (due - scheduler.now());
    if (run != null && run.causality().frontier() != null) {
      Frontier.Level present = run.causality().present();
      if (present != Frontier.Level.TOP) next = Math.min(next, Math.max(present.stamp(), clock.nowNanos()));
    }
    return next;
  }

  /** Moves the clock and the scheduler to model time {@code time}, running the scheduler's tasks due until then. */
  private void moveTo(long time) {
    long by = time - clock.nowNanos();
    clock.advance(by);
    scheduler.advanceTo(scheduler.now() + by);
  }
}
