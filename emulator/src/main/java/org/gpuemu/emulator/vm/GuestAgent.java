package org.gpuemu.emulator.vm;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * Where a policy intercepts the guest's graphics calls before they reach the vGPU (VGRIS's per-VM agent hooks
 * {@code Present}). The baseline policies do not intercept: the agent passes every call straight through.
 */
public final class GuestAgent extends AbstractBehavior<GuestAgent.Command> {

  public sealed interface Command {}

  /** The guest calls Present; the answer goes to {@code replyTo} as {@link VCpu.PresentReturned}. */
  public record Present(ActorRef<VCpu.Command> replyTo) implements Command {}

  private final ActorRef<VGpu.Command> vgpu;

  public static Behavior<Command> create(ActorRef<VGpu.Command> vgpu) {
    return Behaviors.setup(ctx -> new GuestAgent(ctx, vgpu));
  }

  private GuestAgent(ActorContext<Command> ctx, ActorRef<VGpu.Command> vgpu) {
    super(ctx);
    this.vgpu = vgpu;
  }

  @Override public Receive<Command> createReceive() {
    return newReceiveBuilder().onMessage(Present.class, this::onPresent).build();
  }

  private Behavior<Command> onPresent(Present msg) {
    vgpu.tell(new VGpu.Present(msg.replyTo()));
    return this;
  }
}
