package org.gpuemu.emulator.faults;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * Injects faults into a running emulation (a stalled vGPU, a slow core, a lost SM group). Wired into every run;
 * no fault kinds exist yet, so it only answers what it has injected: nothing.
 */
public final class FaultInjector {

  public sealed interface Command {}

  /** Asks how many faults were injected so far. */
  public record CountInjected(ActorRef<Integer> replyTo) implements Command {}

  private FaultInjector() {}

  public static Behavior<Command> create() {
    return Behaviors.receive(Command.class)
        .onMessage(CountInjected.class, m -> {
          m.replyTo().tell(0);
          return Behaviors.same();
        })
        .build();
  }
}
