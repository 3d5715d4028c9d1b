package org.gpuemu.policies.spi;

import org.gpuemu.policies.fairgv.CpuCentricCoscheduling;
import org.gpuemu.policies.fairgv.GpuCentricCoscheduling;
import org.gpuemu.policies.fairgv.GuestWaitRule;
import org.gpuemu.policies.fairgv.SlicesKernels;
import org.gpuemu.policies.gballoon.GttMemoryPolicy;
import org.gpuemu.policies.gpu.BusInput;
import org.gpuemu.policies.gpu.CpuTimeInput;
import org.gpuemu.policies.vgris.PresentGate;

/**
 * What a policy needs from the emulator beyond what every policy of its kind gets (a GPU policy: requests queued
 * and completed; a memory policy: allocations and frees; a CPU policy: vCPUs becoming runnable and blocking). A
 * policy declares these in its {@link PolicySpec}; the emulator wires an input only when it is declared, and reads
 * the declaration nowhere else. A declared input's policy implements the interface named here (checked whenever the
 * policy is built), and a policy implementing one of these interfaces declares its input (same check), so the
 * declaration and the code cannot drift apart.
 */
public enum PolicyInput {
  /** Each VM's CPU time, reported at every CPU context switch (VMCG §5.1): {@link CpuTimeInput}. */
  CPU_TIME(PolicyKind.GPU, CpuTimeInput.class, "each VM's CPU time, at every CPU context switch"),
  /** Each VM's bus occupancy and graphics memory share, every emulated second (VMCG §4.1): {@link BusInput}. */
  BUS_AND_MEMORY(PolicyKind.GPU, BusInput.class, "each VM's bus and graphics memory shares, every second"),
  /**
   * Present interception and frame reports (VGRIS §3.1): the guest agents ask before every Present and report their
   * frames every second; {@link PresentGate}.
   */
  PRESENT(PolicyKind.GPU, PresentGate.class, "Present interception and per-second frame reports"),
  /**
   * GPU-centric coscheduling (FairGV Algorithms 3-4): requests arrive tagged with their vCPU, and the policy may ask
   * the CPU side to run a VM's vCPU; {@link GpuCentricCoscheduling}.
   */
  GPU_COSCHEDULING(PolicyKind.GPU, GpuCentricCoscheduling.class, "vCPU-tagged requests, coscheduling requests"),
  /**
   * CPU-centric coscheduling (Pegasus, FairGV Algorithms 1-2): told whenever a core picks a vCPU of a VM;
   * {@link CpuCentricCoscheduling}.
   */
  CPU_COSCHEDULING(PolicyKind.GPU, CpuCentricCoscheduling.class, "told when a core picks a VM's vCPU"),
  /** Kernel slicing (FairGV §3.3.3): the vGPUs cut large kernels as the policy's rule says; {@link SlicesKernels}. */
  KERNEL_SLICING(PolicyKind.GPU, SlicesKernels.class, "large kernels sliced by its rule"),
  /** Sets how every guest waits for a synchronous call (poll or hybrid); {@link GuestWaitRule}. */
  GUEST_WAIT(PolicyKind.GPU, GuestWaitRule.class, "sets every guest's sync-wait"),
  /** Owns the GTT: graphics memory slots copied at every vGPU switch (gBalloon §2); {@link GttMemoryPolicy}. */
  GTT_COPIES(PolicyKind.MEMORY, GttMemoryPolicy.class, "GTT slots, copies at vGPU switches");

  private final PolicyKind<?> kind;
  private final Class<?> capability;
  private final String description;

  PolicyInput(PolicyKind<?> kind, Class<?> capability, String description) {
    this.kind = kind;
    this.capability = capability;
    this.description = description;
  }

  /** The kind of policy that may declare it. */
  public PolicyKind<?> kind() {
    return kind;
  }

  /** The interface a policy declaring it implements. */
  public Class<?> capability() {
    return capability;
  }

  /** One line, for {@code list}. */
  public String description() {
    return description;
  }

  /** How scenario files and {@code list} write it, e.g. "cpu-time". */
  public String key() {
    return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }
}
