package org.gpuemu.policies.fairgv;

import java.util.List;
import org.gpuemu.policies.gpu.GpuPolicy;
import org.gpuemu.policies.gpu.GpuWork;

/**
 * The coscheduling side of {@code fairgv} (fairgv.txt §3.2.3, Algorithms 3–4), called by the GpuScheduler actor
 * besides {@link GpuPolicy}. The GPU policy decides, on each vGPU switch, whether the next vGPU's vCPU must run too;
 * the requests it raised are taken after each {@link GpuPolicy#next} and handed to the CPU scheduler of the
 * vCPU's core, which applies {@link CpuCoscheduling#algorithm4}.
 */
public interface GpuCentricCoscheduling extends GpuPolicy {
  /** {@link GpuPolicy#queued} with the frontend's tag: the request came from vCPU {@code vcpu} of its VM. */
  void queued(GpuWork work, int vcpu, long now);

  /** The coscheduling requests raised since the last call, oldest first; the list is then emptied. */
  List<CoscheduleRequest> takeCoscheduleRequests();

  /** Whether the vGPU is CPU-GPU interactive now (more than 10 synchronous calls per 10 ms). */
  boolean interactive(int vgpu, long now);
}
