package org.gpuemu.emulator.gpu;

import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.gpuemu.policies.gpu.GpuPolicy;
import org.gpuemu.policies.gpu.LiveChange;
import org.gpuemu.policies.gpu.GpuWork;
import org.gpuemu.policies.gpu.VgpuParams;
import org.gpuemu.policies.vgris.AlgorithmSwitch;
import org.gpuemu.policies.vgris.PresentMode;
import org.gpuemu.workloads.KernelSpec;

/**
 * The protocol every GPU scheduler speaks, time-sharing ({@link GpuScheduler}) or space-sharing
 * ({@link SpaceScheduler}): what the vGPUs, the guest agents and the run's guardian tell "the GPU scheduler", and what
 * it answers them. Each scheduler's own messages extend it in its own protocol; a {@link Command} is a command of
 * both, so the senders hold an {@code ActorRef<Scheduling.Command>} and do not know which one they talk to.
 */
public final class Scheduling {

  private Scheduling() {}

  /** A message every GPU scheduler accepts. */
  public sealed interface Command extends GpuScheduler.Command, SpaceScheduler.Command
      permits Join, Queued, Completed, Presented, Leave, Begin, End, Report, AgentJoin, MayPresent, Change {}

  /** A vGPU joins; must precede its first {@link Queued}. */
  public record Join(VgpuParams params, ActorRef<Dispatch> vgpu) implements Command {}

  /**
   * A request reached the driver at emulated time {@code atNanos}; {@code vcpu} is the vCPU the frontend tagged it
   * with (-1: none); {@code kernel} is what it runs and {@code frame} the frame the guest was recording (Presents
   * before it), which space sharing needs.
   */
  public record Queued(GpuWork work, int vcpu, long atNanos, KernelSpec kernel, long frame) implements Command {
    public Queued(GpuWork work, int vcpu, long atNanos) {
      this(work, vcpu, atNanos, null, 0);
    }
  }

  /** A request completed at emulated time {@code finishedNanos}, having used {@code gpuNanos} of GPU time. */
  public record Completed(GpuWork work, long gpuNanos, long finishedNanos) implements Command {}

  /**
   * A guest presented frame {@code frame} (0-based), which holds {@code kernels} requests. Only a scheduler that
   * needs to know when a frame has rendered hears it (the vGPU's {@code reportFrames}: space sharing).
   */
  public record Presented(int vgpu, long frame, int kernels) implements Command {}

  /** A vGPU leaves (its VM stopped and its work drained); nothing of it is queued any more. */
  public record Leave(int vgpu) implements Command {}

  /** Emulated time zero has come (the guardian sends it): per-second work may begin. */
  public enum Begin implements Command { INSTANCE }

  /** The run ended at emulated time {@code atNanos}: the guests stop and the GPU drains what they queued. */
  public record End(long atNanos) implements Command {}

  public record Report(ActorRef<SchedulerReport> replyTo) implements Command {}

  /**
   * VM {@code vgpu}'s weight ({@code weight} &gt; 0) or else its share ({@code share}) changes now (the dashboard's
   * control, stamped by the guardian's event); the policy's answer goes to {@code replyTo}, with {@code tag}.
   */
  public record Change(int vgpu, int weight, double share, int tag, ActorRef<Changed> replyTo) implements Command {
    /** Asks {@code policy}, at model time {@code now}, and answers. */
    void applyTo(GpuPolicy policy, long now) {
      LiveChange c = weight > 0 ? policy.setWeight(vgpu, weight, now) : policy.setShare(vgpu, share, now);
      replyTo.tell(new Changed(tag, c));
    }

    /** Answers that the scheduler has no such thing to change, and why. */
    <T> Behavior<T> refuse(String reason) {
      replyTo.tell(new Changed(tag, new LiveChange.Refused(reason)));
      return Behaviors.same();
    }
  }

  /** The answer to the {@link Change} tagged {@code tag}. */
  public record Changed(int tag, LiveChange outcome) {}

  /** A VM's guest agent joins; it gets its {@link SetMode} once its vGPU has joined too. */
  public record AgentJoin(int vgpu, ActorRef<ToAgent> agent) implements Command {}

  /** An agent asks whether its VM may Present now; the answer is {@link PresentAllowed}, maybe later. */
  public record MayPresent(int vgpu, ActorRef<ToAgent> replyTo) implements Command {}

  /**
   * To a vGPU: hand this request to the GPU, as decided at emulated time {@code atNanos}; space sharing names the SM
   * group and how the kernel is bound ({@code group} null: the vGPU's own group).
   */
  public record Dispatch(GpuWork work, long atNanos, ActorRef<SmGroup.Command> group, SmGroup.Bind bind) {
    public Dispatch(GpuWork work, long atNanos) {
      this(work, atNanos, null, null);
    }
  }

  /** What a scheduler tells a guest agent. */
  public sealed interface ToAgent {}

  /** The mode the agent applies to Present from now on. */
  public record SetMode(PresentMode mode) implements ToAgent {}

  /** The Present the agent asked about may go. */
  public enum PresentAllowed implements ToAgent { INSTANCE }

  /**
   * VGRIS's controller asks for the frames of the second that began at {@code secondStart}; the answer goes to
   * {@code replyTo}.
   */
  public record Collect(long seq, long secondStart, ActorRef<VgrisController.AgentReport> replyTo)
      implements ToAgent {}

  /**
   * Final figures: the policy's name and invariant violations, dispatches made; for a VGRIS policy also its
   * algorithm switches and each VM's final share (by vGPU; empty otherwise); each paper's own figures by name.
   */
  public record SchedulerReport(String policy, long dispatched, List<String> violations,
      List<AlgorithmSwitch> switches, Map<Integer, Double> shares, Map<String, Object> figures) {}
}
