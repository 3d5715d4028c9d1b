package org.gpuemu.emulator.vm;

/**
 * Which CPU figures a vCPU reports after every CPU slice: its CPU time to the GPU scheduler (VMCG's slices), its
 * steal time to the GPU memory (gBalloon's W); only for the policies that use them (two messages per burst).
 */
public record VcpuReports(boolean cpuTime, boolean steal) {
  public static final VcpuReports NONE = new VcpuReports(false, false);
}
