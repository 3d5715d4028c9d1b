package org.gpuemu.emulator.gpu;

import java.util.List;
import java.util.Map;
import org.gpuemu.workloads.KernelType;

/**
 * The SM group's fluid execution model (DESIGN.md §3). A kernel's work is its solo duration on the whole GPU; on
 * a group of {@code groupSms} of {@code totalSms} SMs it needs {@code solo × total / group} of group time. Kernels
 * that co-run on the same SMs share them: with n co-runners each progresses at 1/n, unless their types overlap
 * (COMBO Table 3), in which case the set's makespan shrinks by the table's reduction r and each progresses at
 * 1 / (n·(1 − r)), never faster than alone. Same-type kernels have r = 0 (they serialise).
 */
public final class FluidModel {
  private final Map<String, Double> reductions;

  private FluidModel(Map<String, Double> reductions) {
    this.reductions = Map.copyOf(reductions);
  }

  /** No co-location gain: every co-running set shares the SMs equally (the pre-COMBO papers). */
  public static FluidModel sharedEqually() {
    return new FluidModel(Map.of());
  }

  /**
   * A co-location table: makespan reduction per unordered pair of distinct types, e.g. {@code "CD+RT" -> 0.1370}.
   * Keys name the two types in enum order joined by '+'.
   */
  public static FluidModel withReductions(Map<String, Double> pairReductions) {
    for (Map.Entry<String, Double> e : pairReductions.entrySet()) {
      if (e.getValue() < 0 || e.getValue() >= 1) {
        throw new IllegalArgumentException("reduction of " + e.getKey() + " must be in [0, 1): " + e.getValue());
      }
    }
    return new FluidModel(pairReductions);
  }

  /** Group time a kernel needs: its solo duration scaled by the share of SMs its group has. */
  public static double workNanos(long soloNanos, int groupSms, int totalSms) {
    return soloNanos * (double) totalSms / groupSms;
  }

  /** Progress rate (work per nanosecond) of each kernel of a co-running set, in the order given. */
  public double[] rates(List<KernelType> running) {
    int n = running.size();
    double[] rates = new double[n];
    if (n == 0) return rates;
    double r = reduction(running);
    double each = Math.min(1.0, 1.0 / (n * (1.0 - r)));
    java.util.Arrays.fill(rates, each);
    return rates;
  }

  /** The makespan reduction of a set: the table's value when exactly two distinct types co-run, else 0. */
  double reduction(List<KernelType> running) {
    if (running.size() != 2 || running.get(0) == running.get(1)) return 0.0;
    KernelType a = running.get(0);
    KernelType b = running.get(1);
    String key = a.ordinal() < b.ordinal() ? a + "+" + b : b + "+" + a;
    return reductions.getOrDefault(key, 0.0);
  }
}
