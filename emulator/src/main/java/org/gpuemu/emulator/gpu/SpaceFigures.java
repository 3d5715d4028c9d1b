package org.gpuemu.emulator.gpu;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.gpuemu.policies.combo.BeThroughput;
import org.gpuemu.policies.combo.FramePlan;
import org.gpuemu.policies.combo.Scheme;
import org.gpuemu.workloads.KernelType;

/**
 * The figures of a space-shared run (combo.txt §6), as the {@link SpaceScheduler} records them from the game's first
 * frame to the end of the run (what runs before the game starts, the BE jobs alone, is no co-location): BE
 * throughput per Eq. 6 (solo durations of the BE kernels completed, per type, per emulated second: ms/s, 1,000 being
 * a whole GPU's worth of solo work), frames rendered, QoS violations (frames rendered after their plan's deadline,
 * the next frame's nominal start) and the frame times behind the average and 99th-percentile FPS: a frame takes its
 * 1/fps period, or longer when it rendered later than a period after its nominal start (the paper gives no
 * definition of its "99%-ile FPS"; this one is 120 for a game that misses no frame); frames per scheme, merged
 * frames and Figure 15's QoS headrooms.
 */
final class SpaceFigures {
  private final long periodNanos;
  private final BeThroughput throughput = new BeThroughput();
  private final Histogram frameTimes = new Histogram(3);
  /** QoS headrooms in µs: the render stream's idle gap between a frame's end and the next frame's start. */
  private final Histogram headrooms = new Histogram(3);
  private final Map<Scheme, Long> framesByScheme = new EnumMap<>(Scheme.class);
  private long framesRendered;
  private long violations;
  private long merged;

  /** {@code periodNanos}: the game's frame period (1/fps). */
  SpaceFigures(long periodNanos) {
    this.periodNanos = periodNanos;
  }

  /** A frame planned by merging headrooms. */
  void merged() {
    merged++;
  }

  /** A frame that rendered at {@code end}, within the run. */
  void rendered(FramePlan plan, long end) {
    framesRendered++;
    if (end > plan.deadline()) violations++;
    framesByScheme.merge(plan.scheme(), 1L, Long::sum);
    long frameTime = Math.max(periodNanos, end - plan.nominalStart());
    frameTimes.recordValue(Math.max(1, frameTime / 1_000));
  }

  /** The render stream's idle gap before a frame that followed the previous one. */
  void headroom(long gapNanos) {
    headrooms.recordValue(Math.max(0, gapNanos) / 1_000);
  }

  /** A BE kernel completed within the measured time. */
  void beCompleted(KernelType type, long soloNanos) {
    throughput.completed(type, soloNanos);
  }

  /** The figures of {@code seconds} measured (NaN: none), for the summary. */
  /**
   * The space scheduler's final report: {@code policy}'s name and invariants, the dispatches, and these figures over
   * the game's run from {@code origin} (its first frame; -1: none) to {@code endNanos} (Long.MAX_VALUE: not ended).
   */
  Scheduling.SchedulerReport report(org.gpuemu.policies.combo.SpacePolicy policy, long dispatched, long origin,
      long endNanos, int gameVgpu) {
    double seconds = endNanos == Long.MAX_VALUE || origin < 0 || endNanos <= origin ? Double.NaN
        : (endNanos - origin) / 1e9;
    return new Scheduling.SchedulerReport(policy.name(), dispatched, new java.util.ArrayList<>(policy.checkInvariants()),
        java.util.List.of(), Map.of(), figures(seconds, gameVgpu, policy.switches().size()));
  }

  Map<String, Object> figures(double seconds, int gameVgpu, int schemeSwitches) {
    Map<String, Object> figures = new LinkedHashMap<>();
    Map<String, Object> be = new LinkedHashMap<>();
    for (KernelType t : List.of(KernelType.CD, KernelType.TC)) {
      be.put(t.name().toLowerCase(Locale.ROOT), round(throughput.nanos(t) / 1e6 / seconds, 3));
    }
    be.put("total", round(throughput.total() / 1e6 / seconds, 3));
    figures.put("be_throughput", be);
    figures.put("game_vm", gameVgpu);
    figures.put("frames_rendered", framesRendered);
    figures.put("qos_violations", violations);
    boolean any = frameTimes.getTotalCount() > 0;
    figures.put("fps_avg", round(framesRendered / seconds, 2));
    figures.put("fps_p99", any ? round(1e6 / frameTimes.getValueAtPercentile(99), 2) : null);
    figures.put("merged_frames", merged);
    figures.put("headroom_ms", headroomDistribution());
    Map<String, Object> schemes = new LinkedHashMap<>();
    for (Scheme s : Scheme.values()) schemes.put(s.label(), framesByScheme.getOrDefault(s, 0L));
    figures.put("frames_by_scheme", schemes);
    figures.put("scheme_switches", schemeSwitches);
    return figures;
  }

  /**
   * Figure 15's QoS headroom distribution: percentiles of the gaps between adjacent frames and a histogram in
   * 1 ms bins (a bin's key is its lower edge in ms; the last bin takes every longer gap).
   */
  private Map<String, Object> headroomDistribution() {
    Map<String, Object> d = new LinkedHashMap<>();
    long n = headrooms.getTotalCount();
    d.put("count", n);
    d.put("mean", n == 0 ? 0 : round(headrooms.getMean() / 1e3, 3));
    for (double p : new double[] {10, 50, 90, 99}) {
      d.put("p" + (int) p, n == 0 ? 0 : round(headrooms.getValueAtPercentile(p) / 1e3, 3));
    }
    d.put("max", round(headrooms.getMaxValue() / 1e3, 3));
    int bins = (int) Math.max(1, Math.ceil(2.0 * periodNanos / 1e6));
    long[] counts = new long[bins];
    for (var v : headrooms.recordedValues()) {
      int bin = (int) Math.min(bins - 1, v.getValueIteratedTo() / 1_000);
      counts[bin] += v.getCountAtValueIteratedTo();
    }
    Map<String, Long> histogram = new LinkedHashMap<>();
    for (int i = 0; i < bins; i++) histogram.put(Integer.toString(i), counts[i]);
    d.put("histogram_1ms", histogram);
    return d;
  }

  private static double round(double v, int digits) {
    if (Double.isNaN(v) || Double.isInfinite(v)) return 0;
    double f = Math.pow(10, digits);
    return Math.round(v * f) / f;
  }
}
