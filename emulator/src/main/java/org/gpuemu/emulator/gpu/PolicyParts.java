package org.gpuemu.emulator.gpu;

import org.gpuemu.policies.fairgv.CpuCentricCoscheduling;
import org.gpuemu.policies.fairgv.GpuCentricCoscheduling;
import org.gpuemu.policies.fairgv.SlicesKernels;
import org.gpuemu.policies.gpu.GpuPolicy;
import org.gpuemu.policies.vgris.PresentGate;
import org.gpuemu.policies.vmcg.VmcgInputs;

/**
 * Which parts of the emulator a time-sharing GPU policy switches on: the one place that decides it. Each field is the
 * policy seen through the interface its part drives, or null when the policy does not need the part. The
 * {@link GpuScheduler} builds its parts from it ({@link VgrisController}, {@link VmcgMeter}, {@link CoscheduleRouter},
 * {@link CpuCentricHook}); the host wires the rest from it (the vCPUs' CPU-time reports and coscheduling join, the
 * memory shares, kernel slicing). Today the need is read from the interfaces the policy implements; a declaration of
 * its inputs will replace that here and nowhere else.
 */
public record PolicyParts(PresentGate presentGate, VmcgInputs vmcg, GpuCentricCoscheduling gpuCoscheduling,
    CpuCentricCoscheduling cpuCoscheduling, SlicesKernels slicing) {

  /** No part: what a space-sharing scheduler's wiring gets. */
  public static final PolicyParts NONE = new PolicyParts(null, null, null, null, null);

  public static PolicyParts of(GpuPolicy policy) {
    return new PolicyParts(
        policy instanceof PresentGate g ? g : null,
        policy instanceof VmcgInputs v ? v : null,
        policy instanceof GpuCentricCoscheduling c ? c : null,
        policy instanceof CpuCentricCoscheduling c ? c : null,
        policy instanceof SlicesKernels s ? s : null);
  }

  /** VMCG's CPU time: the vCPUs report each slice they ran ({@link VmcgMeter.CpuTime}). */
  public boolean cpuTime() {
    return vmcg != null;
  }

  /** VMCG's bus and memory: the host tells each VM's memory share ({@link VmcgMeter.MemoryShare}). */
  public boolean busAndMemory() {
    return vmcg != null;
  }

  /** FairGV's GPU-centric coscheduling: the vCPUs join the scheduler ({@link CoscheduleRouter.VcpuJoin}). */
  public boolean gpuCoscheduled() {
    return gpuCoscheduling != null;
  }

  /** Pegasus's CPU-centric coscheduling: the cores report their switches to the scheduler. */
  public boolean cpuCoscheduled() {
    return cpuCoscheduling != null;
  }

  /** Whether a part works on emulated seconds (VGRIS's reports, VMCG's bus measurement). */
  boolean perSecond() {
    return presentGate != null || vmcg != null;
  }
}
