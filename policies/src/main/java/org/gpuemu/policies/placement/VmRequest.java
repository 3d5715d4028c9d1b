package org.gpuemu.policies.placement;

/**
 * What a VM asks of a host: CPU in thousandths of a core (the Alibaba trace's {@code cpu_milli}), a share of one GPU
 * in thousandths ({@code gpu_milli}: 1000 is a whole GPU) and GPU memory.
 */
public record VmRequest(String vm, long cpuMilli, long gpuMilli, long memoryBytes) {
  public VmRequest {
    if (cpuMilli < 0 || gpuMilli < 0 || gpuMilli > 1000 || memoryBytes < 0) {
      throw new IllegalArgumentException("vm '" + vm + "': expected cpu >= 0, gpu share in [0, 1000] milli and "
          + "memory >= 0, got " + cpuMilli + ", " + gpuMilli + ", " + memoryBytes);
    }
  }
}
