package org.gpuemu.policies.combo;

import java.util.Objects;
import org.gpuemu.workloads.KernelType;
import org.gpuemu.workloads.MemoryClass;

/**
 * A best-effort kernel as the space-sharing policy sees it.
 *
 * @param id        unique per run, &gt;= 0 (the emulator's request id)
 * @param vgpu      the BE VM's vGPU
 * @param type      CD (the BE CUDA stream) or TC (the Tensor stream); BE applications have no RT kernels (§6.2)
 * @param soloNanos its duration alone on the whole GPU (&gt; 0), from offline profiling
 * @param memory    its memory intensity, which sets its co-location gain ({@link ColocationTable})
 */
public record BeKernel(long id, int vgpu, KernelType type, long soloNanos, MemoryClass memory) {
  public BeKernel {
    Objects.requireNonNull(memory, "memory");
    if (id < 0) throw new IllegalArgumentException("BE kernel ids are >= 0, got " + id);
    if (type == KernelType.RT) {
      throw new IllegalArgumentException("BE kernel " + id + ": BE kernels are CD or TC, not RT");
    }
    if (soloNanos <= 0) throw new IllegalArgumentException("BE kernel " + id + ": duration must be > 0");
  }

  /** A BE kernel whose memory intensity is not classified. */
  public BeKernel(long id, int vgpu, KernelType type, long soloNanos) {
    this(id, vgpu, type, soloNanos, MemoryClass.UNCLASSIFIED);
  }
}
