package org.gpuemu.policies.gpu;

/**
 * A GPU policy that needs each VM's CPU time ({@link org.gpuemu.policies.spi.PolicyInput#CPU_TIME}): the CPU
 * scheduler reports, at every CPU context switch, how long a vCPU of the VM held its core (VMCG's time slices
 * follow it, vmcg.txt §5.1).
 */
public interface CpuTimeInput extends GpuPolicy {
  /** A vCPU of the VM with vGPU {@code vgpu} held a physical core for {@code cpuNanos} (&gt;= 0), spinning included. */
  void cpuTimeUsed(int vgpu, long cpuNanos);
}
