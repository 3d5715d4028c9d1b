package org.gpuemu.policies.gpu;

/**
 * A GPU policy that needs each VM's bus occupancy and graphics memory share
 * ({@link org.gpuemu.policies.spi.PolicyInput#BUS_AND_MEMORY}), measured by the emulator every emulated second
 * (VMCG's BW_i and MSIZE_i, vmcg.txt §4.1).
 */
public interface BusInput extends GpuPolicy {
  /**
   * The VM's bus occupancy as a share of the bus and its graphics memory as a share of the GPU's, both in [0, 1].
   */
  void resourcesMeasured(int vgpu, double bwShare, double memoryShare);
}
