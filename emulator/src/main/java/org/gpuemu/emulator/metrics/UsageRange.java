package org.gpuemu.emulator.metrics;

/**
 * How far each VM's GPU usage moves from one metrics period to the next (vgris.txt §4.2, Figure 10: "the range is
 * 13.75% to the average GPU usage value for 3DMark05 and 8.31% for NBA2012"): the range (highest − lowest period)
 * over the mean of the periods. The periods are those between the VM's first and its last period with GPU time, both
 * left out (the start-up and the end are parts of periods); a period without GPU time between them counts, as 0.
 */
final class UsageRange {
  private final boolean[] started;
  private final double[] pending;
  private final int[] idleSince;
  private final long[] periods;
  private final double[] sum;
  private final double[] min;
  private final double[] max;

  UsageRange(int vms) {
    started = new boolean[vms];
    pending = new double[vms];
    idleSince = new int[vms];
    periods = new long[vms];
    sum = new double[vms];
    min = new double[vms];
    max = new double[vms];
    java.util.Arrays.fill(pending, Double.NaN);
  }

  /** VM {@code vm} used the GPU for {@code usage} of a period (0 to 1). */
  void period(int vm, double usage) {
    if (!started[vm]) {
      started[vm] = usage > 0; // the first period with GPU time is left out
      return;
    }
    if (usage <= 0) {
      idleSince[vm]++;
      return;
    }
    if (!Double.isNaN(pending[vm])) add(vm, pending[vm]);
    for (; idleSince[vm] > 0; idleSince[vm]--) add(vm, 0);
    pending[vm] = usage; // counts once a later period has GPU time: the last one is left out
  }

  private void add(int vm, double usage) {
    min[vm] = periods[vm] == 0 ? usage : Math.min(min[vm], usage);
    max[vm] = periods[vm] == 0 ? usage : Math.max(max[vm], usage);
    sum[vm] += usage;
    periods[vm]++;
  }

  /** VM {@code vm}'s range over its mean in percent; null with fewer than two periods counted or a mean of 0. */
  Double rangePct(int vm) {
    if (periods[vm] < 2 || sum[vm] <= 0) return null;
    return 100 * (max[vm] - min[vm]) / (sum[vm] / periods[vm]);
  }
}
