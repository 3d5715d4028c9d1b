package org.gpuemu.emulator.gpu;

import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.gpuemu.emulator.run.RunContext;
import org.gpuemu.policies.memory.MemoryDecision;
import org.gpuemu.policies.memory.MemoryPolicy;

/** The GPU's memory, handed out to VMs by a {@link MemoryPolicy}; a refusal carries its reason to the guest. */
public final class GpuMemory extends AbstractBehavior<GpuMemory.Command> {

  public sealed interface Command {}

  public record Join(int vm, String name, long capBytes) implements Command {}

  public record Allocate(int vm, long requestId, long bytes, ActorRef<Answer> replyTo) implements Command {}

  public record Free(int vm, long bytes) implements Command {}

  public record Report(ActorRef<MemoryReport> replyTo) implements Command {}

  /** The decision for one allocation, with the VM's holding afterwards. */
  public record Answer(long requestId, MemoryDecision decision, long heldBytes) {}

  public record MemoryReport(String policy, long grants, long rejections, List<String> violations) {}

  private final MemoryPolicy policy;
  private final RunContext run;
  private long grants;
  private long rejections;

  public static Behavior<Command> create(MemoryPolicy policy, RunContext run) {
    return Behaviors.setup(ctx -> new GpuMemory(ctx, policy, run));
  }

  private GpuMemory(ActorContext<Command> ctx, MemoryPolicy policy, RunContext run) {
    super(ctx);
    this.policy = policy;
    this.run = run;
  }

  @Override public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Join.class, this::onJoin)
        .onMessage(Allocate.class, this::onAllocate)
        .onMessage(Free.class, this::onFree)
        .onMessage(Report.class, this::onReport)
        .build();
  }

  private Behavior<Command> onJoin(Join msg) {
    policy.addVm(msg.vm(), msg.name(), msg.capBytes());
    return this;
  }

  private Behavior<Command> onAllocate(Allocate msg) {
    MemoryDecision d = policy.allocate(msg.vm(), msg.bytes(), run.now());
    if (d instanceof MemoryDecision.Granted) grants++; else rejections++;
    msg.replyTo().tell(new Answer(msg.requestId(), d, policy.allocated(msg.vm())));
    return this;
  }

  private Behavior<Command> onFree(Free msg) {
    policy.free(msg.vm(), msg.bytes(), run.now());
    return this;
  }

  private Behavior<Command> onReport(Report msg) {
    msg.replyTo().tell(new MemoryReport(policy.name(), grants, rejections, policy.checkInvariants()));
    return this;
  }
}
