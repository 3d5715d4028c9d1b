package org.gpuemu.emulator.gpu;

import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.gpuemu.emulator.faults.FaultInjector;
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
      permits Join, Queued, Completed, Presented, Leave, Begin, End, Report, AgentJoin, MayPresent, Resynced, Crash,
      Change {}

  /** Fault {@code fault} (gpu-scheduler-crash) at {@code atNanos}: see {@link SchedulerRecovery}. */
  public record Crash(int fault, long atNanos, ActorRef<FaultInjector.Outcome> outcomes) implements Command {}

  /** A vGPU joins; must precede its first {@link Queued}. {@code vgpu}: where it hears what the scheduler tells it. */
  public record Join(VgpuParams params, VgpuEnd vgpu) implements Command {}

  /** What a scheduler tells a vGPU. */
  public sealed interface ToVgpu permits Dispatch, Resync {}

  /**
   * Where a vGPU hears what its scheduler tells it: the vGPU wraps each message into its own protocol and tells itself
   * (why not a message adapter: {@link org.gpuemu.emulator.cpu.CpuScheduler.DoneTo}). Called on the scheduler's
   * actor as it sends.
   */
  public interface VgpuEnd {
    void tell(ToVgpu message);
  }

  /**
   * A restarted scheduler (gpu-scheduler-crash), incarnation {@code epoch}, asks the vGPU for what it has handed to
   * the driver: the answer is {@link Resynced}. A dispatch of an older incarnation that reaches the vGPU afterwards is
   * stale (the new one dispatches the request again) and dropped.
   */
  public record Resync(long epoch) implements ToVgpu {}

  /**
   * A vGPU's answer to {@link Resync}: the requests it handed to the driver that no dispatch has reached yet
   * ({@code queued}, in the order they were handed) and those running on the GPU ({@code running}).
   */
  public record Resynced(int vgpu, List<Queued> queued, List<GpuWork> running) implements Command {
    public Resynced {
      queued = List.copyOf(queued);
      running = List.copyOf(running);
    }
  }

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

  /**
   * A request completed at emulated time {@code finishedNanos}, having used {@code gpuNanos} of GPU time; it was
   * dispatched by the scheduler's incarnation {@code epoch} (0 until a gpu-scheduler-crash).
   */
  public record Completed(GpuWork work, long gpuNanos, long finishedNanos, long epoch) implements Command {
    public Completed(GpuWork work, long gpuNanos, long finishedNanos) {
      this(work, gpuNanos, finishedNanos, 0);
    }
  }

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
  public record Dispatch(GpuWork work, long atNanos, ActorRef<SmGroup.Command> group, SmGroup.Bind bind, long epoch)
      implements ToVgpu {
    public Dispatch(GpuWork work, long atNanos, ActorRef<SmGroup.Command> group, SmGroup.Bind bind) {
      this(work, atNanos, group, bind, 0);
    }

    public Dispatch(GpuWork work, long atNanos) {
      this(work, atNanos, null, null, 0);
    }
  }

  /** What a scheduler tells a guest agent. */
  public sealed interface ToAgent {}

  /** The mode the agent applies to Present from now on. */
  public record SetMode(PresentMode mode) implements ToAgent {}

  /** The Present the agent asked about may go. */
  public enum PresentAllowed implements ToAgent { INSTANCE }

  /**
   * The scheduler was restarted (gpu-scheduler-crash) and lost the questions it had: an agent that waits for
   * {@link PresentAllowed} asks again ({@link MayPresent}).
   */
  public enum Restarted implements ToAgent { INSTANCE }

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
