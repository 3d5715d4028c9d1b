package org.gpuemu.emulator.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The failure an actor throws when a crash fault strikes it, and the supervision that restarts it. Every
 * crashable actor wraps its behavior as {@code run.causal(Crashed.restarting(...))}: the causal inbox outside the
 * supervisor, so that what it holds, and its senders' order, survive the restart (docs/concepts/time-and-order.md);
 * children are kept across the restart ({@code withStopChildren(false)}: a VM's units outlive its own actor's crash).
 * Pekko's restart cancels the actor's timers, so an actor with timers disarms them through the run's order on {@code
 * PreRestart} ({@code RunContext.disarmAll}) and its next incarnation arms again what it still needs.
 */
public final class Crashed extends RuntimeException {

  public Crashed(String actor, int fault) {
    super(actor + " crashed (fault " + fault + ")", null, false, false);
  }

  /**
   * A crash fault strikes {@code actor} at {@code atNanos}: the fault's injector hears it healed then (supervision
   * restarts at once), and the actor fails. Never returns.
   */
  public static <T> T strike(String actor, int fault, long atNanos, ActorRef<FaultInjector.Outcome> outcomes) {
    outcomes.tell(new FaultInjector.Healed(fault, atNanos));
    throw new Crashed(actor, fault);
  }

  /**
   * An actor whose one instance, and so all its state, its parent keeps across a crash: supervision restarts it with
   * that same instance after {@code restarted} (which arms again the timers the restart cancelled). For an actor whose
   * state cannot be rebuilt yet; every such use says so next to it.
   */
  public static <T, A extends AbstractBehavior<T>> Behavior<T> restartingSame(Function<ActorContext<T>, A> make,
      UnaryOperator<A> restarted) {
    List<A> kept = new ArrayList<>(1);
    return restarting(Behaviors.setup(ctx -> {
      if (!kept.isEmpty()) return restarted.apply(kept.get(0));
      kept.add(make.apply(ctx));
      return kept.get(0);
    }));
  }

  /** {@code behavior} restarted by its supervisor when it throws {@link Crashed}, its children kept. */
  public static <T> Behavior<T> restarting(Behavior<T> behavior) {
    return Behaviors.supervise(behavior).onFailure(Crashed.class,
        SupervisorStrategy.restart().withLoggingEnabled(false).withStopChildren(false));
  }
}
