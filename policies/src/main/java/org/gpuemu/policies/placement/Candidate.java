package org.gpuemu.policies.placement;

/**
 * One GPU a VM may go to, with what is free on it and on its host for the whole of the VM's stay.
 *
 * @param host the host's index (the order hosts are declared in)
 * @param gpu the GPU's index on its host
 * @param freeCpuMilli CPU of the host not reserved, thousandths of a core
 * @param freeGpuMilli share of this GPU not reserved, thousandths
 * @param freeMemoryBytes memory of this GPU not reserved
 * @param hostVms VMs on the host when the VM arrives (every GPU of the host)
 * @param gpuVms VMs on this GPU when the VM arrives
 */
public record Candidate(int host, String hostName, int gpu, long freeCpuMilli, long freeGpuMilli,
    long freeMemoryBytes, int hostVms, int gpuVms) {

  /** Whether the VM's request fits in what is free here. */
  public boolean fits(VmRequest vm) {
    return vm.cpuMilli() <= freeCpuMilli && vm.gpuMilli() <= freeGpuMilli && vm.memoryBytes() <= freeMemoryBytes;
  }
}
