package org.gpuemu.policies.vmcg;

import java.util.SortedMap;
import org.gpuemu.policies.gpu.BusInput;
import org.gpuemu.policies.gpu.CpuTimeInput;
import org.gpuemu.policies.gpu.GpuPolicy;

/**
 * The VMCG side of a GPU policy: what the GpuScheduler actor feeds it besides requests, and what it reports. CRBs
 * still arrive and leave through {@link GpuPolicy}; VMCG also needs each VM's CPU scheduling time for its time
 * slices (vmcg.txt §5.1) and its PCI-E bandwidth occupancy and graphics memory size for its credits (§4.1, Eq.
 * 1-2). The emulator sends them whenever it learns them; the policy reads them at its next polling period or
 * replenishment (§4.2 treats BW_i and MSIZE_i as constant within an interval). Until a VM's resources are
 * reported they are 0, so its credits follow its pending CRBs alone.
 */
public interface VmcgInputs extends CpuTimeInput, BusInput {
  /**
   * A vCPU of the VM held a physical core for {@code cpuNanos} (&gt;= 0), spinning included: the CPU scheduler
   * reports it at every CPU context switch, as VMCG "updates the values when CPU context switching occurs".
   * Summed per VM over each polling period.
   */
  @Override void cpuTimeUsed(int vgpu, long cpuNanos);

  /**
   * The VM's PCI-E bandwidth occupancy as a share of the bus, BW_i/BW (bytes it moved in the last measuring period
   * over bandwidth × period), and its graphics memory as a share of the GPU's, MSIZE_i/MSIZE (gVirt partitions
   * graphics memory per vGPU, so its allotment); both in [0, 1].
   */
  @Override void resourcesMeasured(int vgpu, double bwShare, double memoryShare);

  /** Every VM's channel and credits now, by vGPU. */
  SortedMap<Integer, ChannelState> channels();

  /** Credit replenishments so far (§4.2: an interval elapsed, or a VM spent its credits while the GPU had room). */
  long replenishments();

  /** Engine switches from one VM to another so far. */
  long switches();
}
