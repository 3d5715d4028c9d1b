package org.gpuemu.emulator.gpu;

import java.util.Set;
import org.gpuemu.policies.fairgv.CpuCentricCoscheduling;
import org.gpuemu.policies.fairgv.GpuCentricCoscheduling;
import org.gpuemu.policies.fairgv.SlicesKernels;
import org.gpuemu.policies.gpu.BusInput;
import org.gpuemu.policies.gpu.CpuTimeInput;
import org.gpuemu.policies.gpu.GpuPolicy;
import org.gpuemu.policies.spi.PolicyInput;
import org.gpuemu.policies.vgris.PresentGate;

/**
 * Which parts of the emulator a time-sharing GPU policy switches on: the one place that decides it, from the inputs
 * the policy declared in its spec ({@link PolicyInput}; the spec checked, when it built the policy, that the policy
 * implements each declared input's interface). Each field is the policy seen through the interface its part drives,
 * or null when the policy did not declare it. The {@link GpuScheduler} builds its parts from it ({@link
 * VgrisController}, {@link VmcgMeter}, {@link CoscheduleRouter}, {@link CpuCentricHook}); the host wires the rest from
 * it (the vCPUs' CPU-time reports and coscheduling join, the memory shares, kernel slicing).
 */
public record PolicyParts(PresentGate presentGate, CpuTimeInput cpuTimeInput, BusInput busInput,
    GpuCentricCoscheduling gpuCoscheduling, CpuCentricCoscheduling cpuCoscheduling, SlicesKernels slicing) {

  /** No part: what a space-sharing scheduler's wiring gets. */
  public static final PolicyParts NONE = new PolicyParts(null, null, null, null, null, null);

  /** The parts of {@code policy} for the inputs it declared. */
  public static PolicyParts of(GpuPolicy policy, Set<PolicyInput> inputs) {
    return new PolicyParts(
        inputs.contains(PolicyInput.PRESENT) ? (PresentGate) policy : null,
        inputs.contains(PolicyInput.CPU_TIME) ? (CpuTimeInput) policy : null,
        inputs.contains(PolicyInput.BUS_AND_MEMORY) ? (BusInput) policy : null,
        inputs.contains(PolicyInput.GPU_COSCHEDULING) ? (GpuCentricCoscheduling) policy : null,
        inputs.contains(PolicyInput.CPU_COSCHEDULING) ? (CpuCentricCoscheduling) policy : null,
        inputs.contains(PolicyInput.KERNEL_SLICING) ? (SlicesKernels) policy : null);
  }

  /** CPU time (VMCG's, or a plugin's): the vCPUs report each slice they ran ({@link VmcgMeter.CpuTime}). */
  public boolean cpuTime() {
    return cpuTimeInput != null;
  }

  /** Bus and memory shares (VMCG's): the host tells each VM's memory share ({@link VmcgMeter.MemoryShare}). */
  public boolean busAndMemory() {
    return busInput != null;
  }

  /** FairGV's GPU-centric coscheduling: the vCPUs join the scheduler ({@link CoscheduleRouter.VcpuJoin}). */
  public boolean gpuCoscheduled() {
    return gpuCoscheduling != null;
  }

  /** Pegasus's CPU-centric coscheduling: the cores report their switches to the scheduler. */
  public boolean cpuCoscheduled() {
    return cpuCoscheduling != null;
  }

  /** Whether a part meters CPU time or bus and memory shares. */
  boolean meters() {
    return cpuTimeInput != null || busInput != null;
  }

  /** Whether a part works on emulated seconds (VGRIS's reports, VMCG's bus measurement). */
  boolean perSecond() {
    return presentGate != null || busInput != null;
  }
}
