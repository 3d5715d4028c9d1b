package org.gpuemu.policies.vgris;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.gpuemu.policies.gpu.VgpuParams;

/**
 * VGRIS hybrid scheduling (§3.2, Algorithm 1). It starts in proportional share with a full GPU share for every VM
 * (§4.3: "hybrid scheduling employs proportional-share scheduling algorithm and assigns full GPU resource for each VM
 * since both of their FPS satisfy the FPS criteria"). Once a second it
 * hears every running VM's FPS and GPU usage of that second: under proportional share, when some VM's FPS has been
 * below {@code fpsThreshold} for {@code windowSeconds} consecutive seconds it switches to SLA-aware; under
 * SLA-aware, when the total GPU usage has been below {@code gpuThreshold} for {@code windowSeconds} consecutive
 * seconds it switches back to proportional share with shares from Eq. 2, s_i = u_i + (1 − Σu)/n.
 *
 * <p>Interpretations the paper leaves open:
 * <ul>
 *   <li>"Below the threshold" is strict for both (an FPS of exactly 30 satisfies FPSthres 30). FPS streaks are per
 *       VM: two VMs starving in alternate seconds do not add up.</li>
 *   <li>Only the condition of the algorithm in force is counted, and every count restarts at a switch, so an
 *       algorithm once chosen stays at least {@code windowSeconds} (Figure 11 shows no faster flapping).</li>
 *   <li>u_i is VM i's GPU usage over the whole window that triggered the switch, i.e. its usage summed over those
 *       seconds divided by {@code windowSeconds} (a second it did not report counts 0), not the last second alone:
 *       it smooths the per-second noise of Reality Model Games, and Σu is then the window's mean total usage, below
 *       {@code gpuThreshold} ≤ 1, so every share is positive.</li>
 *   <li>The start: §3.2 says hybrid scheduling "employs proportional-share scheduling with a fair share as the
 *       default algorithm", §4.3 that it "assigns full GPU resource for each VM" while the FPS criteria hold. The
 *       experiment's text is taken: until the first switch back to proportional share every present VM's share is
 *       1 (its budget never binds: a VM cannot use more than the whole GPU), which is the default sharing with the
 *       agents only watching; no u_i has been measured yet.</li>
 *   <li>VMs come and go (Figure 11: 3DMark05 GT3 arrives at 28 s and leaves 87 s later). Once Eq. 2 has been
 *       applied, shares are always Eq. 2 over the VMs present: a VM that joins later has u = 0 (it gets its part of
 *       the surplus), and a VM that leaves takes its u with it, its part being divided among the rest.</li>
 *   <li>Absence is not evidence: a present VM that did not report a second (it just started) resets its own FPS
 *       streak instead of counting as starved, so a VM triggers a switch only after {@code windowSeconds}
 *       consecutive reports under the threshold. A second with no reports at all resets every count.</li>
 * </ul>
 * The paper gives FPSthres (30) and Time (5 s) but no number for GPUthres; see {@code reference.conf}.
 */
public final class HybridController implements Controller {
  private final double fpsThreshold;
  private final double gpuThreshold;
  private final int windowSeconds;

  private Algorithm current = Algorithm.PROPORTIONAL_SHARE;
  /** Whether Eq. 2 has been applied (the first switch back to proportional share); before it every share is 1. */
  private boolean measured;
  /** Eq. 2's u_i of every present VM. */
  private final SortedMap<Integer, Double> usage = new TreeMap<>();
  /** Consecutive seconds each VM reported an FPS below the threshold, counted under proportional share. */
  private final Map<Integer, Integer> lowFpsSeconds = new HashMap<>();
  /** Consecutive seconds the total GPU usage stayed below its threshold, counted under SLA-aware. */
  private int lowUsageSeconds;
  /** Each VM's GPU usage summed over those seconds. */
  private final Map<Integer, Double> usageOverStreak = new HashMap<>();
  private final List<AlgorithmSwitch> switches = new ArrayList<>();

  /**
   * Algorithm 1 with FPSthres {@code fpsThreshold} (&gt; 0), GPUthres {@code gpuThreshold} (in (0, 1]) and Time
   * {@code windowSeconds} (&gt; 0).
   */
  public HybridController(double fpsThreshold, double gpuThreshold, int windowSeconds) {
    this.fpsThreshold = fpsThreshold;
    this.gpuThreshold = gpuThreshold;
    this.windowSeconds = windowSeconds;
  }

  @Override
  public Set<Algorithm> algorithms() {
    return Set.of(Algorithm.values());
  }

  @Override
  public Algorithm algorithm() {
    return current;
  }

  @Override
  public void join(VgpuParams vm) {
    usage.put(vm.vgpu(), 0.0);
  }

  @Override
  public void leave(int vgpu) {
    usage.remove(vgpu);
    lowFpsSeconds.remove(vgpu);
    usageOverStreak.remove(vgpu);
  }

  @Override
  public boolean secondEnded(long now, List<SecondReport> reports) {
    SortedMap<Integer, SecondReport> byVgpu = new TreeMap<>();
    reports.forEach(r -> byVgpu.put(r.vgpu(), r));
    if (byVgpu.isEmpty()) {
      restartCounts();
      return false;
    }
    boolean due = switch (current) {
      case PROPORTIONAL_SHARE -> someVmStarvedForWindow(byVgpu);
      case SLA_AWARE -> gpuUnderusedForWindow(byVgpu);
    };
    if (!due) {
      return false;
    }
    if (current == Algorithm.SLA_AWARE) {
      usage.replaceAll((vgpu, u) -> usageOverStreak.getOrDefault(vgpu, 0.0) / windowSeconds);
      measured = true;
    }
    Algorithm next = current == Algorithm.SLA_AWARE ? Algorithm.PROPORTIONAL_SHARE : Algorithm.SLA_AWARE;
    switches.add(new AlgorithmSwitch(now, current, next));
    current = next;
    restartCounts();
    return true;
  }

  /** A full share for every present VM until Eq. 2 is first applied, then Eq. 2 over the present VMs. */
  @Override
  public SortedMap<Integer, Double> shares() {
    if (usage.isEmpty()) return new TreeMap<>();
    if (!measured) {
      SortedMap<Integer, Double> full = new TreeMap<>();
      usage.keySet().forEach(vgpu -> full.put(vgpu, 1.0));
      return full;
    }
    return Shares.fromUsage(usage);
  }

  @Override
  public List<AlgorithmSwitch> switches() {
    return List.copyOf(switches);
  }

  private boolean someVmStarvedForWindow(SortedMap<Integer, SecondReport> reports) {
    boolean starved = false;
    for (int vgpu : usage.keySet()) {
      SecondReport report = reports.get(vgpu);
      int seconds = report != null && report.fps() < fpsThreshold ? lowFpsSeconds.getOrDefault(vgpu, 0) + 1 : 0;
      lowFpsSeconds.put(vgpu, seconds);
      starved |= seconds >= windowSeconds;
    }
    return starved;
  }

  private boolean gpuUnderusedForWindow(SortedMap<Integer, SecondReport> reports) {
    double total = reports.values().stream().mapToDouble(SecondReport::gpuUsage).sum();
    if (total >= gpuThreshold) {
      restartCounts();
      return false;
    }
    lowUsageSeconds++;
    reports.values().forEach(r -> usageOverStreak.merge(r.vgpu(), r.gpuUsage(), Double::sum));
    return lowUsageSeconds >= windowSeconds;
  }

  private void restartCounts() {
    lowFpsSeconds.clear();
    lowUsageSeconds = 0;
    usageOverStreak.clear();
  }
}
