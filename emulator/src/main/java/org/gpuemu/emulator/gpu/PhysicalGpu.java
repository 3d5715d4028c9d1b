package org.gpuemu.emulator.gpu;

import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.host.CpuScheduler;
import org.gpuemu.emulator.run.RunContext;
import org.gpuemu.policies.memory.MemoryPolicy;

/**
 * The physical GPU: owns its SM groups and its memory. Not space-shared yet, so one group spans every SM; the
 * list of groups is what a space-sharing policy (COMBO) resizes. It announces its units once, then has nothing to
 * decide: requests go to the units directly.
 */
public final class PhysicalGpu {

  public sealed interface Command {}

  /** Asks for the units again (a late joiner, a dashboard). */
  public record Units(ActorRef<Ready> replyTo) implements Command {}

  /** Sent once to the host when the units exist. */
  public record Ready(List<ActorRef<SmGroup.Command>> smGroups, ActorRef<GpuMemory.Command> memory) {}

  private PhysicalGpu() {}

  /**
   * {@code copyCores} run the GTT copies of a slot memory policy, in turn (Dom0's vCPUs, one on each host core: see
   * {@link SmGroup}).
   */
  public static Behavior<Command> create(Settings.Gpu gpu, MemoryPolicy memoryPolicy,
      List<ActorRef<CpuScheduler.Command>> copyCores, RunContext run, ActorRef<Ready> replyTo) {
    return Behaviors.setup(ctx -> {
      ActorRef<GpuMemory.Command> memory = ctx.spawn(GpuMemory.create(memoryPolicy, run), "memory");
      SmGroup.GttCopies copies = GpuMemory.copiesGtt(memoryPolicy)
          ? new SmGroup.GttCopies(memory, copyCores) : SmGroup.GttCopies.NONE;
      ActorRef<SmGroup.Command> whole = ctx.spawn(SmGroup.create(gpu.sms(), gpu.sms(), gpu.maxConcurrentKernels(),
          gpu.contextSwitchNanos(), FluidModel.sharedEqually(), copies, run), "sm-group-0");
      Ready ready = new Ready(List.of(whole), memory);
      replyTo.tell(ready);
      return Behaviors.receive(Command.class)
          .onMessage(Units.class, m -> {
            m.replyTo().tell(ready);
            return Behaviors.same();
          })
          .build();
    });
  }
}
