package org.gpuemu.emulator.gpu;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;
import org.gpuemu.policies.combo.BeThroughput;
import org.gpuemu.policies.combo.FramePlan;
import org.gpuemu.policies.combo.RenderTimePredictor;
import org.gpuemu.policies.combo.Scheme;
import org.gpuemu.policies.combo.SmLayout;
import org.gpuemu.workloads.ComboGame;
import org.gpuemu.workloads.KernelType;

/**
 * The figures of a space-shared run (combo.txt §6), as the {@link SpaceScheduler} records them from the game's first
 * frame to the end of the run (what runs before the game starts, the BE jobs alone, is no co-location): BE
 * throughput per Eq. 6 (solo durations of the BE kernels completed, per type, per emulated second: ms/s, 1,000 being
 * a whole GPU's worth of solo work), frames rendered, QoS violations (frames rendered after their plan's deadline,
 * the next frame's nominal start) and the frame times behind the average and 99th-percentile FPS: a frame takes its
 * 1/fps period, or longer when it rendered later than a period after its nominal start (the paper gives no
 * definition of its "99%-ile FPS"; this one is 120 for a game that misses no frame); frames per scheme, merged
 * frames and Figure 15's QoS headrooms; and the paper's measurements beside them: the share of the time no kernel
 * ran anywhere on the GPU (Figure 2's unused cycles), the render group's share of the SMs under the exact scheme
 * (Table 4's SM ratio), how far frames rendered alone took from Eq. 4's estimate (§5.4's prediction error), the
 * policy's host work per frame (§6.7's online overhead) and each BE application's kernels per frame (Table 6).
 */
final class SpaceFigures {
  private final long periodNanos;
  private final BeThroughput throughput = new BeThroughput();
  private final Histogram frameTimes = new Histogram(3);
  /** QoS headrooms in µs: the render stream's idle gap between a frame's end and the next frame's start. */
  private final Histogram headrooms = new Histogram(3);
  private final Map<Scheme, Long> framesByScheme = new EnumMap<>(Scheme.class);
  private final int totalSms;
  private final RenderTimePredictor predictor;
  private final ComboGame.SceneTrace scenes;
  /** BE kernels placed on the render group and not completed. */
  private final Set<Long> beOnRender = new HashSet<>();
  /** BE kernels placed in the BE group and not completed: under a whole layout they still hold SMs (§5.3). */
  private final Set<Long> beInGroup = new HashSet<>();
  /** The frame whose kernels started and which has not rendered, or null. */
  private RenderFrame current;
  /** Kernels executing, by request id: when each started (model time). */
  private final Map<Long, Long> executing = new HashMap<>();
  /** Execution intervals of the kernels that ended, [start, end], for the GPU's idle time. */
  private final List<long[]> intervals = new ArrayList<>();
  /** BE kernels completed within the measured time, by vGPU. */
  private final Map<Integer, Long> beKernels = new TreeMap<>();
  private long framesRendered;
  private long violations;
  private long merged;
  private long exactFrames;
  private double exactSmShare;
  private long hostNanos;
  private long aloneFrames;
  private double errorSum;
  private double errorMax;

  /**
   * The figures of {@code game} on a GPU of {@code totalSms}: its frame period (1/fps), Eq. 4 fitted offline on it
   * and the scenes of its frames, for the estimate a frame rendered alone is compared with.
   */
  SpaceFigures(ComboGame game, int totalSms, ComboGame.SceneTrace scenes) {
    this.periodNanos = Math.round(1e9 / game.fps());
    this.totalSms = totalSms;
    this.predictor = RenderTimePredictor.fit(game.profile());
    this.scenes = scenes;
  }

  /**
   * A frame's first kernel started at {@code start}, on another layout than the frame before it or not. It renders
   * alone unless a BE kernel runs beside it on the render group's SMs, or BE-group kernels still hold SMs of a whole
   * layout, or a BE kernel is placed beside it while it renders.
   */
  void frameStarted(RenderFrame f, long start, boolean layoutChanged) {
    f.firstStart = start;
    f.layoutChanged = layoutChanged;
    f.colocated = !beOnRender.isEmpty() || (f.plan.layout() instanceof SmLayout.Whole && !beInGroup.isEmpty());
    current = f;
  }

  /** A BE kernel was launched on the render group ({@code onRender}) or in the BE group. */
  void beLaunched(long id, boolean onRender) {
    if (onRender) {
      beOnRender.add(id);
      if (current != null) current.colocated = true;
    } else {
      beInGroup.add(id);
    }
  }

  /** Frame {@code f} rendered at {@code end}; counted when {@code inRun} (it ended within the run). */
  void rendered(RenderFrame f, long end, boolean inRun) {
    if (current == f) current = null;
    if (!inRun) return;
    rendered(f.plan, end);
    if (f.started && !f.colocated && !f.layoutChanged) {
      int sms = f.plan.layout() instanceof SmLayout.Split split ? split.renderSms() : totalSms;
      renderedAlone(f.firstStart, end,
          Math.round(predictor.estimate(scenes.scene(f.index)).totalNanos() * (double) totalSms / sms));
    }
  }

  /** Kernel {@code id} started executing at {@code start} (render or BE, on either group). */
  void kernelStarted(long id, long start) {
    executing.put(id, start);
  }

  /** Kernel {@code id} ended at {@code end}. */
  void kernelEnded(long id, long end) {
    beOnRender.remove(id);
    beInGroup.remove(id);
    Long start = executing.remove(id);
    if (start != null) intervals.add(new long[] {start, Math.max(start, end)});
  }

  /**
   * A frame rendered alone (no BE kernel beside it on its SMs, its layout the previous frame's) from {@code start}
   * to {@code end}, where Eq. 4 predicted {@code predictedNanos} on its SMs.
   */
  private void renderedAlone(long start, long end, long predictedNanos) {
    if (predictedNanos <= 0) return;
    double error = Math.abs((end - start) - predictedNanos) / (double) predictedNanos;
    aloneFrames++;
    errorSum += error;
    errorMax = Math.max(errorMax, error);
  }

  /** A frame planned by merging headrooms. */
  void merged() {
    merged++;
  }

  /** A frame that rendered at {@code end}, within the run. */
  private void rendered(FramePlan plan, long end) {
    framesRendered++;
    hostNanos += plan.hostNanos();
    if (plan.layout() instanceof SmLayout.Split split) {
      exactFrames++;
      exactSmShare += split.renderSms() / (double) totalSms;
    }
    if (end > plan.deadline()) violations++;
    framesByScheme.merge(plan.scheme(), 1L, Long::sum);
    long frameTime = Math.max(periodNanos, end - plan.nominalStart());
    frameTimes.recordValue(Math.max(1, frameTime / 1_000));
  }

  /** The render stream's idle gap before a frame that followed the previous one. */
  void headroom(long gapNanos) {
    headrooms.recordValue(Math.max(0, gapNanos) / 1_000);
  }

  /** A BE kernel of {@code vgpu} completed within the measured time. */
  void beCompleted(int vgpu, KernelType type, long soloNanos) {
    throughput.completed(type, soloNanos);
    beKernels.merge(vgpu, 1L, Long::sum);
  }

  /**
   * The space scheduler's final report: {@code policy}'s name and invariants, the dispatches, and these figures over
   * the game's run from {@code origin} (its first frame; -1: none) to {@code endNanos} (Long.MAX_VALUE: not ended).
   */
  Scheduling.SchedulerReport report(org.gpuemu.policies.combo.SpacePolicy policy, long dispatched, long origin,
      long endNanos, int gameVgpu) {
    return new Scheduling.SchedulerReport(policy.name(), dispatched, new ArrayList<>(policy.checkInvariants()),
        List.of(), Map.of(), figures(gameVgpu, policy.switches().size(), origin, endNanos));
  }

  /**
   * The share of {@code [from, to]} during which no kernel executed anywhere on the GPU (the union of the kernels'
   * execution intervals, those still executing at {@code to} included).
   */
  double idleShare(long from, long to) {
    if (to <= from) return 0;
    List<long[]> all = new ArrayList<>(intervals);
    executing.values().forEach(start -> all.add(new long[] {start, to}));
    all.sort((a, b) -> Long.compare(a[0], b[0]));
    long busy = 0;
    long reach = from;
    for (long[] i : all) {
      long a = Math.max(i[0], reach);
      long b = Math.min(i[1], to);
      if (b > a) busy += b - a;
      reach = Math.max(reach, Math.min(i[1], to));
    }
    return 1 - busy / (double) (to - from);
  }

  /** Eq. 4 as fitted on the game (what the policy is attached with). */
  RenderTimePredictor predictor() {
    return predictor;
  }

  /**
   * The figures of the measured time, from the game's first frame ({@code from}, -1: none) to the end of the run
   * ({@code to}, Long.MAX_VALUE: none), for the summary.
   */
  Map<String, Object> figures(int gameVgpu, int schemeSwitches, long from, long to) {
    double seconds = to == Long.MAX_VALUE || from < 0 || to <= from ? Double.NaN : (to - from) / 1e9;
    double idleShare = Double.isNaN(seconds) ? Double.NaN : idleShare(from, to);
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
    figures.put("gpu_idle", round(idleShare, 4));
    figures.put("render_sm_share", exactFrames == 0 ? null : round(exactSmShare / exactFrames, 4));
    Map<String, Object> error = new LinkedHashMap<>();
    error.put("frames", aloneFrames);
    error.put("mean", aloneFrames == 0 ? null : round(errorSum / aloneFrames, 5));
    error.put("max", aloneFrames == 0 ? null : round(errorMax, 5));
    figures.put("render_error", error);
    figures.put("online_overhead_ms", framesRendered == 0 ? 0.0 : round(hostNanos / 1e6 / framesRendered, 4));
    Map<String, Object> perFrame = new LinkedHashMap<>();
    beKernels.forEach((vgpu, n) -> perFrame.put(Integer.toString(vgpu),
        framesRendered == 0 ? 0.0 : round(n / (double) framesRendered, 4)));
    figures.put("be_kernels_per_frame", perFrame);
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
