package org.gpuemu.emulator.gpu;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.gpuemu.policies.gpu.BusInput;
import org.gpuemu.policies.gpu.CpuTimeInput;

/**
 * VMCG's inputs (vmcg.txt §5.1), a part of the time-sharing core switched on by a policy that declares them
 * (PolicyInput CPU_TIME, BUS_AND_MEMORY; VMCG declares both, a plugin may declare either): each VM's CPU scheduling
 * time as its vCPUs report it, and its graphics memory share and bus occupancy measured every second. A plain object the core owns and calls (no message hop between a report and the policy seeing it).
 */
public final class VmcgMeter {

  /** A vCPU of the VM held a core this long (VMCG's CPU scheduling time, §5.1). */
  public record CpuTime(int vgpu, long cpuNanos) implements GpuScheduler.Command {}

  /** The VM's graphics memory as a share of the GPU's (VMCG's MSIZE_i / MSIZE), known when it is created. */
  public record MemoryShare(int vgpu, double share) implements GpuScheduler.Command {}

  /** The policy as a CPU time consumer, or null; as a bus and memory consumer, or null. */
  private final CpuTimeInput cpuTime;
  private final BusInput bus;
  /** The vGPUs that joined the core (a live view). */
  private final Set<Integer> joined;
  private final Map<Integer, Double> memoryShares = new HashMap<>();
  private final Map<Integer, Long> queuedThisSecond = new HashMap<>();

  VmcgMeter(CpuTimeInput cpuTime, BusInput bus, Set<Integer> joined) {
    this.cpuTime = cpuTime;
    this.bus = bus;
    this.joined = joined;
  }

  /** A vGPU joined: the policy learns its memory share, if the host told it already. */
  void joined(int vgpu) {
    Double memory = memoryShares.get(vgpu);
    if (bus != null && memory != null) bus.resourcesMeasured(vgpu, 0, memory);
  }

  void queued(int vgpu) {
    if (bus != null) queuedThisSecond.merge(vgpu, 1L, Long::sum);
  }

  Behavior<GpuScheduler.Command> onCpuTime(CpuTime msg) {
    if (cpuTime != null && joined.contains(msg.vgpu())) cpuTime.cpuTimeUsed(msg.vgpu(), msg.cpuNanos());
    return Behaviors.same();
  }

  Behavior<GpuScheduler.Command> onMemoryShare(MemoryShare msg) {
    memoryShares.put(msg.vgpu(), msg.share());
    if (bus != null && joined.contains(msg.vgpu())) bus.resourcesMeasured(msg.vgpu(), 0, msg.share());
    return Behaviors.same();
  }

  /**
   * VMCG's BW_i, each second, for the vGPUs present. The emulator moves no data over a PCI-E model, so a VM's bus
   * occupancy is taken as its share of the command buffers (CRBs) submitted in the second: each is one DMA of
   * commands.
   */
  void secondEnded() {
    if (bus == null) return;
    long total = 0;
    for (long n : queuedThisSecond.values()) total += n;
    for (Integer v : joined) {
      double bw = total == 0 ? 0 : (double) queuedThisSecond.getOrDefault(v, 0L) / total;
      bus.resourcesMeasured(v, bw, memoryShares.getOrDefault(v, 0.0));
    }
    queuedThisSecond.clear();
  }
}
