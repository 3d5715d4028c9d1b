package org.gpuemu.emulator.gpu;

import java.util.List;
import java.util.Map;
import org.gpuemu.policies.combo.ColocationTable;
import org.gpuemu.workloads.KernelType;
import org.gpuemu.workloads.MemoryClass;

/**
 * The SM group's fluid execution model (docs/concepts/architecture.md). A kernel's work is its solo duration on the
 * whole GPU; on a group of {@code groupSms} of {@code totalSms} SMs it needs {@code solo × total / group} of group
 * time. Kernels that co-run on the same SMs share them: with n co-runners each progresses at 1/n, unless exactly two of
 * distinct types overlap (COMBO Table 3), in which case the pair's makespan shrinks by the table's reduction r and each
 * progresses at 1 / (2·(1 − r)), never faster than alone. Same-type kernels have r = 0 (they serialise). The rates
 * are {@link ColocationTable#rates}, so COMBO's duration predictor forecasts exactly what the group executes.
 */
public final class FluidModel {
  private final ColocationTable table;

  private FluidModel(ColocationTable table) {
    this.table = table;
  }

  /** No co-location gain: every co-running set shares the SMs equally (the pre-COMBO papers). */
  public static FluidModel sharedEqually() {
    return new FluidModel(ColocationTable.none());
  }

  /**
   * A co-location table: makespan reduction per unordered pair of distinct types, e.g. {@code "RT+CD" -> 0.137};
   * keys name the two types joined by '+', in either order (see {@link ColocationTable#of}).
   */
  public static FluidModel withReductions(Map<String, Double> pairReductions) {
    return new FluidModel(ColocationTable.of(pairReductions));
  }

  /** The model of a co-location table, e.g. {@link ColocationTable#combo()} (COMBO Table 3 and Figure 7). */
  public static FluidModel of(ColocationTable table) {
    return new FluidModel(table);
  }

  /** The co-location table the model executes. */
  public ColocationTable table() {
    return table;
  }

  /** Group time a kernel needs: its solo duration scaled by the share of SMs its group has. */
  public static double workNanos(long soloNanos, int groupSms, int totalSms) {
    return soloNanos * (double) totalSms / groupSms;
  }

  /** Progress rate (work per nanosecond) of each kernel of a co-running set, in the order given. */
  public double[] rates(List<KernelType> running) {
    return table.rates(running);
  }

  /** The same, for kernels whose memory class sets their co-location gain ({@link ColocationTable#rates}). */
  public double[] rates(List<KernelType> running, List<MemoryClass> memory) {
    return table.rates(running, memory);
  }

  /** The rate each of {@code n} co-running kernels progresses at; {@code a}, {@code b}: the first two ({@link #rates}). */
  public double rate(int n, KernelType a, MemoryClass ma, KernelType b, MemoryClass mb) {
    return table.sharedRate(n, a, ma, b, mb);
  }
}
