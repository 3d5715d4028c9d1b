package org.gpuemu.emulator.gpu;

import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.cpu.CpuScheduler;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.policies.combo.ColocationTable;
import org.gpuemu.policies.memory.MemoryPolicy;

/**
 * The physical GPU: owns its SM groups and its memory. Time-shared, one group spans every SM. Space-shared (a
 * COMBO or PilotFish policy, combo.txt §5.1), two groups run side by side: the render group, which starts with every
 * SM, and the BE group, which starts with none; they execute with COMBO's co-location table and switch no contexts
 * (COMBO runs every application's kernels concurrently on one GPU, §6.1). A {@link Layout} resizes both at a frame
 * boundary; SMs pass from one to the other as the kernels holding them finish ({@link SmGroup.Grant}). It announces
 * its units once; requests go to the units directly.
 */
public final class PhysicalGpu {

  public sealed interface Command {}

  /** Asks for the units again (a late joiner, a dashboard). */
  public record Units(ActorRef<Ready> replyTo) implements Command {}

  /**
   * Space sharing: from layout {@code epoch} on, the render group is to own {@code renderSms} and the BE group
   * {@code beSms} (their sum is the GPU's SMs), decided at emulated time {@code atNanos}. {@code suspendBe}: the BE
   * group's running kernels are suspended then, until {@link ResumeBe} (COMBO's exact layout change, §5.2), so the
   * SMs they held go to the render group at once; without it they keep them to their end (Figure 11b).
   */
  public record Layout(long epoch, int renderSms, int beSms, long atNanos, boolean suspendBe) implements Command {
    public Layout(long epoch, int renderSms, int beSms, long atNanos) {
      this(epoch, renderSms, beSms, atNanos, false);
    }
  }

  /** Space sharing: the BE group's kernels suspended by layout {@code epoch} resume at emulated time {@code atNanos}. */
  public record ResumeBe(long epoch, long atNanos) implements Command {}

  /**
   * Sent once to the host when the units exist: the SM groups (time-shared: one; space-shared: the render group,
   * then the BE group).
   */
  public record Ready(List<ActorRef<SmGroup.Command>> smGroups, ActorRef<GpuMemory.Command> memory,
      ActorRef<Command> gpu) {}

  /** Kernels a space-shared group runs side by side at most; the space policy decides how many actually do. */
  static final int SPACE_SHARED_CONCURRENCY = 16;

  private PhysicalGpu() {}

  /**
   * The GPU memory's policy, whether it copies through the GTT (a slot memory policy), and {@code copyCores}, which
   * run those copies in turn (Dom0's vCPUs, one on each host core: see {@link SmGroup}).
   */
  public record Memory(MemoryPolicy policy, boolean copiesGtt, List<ActorRef<CpuScheduler.Command>> copyCores) {}

  /**
   * GPU {@code gpu}, its SMs time-shared as one group or {@code spaceShared} as two; {@code replyTo} hears its units.
   */
  public static Behavior<Command> create(Settings.Gpu gpu, boolean spaceShared, Memory memorySpec, RunContext run,
      ActorRef<Ready> replyTo) {
    boolean copiesGtt = memorySpec.copiesGtt();
    return Behaviors.setup(ctx -> {
      ActorRef<GpuMemory.Command> memory = ctx.spawn(GpuMemory.create(memorySpec.policy(), copiesGtt, run), "memory");
      if (spaceShared) {
        FluidModel model = FluidModel.of(ColocationTable.combo());
        ActorRef<SmGroup.Command> render = ctx.spawn(SmGroup.create(new SmGroup.Spec(gpu.sms(), gpu.sms(),
            SPACE_SHARED_CONCURRENCY, 0, model), run), "sm-group-render");
        ActorRef<SmGroup.Command> be = ctx.spawn(SmGroup.create(new SmGroup.Spec(0, gpu.sms(),
            SPACE_SHARED_CONCURRENCY, 0, model), run), "sm-group-be");
        render.tell(new SmGroup.Sibling(be));
        be.tell(new SmGroup.Sibling(render));
        Ready ready = new Ready(List.of(render, be), memory, ctx.getSelf());
        replyTo.tell(ready);
        return run.causal(Behaviors.receive(Command.class)
            .onMessage(Units.class, m -> {
              m.replyTo().tell(ready);
              return Behaviors.same();
            })
            .onMessage(Layout.class, m -> {
              render.tell(new SmGroup.Resize(m.epoch(), m.renderSms(), m.atNanos()));
              be.tell(new SmGroup.Resize(m.epoch(), m.beSms(), m.atNanos(), m.suspendBe()));
              return Behaviors.same();
            })
            .onMessage(ResumeBe.class, m -> {
              be.tell(new SmGroup.Resume(m.epoch(), m.atNanos()));
              return Behaviors.same();
            })
            .build());
      }
      SmGroup.GttCopies copies = copiesGtt
          ? new SmGroup.GttCopies(memory, memorySpec.copyCores()) : SmGroup.GttCopies.NONE;
      ActorRef<SmGroup.Command> whole = ctx.spawn(SmGroup.create(new SmGroup.Spec(gpu.sms(), gpu.totalSms(),
          gpu.maxConcurrentKernels(), gpu.contextSwitchNanos(), FluidModel.sharedEqually()), copies, run),
          "sm-group-0");
      Ready ready = new Ready(List.of(whole), memory, ctx.getSelf());
      replyTo.tell(ready);
      return run.causal(Behaviors.receive(Command.class)
          .onMessage(Units.class, m -> {
            m.replyTo().tell(ready);
            return Behaviors.same();
          })
          .onMessage(Layout.class, m -> Behaviors.same())
          .onMessage(ResumeBe.class, m -> Behaviors.same())
          .build());
    });
  }
}
