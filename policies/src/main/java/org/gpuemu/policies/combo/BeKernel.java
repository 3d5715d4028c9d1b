package org.gpuemu.policies.combo;

import org.gpuemu.workloads.KernelType;

/**
 * A best-effort kernel as the space-sharing policy sees it.
 *
 * @param id        unique per run, &gt;= 0 (the emulator's request id)
 * @param vgpu      the BE VM's vGPU
 * @param type      CD (the BE CUDA stream) or TC (the Tensor stream); BE applications have no RT kernels (§6.2)
 * @param soloNanos its duration alone on the whole GPU (&gt; 0), from offline profiling
 */
public record BeKernel(long id, int vgpu, KernelType type, long soloNanos) {
  public BeKernel {
    if (id < 0) throw new IllegalArgumentException("BE kernel ids are >= 0, got " + id);
    if (type == KernelType.RT) {
      throw new IllegalArgumentException("BE kernel " + id + ": BE kernels are CD or TC, not RT");
    }
    if (soloNanos <= 0) throw new IllegalArgumentException("BE kernel " + id + ": duration must be > 0");
  }
}
