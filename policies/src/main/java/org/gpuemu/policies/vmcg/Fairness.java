package org.gpuemu.policies.vmcg;

import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeSet;

/**
 * VMCG's fairness metric (vmcg.txt §6.3, after Gulati et al.): λ = Σ_i |w_i − w'_i|, where w_i is VM i's weight
 * over the sum of the weights (its fair share) and w'_i = G_i/G its measured share of the throughput G = Σ G_i over
 * an interval. 0 is perfectly fair; a larger λ matches the weights worse. The paper computes its examples from W'
 * rounded to two decimals (gVirt's 0.29/0.34/0.37 give 0.09) and its Table 2 from run times, throughput = 1/time.
 */
public final class Fairness {
  private Fairness() {}

  /**
   * λ for VMs keyed alike in both maps: {@code weights} &gt; 0 (any scale, e.g. priorities 4:2:1), {@code
   * throughputs} &gt;= 0 in any unit. Empty when nothing was measured (G = 0), where W' is undefined.
   */
  public static OptionalDouble lambda(Map<Integer, ? extends Number> weights,
      Map<Integer, ? extends Number> throughputs) {
    if (!weights.keySet().equals(throughputs.keySet())) {
      throw new IllegalArgumentException("weights of VMs " + new TreeSet<>(weights.keySet()) + " but throughputs of "
          + new TreeSet<>(throughputs.keySet()));
    }
    double totalWeight = 0;
    double total = 0;
    for (Map.Entry<Integer, ? extends Number> e : weights.entrySet()) {
      double w = e.getValue().doubleValue();
      double g = throughputs.get(e.getKey()).doubleValue();
      if (!(w > 0) || Double.isInfinite(w)) {
        throw new IllegalArgumentException("weight of VM " + e.getKey() + " must be finite and > 0, got " + w);
      }
      if (!(g >= 0) || Double.isInfinite(g)) {
        throw new IllegalArgumentException("throughput of VM " + e.getKey() + " must be finite and >= 0, got " + g);
      }
      totalWeight += w;
      total += g;
    }
    if (total == 0) {
      return OptionalDouble.empty();
    }
    double lambda = 0;
    for (Map.Entry<Integer, ? extends Number> e : weights.entrySet()) {
      lambda += Math.abs(e.getValue().doubleValue() / totalWeight
          - throughputs.get(e.getKey()).doubleValue() / total);
    }
    return OptionalDouble.of(lambda);
  }
}
