package org.gpuemu.policies.fairgv;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * FairGV's fairness and performance metrics (fairgv.txt §5.4.1, after Pisces): the normalized throughput
 * x_i = T_i / O_i of each VM, T_i measured and O_i its ideal weighted fair throughput; the Min-Max Ratio
 * MMR = min x_i / max x_i (0 completely unfair, 1 completely fair); and the aggregated overhead, the ideal
 * aggregated throughput divided by the measured one (1 = no loss; below 1 a speedup).
 *
 * <p>Interpretation of O_i: the paper runs the same benchmark in every VM, so the ideal aggregated throughput is
 * what that benchmark achieves alone on the GPU, and each VM's ideal fair throughput is that share of it its weight
 * gives: O_i = T_alone × w_i / Σ w.
 */
public final class FairnessMetrics {
  private FairnessMetrics() {}

  /** O_i for each VM: the ideal aggregated throughput split by weight. */
  public static SortedMap<String, Double> idealFairThroughputs(double idealAggregate, Map<String, Integer> weights) {
    if (!(idealAggregate > 0) || weights.isEmpty()) {
      throw new IllegalArgumentException("need an ideal aggregated throughput > 0 and at least one VM, got "
          + idealAggregate + " and " + weights);
    }
    long total = 0;
    for (Map.Entry<String, Integer> e : weights.entrySet()) {
      if (e.getValue() <= 0) throw new IllegalArgumentException("VM " + e.getKey() + " has weight " + e.getValue());
      total += e.getValue();
    }
    SortedMap<String, Double> ideal = new TreeMap<>();
    for (Map.Entry<String, Integer> e : weights.entrySet()) {
      ideal.put(e.getKey(), idealAggregate * e.getValue() / total);
    }
    return ideal;
  }

  /** x_i = T_i / O_i for each VM of {@code ideal}; every VM must have a measured throughput. */
  public static SortedMap<String, Double> normalizedThroughputs(Map<String, Double> measured,
      Map<String, Double> ideal) {
    if (!measured.keySet().equals(ideal.keySet())) {
      throw new IllegalArgumentException("measured VMs " + new TreeMap<>(measured).keySet() + " are not the ideal ones "
          + new TreeMap<>(ideal).keySet());
    }
    SortedMap<String, Double> x = new TreeMap<>();
    for (Map.Entry<String, Double> e : ideal.entrySet()) {
      x.put(e.getKey(), measured.get(e.getKey()) / e.getValue());
    }
    return x;
  }

  /** MMR = min x_i / max x_i; fails when no VM made progress (the ratio is undefined). */
  public static double mmr(Collection<Double> normalized) {
    if (normalized.isEmpty()) throw new IllegalArgumentException("MMR of no VM");
    double max = Collections.max(normalized);
    if (!(max > 0)) throw new IllegalArgumentException("MMR undefined: no VM made progress " + normalized);
    return Collections.min(normalized) / max;
  }

  /** The ideal aggregated throughput divided by the measured aggregated throughput. */
  public static double aggregatedOverhead(double idealAggregate, Collection<Double> measured) {
    double sum = 0;
    for (double t : measured) sum += t;
    if (!(sum > 0)) throw new IllegalArgumentException("aggregated overhead undefined: no VM made progress");
    return idealAggregate / sum;
  }
}
