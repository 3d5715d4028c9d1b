package org.gpuemu.emulator.gpu;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.gpuemu.policies.fairgv.CoscheduleRequest;
import org.gpuemu.policies.fairgv.GpuCentricCoscheduling;
import org.gpuemu.policies.gpu.GpuWork;

/**
 * FairGV's GPU-centric coscheduling (fairgv.txt Algorithms 3-4), a part of the time-sharing core switched on by a
 * {@link GpuCentricCoscheduling} policy: requests tagged with their vCPU go to the policy with it, and each
 * coscheduling request the policy makes goes to the vCPU it names (or its VM's main vCPU), which applies Algorithm 4
 * with its core. A plain object the core owns: the requests leave in the same handling as the decision that made
 * them, as they did before the part existed.
 */
public final class CoscheduleRouter {

  /**
   * A vCPU joins (when the policy coschedules): {@code vcpu} its global index, {@code vgpu} its VM's vGPU, and where
   * it hears {@link Coschedule}. A VM's main vCPU, the one running its program, is its lowest.
   */
  public record VcpuJoin(int vcpu, int vgpu, ActorRef<Coschedule> replyTo) implements GpuScheduler.Command {}

  /**
   * To a vCPU: the scheduler switched to its VM's vGPU at {@code atNanos} and needs it running (Algorithm 4).
   */
  public record Coschedule(long atNanos) {}

  private final GpuCentricCoscheduling policy;
  private final Map<Integer, ActorRef<Coschedule>> vcpus = new HashMap<>();
  private final Map<Integer, Integer> mainVcpu = new HashMap<>();
  private long coschedules;

  CoscheduleRouter(GpuCentricCoscheduling policy) {
    this.policy = policy;
  }

  Behavior<GpuScheduler.Command> onVcpuJoin(VcpuJoin msg) {
    vcpus.put(msg.vcpu(), msg.replyTo());
    mainVcpu.merge(msg.vgpu(), msg.vcpu(), Math::min);
    return Behaviors.same();
  }

  /** A request reached the driver; true when the policy took it with its vCPU (-1: untagged, the core queues it). */
  boolean queued(GpuWork work, int vcpu, long now) {
    if (vcpu < 0) return false;
    policy.queued(work, vcpu, now);
    return true;
  }

  /** After each decision: hands on the coscheduling requests it made. */
  void decided() {
    List<CoscheduleRequest> requests = policy.takeCoscheduleRequests();
    for (CoscheduleRequest r : requests) {
      Integer vcpu = r.vcpu().isPresent() ? Integer.valueOf(r.vcpu().getAsInt()) : mainVcpu.get(r.vgpu());
      ActorRef<Coschedule> target = vcpu == null ? null : vcpus.get(vcpu);
      if (target != null) {
        coschedules++;
        target.tell(new Coschedule(r.nanos()));
      }
    }
  }

  void figures(Map<String, Object> into) {
    into.put("coschedule_requests", coschedules);
  }
}
