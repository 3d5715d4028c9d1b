package org.gpuemu.emulator.metrics;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.stream.BoundedSourceQueue;

/**
 * What the {@link MetricsHub} keeps outside its actor, so that it outlives a crash (issue 18's metrics-crash), as a
 * metrics store outlives its collector: the run's per-VM totals and distributions, the timeline's stream, where the
 * period stands. The counts of the period in progress are here too; a crash clears them (what the collector had not
 * yet written). Only the hub, in whichever incarnation, touches it.
 */
final class MetricsStore {
  BoundedSourceQueue<String> queue;
  CompletionStage<?> written;
  final FrameLatencies latency;
  /** The VMs' weights, changed by controls during the run (for λ's weight shares). */
  final int[] weights;
  final long[] frames;
  final long[] overSla;
  final long[] busy;
  final long[] memory;
  final long[] maxMemory;
  final long[] periodFrames;
  final long[] periodBusy;
  final long[] periodKernels;
  final Map<Integer, Integer> slots = new HashMap<>();
  MetricsHub.MemoryProfile profile;
  final double[] liveFps;
  /** The timeline's period, and each VM's lowest and highest FPS over its whole periods (NaN before the first). */
  final long periodNanos;
  final double[] fpsMin;
  final double[] fpsMax;
  final double[] liveShare;
  String mode = "";
  long periodStart;
  long rows;
  long dropped;
  /** When the period's timer is due; -1 before the first period and after the end. */
  long tickDue = -1;
  /** The fault windows and recoveries (null: the run injects no faults, and the timeline names none). */
  final FaultPeriods faults;

  MetricsStore(int vms, long periodNanos, boolean marksFaults, int[] weights) {
    faults = marksFaults ? new FaultPeriods(vms, periodNanos) : null;
    latency = new FrameLatencies(vms);
    this.weights = weights.clone();
    frames = new long[vms];
    overSla = new long[vms];
    busy = new long[vms];
    memory = new long[vms];
    maxMemory = new long[vms];
    periodFrames = new long[vms];
    periodBusy = new long[vms];
    periodKernels = new long[vms];
    liveFps = new double[vms];
    this.periodNanos = periodNanos;
    fpsMin = new double[vms];
    fpsMax = new double[vms];
    java.util.Arrays.fill(fpsMin, Double.NaN);
    java.util.Arrays.fill(fpsMax, Double.NaN);
    liveShare = new double[vms];
  }

  /** A crash: the period's counts so far are lost. */
  void losePeriod() {
    java.util.Arrays.fill(periodFrames, 0);
    java.util.Arrays.fill(periodBusy, 0);
    java.util.Arrays.fill(periodKernels, 0);
  }
}
