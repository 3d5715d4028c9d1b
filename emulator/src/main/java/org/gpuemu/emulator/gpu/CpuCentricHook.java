package org.gpuemu.emulator.gpu;

import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.gpuemu.emulator.cpu.CpuScheduler;
import org.gpuemu.policies.fairgv.CoscheduleOutcome;
import org.gpuemu.policies.fairgv.CpuCentricCoscheduling;

/**
 * Pegasus's strict coscheduling, GPU side (fairgv.txt Algorithms 1-2), a part of the time-sharing core switched on
 * by a {@link CpuCentricCoscheduling} policy: every core tells the scheduler which VM's vCPU it switched to (the
 * core's own event, {@link CpuScheduler.SwitchedTo}, adapted by the scheduler), and the policy may switch the GPU to
 * that VM's vGPU. A plain object the core owns, so a switch is decided in the handling of the core's message.
 */
final class CpuCentricHook {

  /** A core's {@link CpuScheduler.SwitchedTo}, as the scheduler receives it. */
  record CpuPicked(CpuScheduler.SwitchedTo picked) implements GpuScheduler.Command {}

  private final CpuCentricCoscheduling policy;
  private long requests;
  private long switches;

  /** Asks every core of {@code cores} to tell {@code picks} of its switches; {@code vgpuOfVcpu} maps vCPU to vGPU. */
  CpuCentricHook(CpuCentricCoscheduling policy, List<ActorRef<CpuScheduler.Command>> cores,
      Map<Integer, Integer> vgpuOfVcpu, ActorRef<CpuScheduler.SwitchedTo> picks) {
    this.policy = policy;
    for (ActorRef<CpuScheduler.Command> core : cores) core.tell(new CpuScheduler.CoscheduleGpu(picks, vgpuOfVcpu));
  }

  /** A core switched to a vCPU of {@code vgpu}'s VM at {@code now}; true when the GPU switched to that vGPU. */
  boolean picked(int vgpu, long now) {
    requests++;
    if (!(policy.coschedule(vgpu, now) instanceof CoscheduleOutcome.Switched)) return false;
    switches++;
    return true;
  }

  void figures(Map<String, Object> into) {
    // the CPU scheduler's requests, and how many passed Algorithm 2's fairness check and switched
    into.put("coschedule_requests", requests);
    into.put("coschedule_switches", switches);
  }
}
