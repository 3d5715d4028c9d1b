package org.gpuemu.policies.fairgv;

import org.gpuemu.policies.gpu.GpuPolicy;

/**
 * The GPU side of Pegasus's strict coscheduling (fairgv.txt Algorithms 1–2, §3.2.3, §5.3), called by the
 * GpuScheduler actor besides {@link GpuPolicy}. Algorithm 1 is the CPU scheduler's: when it picks the next vCPU to
 * run and that vCPU's VM has a vGPU, it sends the vGPU to the GPU scheduler, which calls {@link #coschedule}; after
 * a {@link CoscheduleOutcome.Switched} the scheduler asks {@link GpuPolicy#next} again so the target dispatches.
 */
public interface CpuCentricCoscheduling extends GpuPolicy {
  /** Algorithm 2: switch to {@code targetVgpu} if its credit is at least the maximum of the other contenders'. */
  CoscheduleOutcome coschedule(int targetVgpu, long now);
}
