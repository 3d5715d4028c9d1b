package org.gpuemu.emulator.metrics;

import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.IntCountsHistogram;

/**
 * The frame latencies of a run, per VM and over all VMs, in µs at 3 significant digits (HdrHistogram): what the
 * metrics hub keeps of every frame, and what it reports at the end (percentiles and the distribution by percent).
 */
final class FrameLatencies {
  // A VM's histogram is made at its first frame: an auto-resizing histogram at 3 digits starts with 2,048 counts and
  // grows with the longest frame (6,144 counts for frames up to 32 ms), and a VM that never presents a frame (idle,
  // not started yet, compute only) needs none. Its counts are ints, half the bytes of longs, the same values: a bucket
  // would need 2^31 of one VM's frames (at 60 FPS, 414 emulated days) to overflow, and then the histogram throws
  // rather than wraps. The histogram over all VMs keeps long counts (one per run; a thousand VMs fill a bucket a
  // thousand times faster).
  private final IntCountsHistogram[] perVm;
  private final Histogram all = new Histogram(3); // auto-resizing: memory follows the range recorded

  FrameLatencies(int vms) {
    perVm = new IntCountsHistogram[vms];
  }

  void record(int vm, long latencyNanos) {
    long us = Math.max(1, latencyNanos / 1_000);
    IntCountsHistogram h = perVm[vm];
    if (h == null) perVm[vm] = h = new IntCountsHistogram(3);
    h.recordValue(us);
    all.recordValue(us);
  }

  /** VM {@code vm}'s figures, with the counters the hub keeps beside the latencies and its FPS range. */
  MetricsHub.VmMetrics of(int vm, long frames, long overSla, long busyNanos, long maxMemoryBytes, double fpsMin,
      double fpsMax, PresentFigures present, Double usageRangePct) {
    IntCountsHistogram h = perVm[vm];
    boolean any = h != null && h.getTotalCount() > 0;
    List<Long> cdf = new ArrayList<>();
    for (int p = 0; any && p <= 100; p++) cdf.add(p == 0 ? h.getMinValue() : h.getValueAtPercentile(p));
    return new MetricsHub.VmMetrics(frames, overSla, any ? h.getValueAtPercentile(50) : 0,
        any ? h.getValueAtPercentile(99) : 0, any ? h.getMaxValue() : 0, busyNanos, maxMemoryBytes, cdf, fpsMin,
        fpsMax, present, usageRangePct);
  }

  /** The median frame over every VM, ns; 0 without frames. */
  long medianNanos() {
    return all.getTotalCount() == 0 ? 0 : all.getValueAtPercentile(50) * 1_000;
  }
}
