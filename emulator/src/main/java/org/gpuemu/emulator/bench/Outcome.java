package org.gpuemu.emulator.bench;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The outcome the fast forward section compares between time scales: each VM's share of the GPU time (its
 * throughput share) and the fairness MMR, as {@code summary.json} reports them.
 *
 * @param shares GPU share per VM name
 * @param mmr min/max of the VMs' normalized throughputs (FairGV)
 */
record Outcome(Map<String, Double> shares, double mmr) {
  Outcome {
    shares = Collections.unmodifiableMap(new LinkedHashMap<>(shares)); // keeps the VMs' order for the table
  }

  /** The outcome of a run, from its {@code summary.json} document. */
  @SuppressWarnings("unchecked")
  static Outcome of(Map<String, Object> summary) {
    Map<String, Double> shares = new LinkedHashMap<>();
    Map<String, Map<String, Object>> vms = (Map<String, Map<String, Object>>) summary.get("vms");
    for (Map.Entry<String, Map<String, Object>> vm : vms.entrySet()) {
      shares.put(vm.getKey(), ((Number) vm.getValue().get("gpu_share")).doubleValue());
    }
    Map<String, Object> fairness = (Map<String, Object>) summary.get("fairness");
    return new Outcome(shares, ((Number) fairness.get("mmr")).doubleValue());
  }

  /** How far this outcome is from the reference, relative to the reference's values. */
  Deviation against(Outcome reference) {
    if (!shares.keySet().equals(reference.shares().keySet())) {
      throw new IllegalArgumentException("different VMs: " + shares.keySet() + " vs " + reference.shares().keySet());
    }
    double worst = 0;
    for (Map.Entry<String, Double> e : reference.shares().entrySet()) {
      worst = Math.max(worst, relative(shares.get(e.getKey()), e.getValue()));
    }
    return new Deviation(worst, relative(mmr, reference.mmr()));
  }

  // Relative difference; against a zero reference, the absolute one (a share of 0 has no relative scale).
  static double relative(double value, double reference) {
    double diff = Math.abs(value - reference);
    return reference == 0 ? diff : diff / Math.abs(reference);
  }

  /**
   * Relative deviations from a reference outcome.
   *
   * @param share the largest relative deviation of any VM's GPU share
   * @param mmr the relative deviation of the fairness MMR
   */
  record Deviation(double share, double mmr) {
    /** Whether both deviations are within the tolerance (0.02 for "within 2 %"). */
    boolean within(double tolerance) {
      return share <= tolerance && mmr <= tolerance;
    }
  }
}
