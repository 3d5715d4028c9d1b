package org.gpuemu.emulator.gpu;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.gpuemu.policies.vmcg.VmcgInputs;

/**
 * VMCG's inputs (vmcg.txt §5.1), a part of the time-sharing core switched on by a {@link VmcgInputs} policy: each
 * VM's CPU scheduling time as its vCPUs report it, its graphics memory share, and its bus occupancy measured every
 * second. A plain object the core owns and calls (no message hop between a report and the policy seeing it).
 */
public final class VmcgMeter {

  /** A vCPU of the VM held a core this long (VMCG's CPU scheduling time, §5.1). */
  public record CpuTime(int vgpu, long cpuNanos) implements GpuScheduler.Command {}

  /** The VM's graphics memory as a share of the GPU's (VMCG's MSIZE_i / MSIZE), known when it is created. */
  public record MemoryShare(int vgpu, double share) implements GpuScheduler.Command {}

  private final VmcgInputs vmcg;
  /** The vGPUs that joined the core (a live view). */
  private final Set<Integer> joined;
  private final Map<Integer, Double> memoryShares = new HashMap<>();
  private final Map<Integer, Long> queuedThisSecond = new HashMap<>();

  VmcgMeter(VmcgInputs vmcg, Set<Integer> joined) {
    this.vmcg = vmcg;
    this.joined = joined;
  }

  /** A vGPU joined: the policy learns its memory share, if the host told it already. */
  void joined(int vgpu) {
    Double memory = memoryShares.get(vgpu);
    if (memory != null) vmcg.resourcesMeasured(vgpu, 0, memory);
  }

  void queued(int vgpu) {
    queuedThisSecond.merge(vgpu, 1L, Long::sum);
  }

  Behavior<GpuScheduler.Command> onCpuTime(CpuTime msg) {
    if (joined.contains(msg.vgpu())) vmcg.cpuTimeUsed(msg.vgpu(), msg.cpuNanos());
    return Behaviors.same();
  }

  Behavior<GpuScheduler.Command> onMemoryShare(MemoryShare msg) {
    memoryShares.put(msg.vgpu(), msg.share());
    if (joined.contains(msg.vgpu())) vmcg.resourcesMeasured(msg.vgpu(), 0, msg.share());
    return Behaviors.same();
  }

  /**
   * VMCG's BW_i, each second, for the vGPUs present. The emulator moves no data over a PCI-E model, so a VM's bus
   * occupancy is taken as its share of the command buffers (CRBs) submitted in the second: each is one DMA of
   * commands.
   */
  void secondEnded() {
    long total = 0;
    for (long n : queuedThisSecond.values()) total += n;
    for (Integer v : joined) {
      double bw = total == 0 ? 0 : (double) queuedThisSecond.getOrDefault(v, 0L) / total;
      vmcg.resourcesMeasured(v, bw, memoryShares.getOrDefault(v, 0.0));
    }
    queuedThisSecond.clear();
  }

  void figures(Map<String, Object> into) {
    into.put("credit_replenishments", vmcg.replenishments());
    into.put("engine_switches", vmcg.switches());
  }
}
