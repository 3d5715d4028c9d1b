package org.gpuemu.policies.vmcg;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * Algorithm 1, steps 1-13 (vmcg.txt §5.2): VMs sorted by their CPU scheduling time in descending order; the first
 * gets the largest vGPU time slice (16 ms, below what humans perceive), the k-th t_k = cpu_t[k] / cpu_t[1] × 16 ms.
 *
 * <p>Interpretations:
 * <ul>
 *   <li>Slices are cut down to a whole number of {@code granularity} (1 ms): the paper's example gives 16, 15 and
 *       15 ms to VMs whose demands are 34 %, 33 % and 33 %, and 33/34 × 16 ms = 15.5 ms is reported as 15 ms. A
 *       slice is at least one granule, so a VM that used (almost) no CPU still gets the engine when it has CRBs.</li>
 *   <li>Ties keep vGPU index order (the paper's exchange sort swaps only on "&gt;", so it is stable); with no CPU
 *       time measured at all (the first period, or idle guests) every VM gets the largest slice.</li>
 * </ul>
 */
public final class TimeSlices {
  /** One VM's turn in a polling period: its vGPU and its slice of engine time. */
  public record Turn(int vgpu, long sliceNanos) {}

  private final long maxSlice;
  private final long granularity;

  /** Slices of at most {@code maxSliceNanos}, in whole multiples of {@code granularityNanos} (&lt;= the largest). */
  public TimeSlices(long maxSliceNanos, long granularityNanos) {
    if (granularityNanos <= 0 || maxSliceNanos < granularityNanos) {
      throw new IllegalArgumentException("need 0 < slice granularity (" + granularityNanos + " ns) <= largest slice ("
          + maxSliceNanos + " ns)");
    }
    this.maxSlice = maxSliceNanos;
    this.granularity = granularityNanos;
  }

  /** The largest slice, t_1. */
  public long maxSlice() {
    return maxSlice;
  }

  /** Every VM of {@code cpuNanos} (vGPU to CPU scheduling time, &gt;= 0) in turn order with its slice. */
  public List<Turn> turns(SortedMap<Integer, Long> cpuNanos) {
    List<Map.Entry<Integer, Long>> sorted = new ArrayList<>(cpuNanos.entrySet());
    sorted.sort(Map.Entry.<Integer, Long>comparingByValue(Comparator.reverseOrder()));
    long largest = sorted.isEmpty() ? 0 : sorted.get(0).getValue();
    List<Turn> turns = new ArrayList<>();
    for (Map.Entry<Integer, Long> e : sorted) {
      if (e.getValue() < 0) {
        throw new IllegalArgumentException("vGPU " + e.getKey() + " has negative CPU time " + e.getValue());
      }
      turns.add(new Turn(e.getKey(), largest == 0 ? maxSlice : slice(e.getValue(), largest)));
    }
    return turns;
  }

  /** t_k = cpu / largest × max slice, cut to whole granules, at least one; exact for any CPU times. */
  private long slice(long cpu, long largest) {
    long exact = BigInteger.valueOf(maxSlice).multiply(BigInteger.valueOf(cpu))
        .divide(BigInteger.valueOf(largest)).longValueExact();
    return Math.max(granularity, exact / granularity * granularity);
  }
}
