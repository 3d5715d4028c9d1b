package org.gpuemu.emulator.metrics;

import java.util.HashMap;
import java.util.Map;
import java.nio.file.Path;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.BoundedSourceQueue;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.FileIO;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/**
 * What the {@link MetricsHub} keeps outside its actor, so that it outlives a crash (the metrics-crash fault), as a
 * metrics store outlives its collector: the run's per-VM totals and distributions, the timeline's stream, where the
 * period stands. The counts of the period in progress are here too; a crash clears them (what the collector had not
 * yet written). Only the hub, in whichever incarnation, touches it.
 */
final class MetricsStore {
  BoundedSourceQueue<String> queue;
  CompletionStage<?> written;
  final FrameLatencies latency;
  /** What each VM's Presents cost and how well its agent predicted them (VGRIS Figures 6 and 9). */
  final PresentCosts presents;
  /** How far each VM's GPU usage moves from period to period (VGRIS Figure 10). */
  final UsageRange usage;
  /** The VMs' weights, changed by controls during the run (for λ's weight shares). */
  final int[] weights;
  final long[] frames;
  /** Each VM's SLA latency: a frame longer counts over the SLA (Long.MAX_VALUE: the VM has no frame rate SLA). */
  private final long[] slaLatency;
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

  /** Where the frequent reports wait for the hub (outlives a crash too: written by the reporting actors). */
  final MetricsPorts ports;

  /** {@code slaLatency}: each VM's SLA latency, ns (Long.MAX_VALUE: none); {@code ports}: the run's. */
  MetricsStore(int vms, long periodNanos, boolean marksFaults, int[] weights, long[] slaLatency, MetricsPorts ports) {
    this.ports = ports;
    this.slaLatency = slaLatency.clone();
    faults = marksFaults ? new FaultPeriods(vms, periodNanos) : null;
    latency = new FrameLatencies(vms);
    presents = new PresentCosts(vms);
    usage = new UsageRange(vms);
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

  /** The timeline's stream, opened by the hub's first incarnation: rows queue up to {@code size}, {@code tap} sees each. */
  void open(ActorSystem<?> system, Path timeline, MetricsHub.TimelineTap tap, int size) {
    Source<String, BoundedSourceQueue<String>> rowSource = Source.queue(size);
    if (tap != MetricsHub.TimelineTap.NONE) rowSource = rowSource.wireTap(tap::row);
    Pair<BoundedSourceQueue<String>, CompletionStage<Done>> mat = rowSource
        .map(line -> ByteString.fromString(line + "\n"))
        .toMat(FileIO.toPath(timeline), Keep.both())
        .mapMaterializedValue(p -> Pair.create(p.first(), p.second().thenApply(io -> Done.getInstance())))
        .run(Materializer.matFromSystem(system));
    queue = mat.first();
    written = mat.second();
  }

  /** A frame of VM {@code vm} took {@code latencyNanos}: its distribution, the run's and the period's counts. */
  void frame(int vm, long latencyNanos) {
    latency.record(vm, latencyNanos);
    frames[vm]++;
    periodFrames[vm]++;
    if (latencyNanos > slaLatency[vm]) overSla[vm]++;
  }

  /** A kernel of VM {@code vm} used the GPU {@code gpuNanos}. */
  void gpuUsed(int vm, long gpuNanos) {
    busy[vm] += gpuNanos;
    periodBusy[vm] += gpuNanos;
    periodKernels[vm]++;
  }

  /** VM {@code vm}'s figures at the end of the run. */
  MetricsHub.VmMetrics vmMetrics(int vm) {
    return latency.of(vm, frames[vm], overSla[vm], busy[vm], maxMemory[vm], fpsMin[vm], fpsMax[vm], presents.of(vm),
        usage.rangePct(vm));
  }

  /** A crash: the period's counts so far are lost. */
  void losePeriod() {
    java.util.Arrays.fill(periodFrames, 0);
    java.util.Arrays.fill(periodBusy, 0);
    java.util.Arrays.fill(periodKernels, 0);
  }
}
