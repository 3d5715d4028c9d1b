package org.gpuemu.policies.combo;

import java.util.EnumMap;
import java.util.Map;
import org.gpuemu.workloads.KernelType;

/**
 * BE throughput as COMBO counts it (combo.txt §6.3, Eq. 6): the overall duration of the BE kernels completed, per
 * kernel type, and an improvement as the ratio of two such totals,
 * {@code (T_combo_tc + T_combo_cd) / (T_pilotfish_tc + T_pilotfish_cd)}.
 *
 * <p>Interpretation: a kernel's "duration" is its solo duration on the whole GPU, the work it represents. The time
 * it spent on the GPU would count a kernel slowed by co-location or run on a few SMs as more throughput, the
 * opposite of what Eq. 6 is meant to measure.
 */
public final class BeThroughput {
  private final Map<KernelType, Long> nanos = new EnumMap<>(KernelType.class);

  /** A BE kernel completed. */
  public void completed(KernelType type, long soloNanos) {
    if (soloNanos < 0) throw new IllegalArgumentException("duration must be >= 0, got " + soloNanos);
    nanos.merge(type, soloNanos, Long::sum);
  }

  /** Overall duration of the completed kernels of one type. */
  public long nanos(KernelType type) {
    return nanos.getOrDefault(type, 0L);
  }

  /** Overall duration of all completed kernels. */
  public long total() {
    return nanos.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Eq. 6: this total over the baseline's (1.14 is a 14 % improvement). */
  public double improvementOver(BeThroughput baseline) {
    if (baseline.total() == 0) throw new IllegalArgumentException("the baseline completed no BE kernel");
    return (double) total() / baseline.total();
  }
}
