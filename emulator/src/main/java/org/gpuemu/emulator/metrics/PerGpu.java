package org.gpuemu.emulator.metrics;

import java.util.HashMap;
import java.util.Map;
import java.util.OptionalDouble;
import org.gpuemu.policies.vmcg.Fairness;

/** A period's figures over the VMs of each GPU, which share it (many hosts): its busy time and VMCG's λ. */
final class PerGpu {
  private PerGpu() {}

  /** Each GPU's busy time in the period, from its VMs'. */
  static Map<Integer, Long> busy(int[] gpuOf, long[] periodBusy) {
    Map<Integer, Long> totals = new HashMap<>();
    for (int v = 0; v < gpuOf.length; v++) totals.merge(gpuOf[v], periodBusy[v], Long::sum);
    return totals;
  }

  /**
   * Each GPU's λ = Σ|w_i − w'_i| over the period (vmcg.txt §6.3): w its VMs' weight shares, w' their throughput
   * shares, throughput being frames for a VM that has presented frames in the run and completed requests for one
   * that has not. Null when nothing was done on it in the period.
   */
  static Map<Integer, Double> lambdas(int[] gpuOf, int[] weights, long[] frames, long[] periodFrames,
      long[] periodKernels) {
    Map<Integer, Map<Integer, Integer>> w = new HashMap<>();
    Map<Integer, Map<Integer, Long>> t = new HashMap<>();
    for (int v = 0; v < gpuOf.length; v++) {
      w.computeIfAbsent(gpuOf[v], g -> new HashMap<>()).put(v, weights[v]);
      t.computeIfAbsent(gpuOf[v], g -> new HashMap<>()).put(v, frames[v] > 0 ? periodFrames[v] : periodKernels[v]);
    }
    Map<Integer, Double> out = new HashMap<>();
    for (int g : w.keySet()) {
      OptionalDouble l = Fairness.lambda(w.get(g), t.get(g));
      out.put(g, l.isPresent() ? l.getAsDouble() : null);
    }
    return out;
  }
}
