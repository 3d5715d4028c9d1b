package org.gpuemu.policies.combo;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.gpuemu.policies.combo.PlannedFrames.Frame;
import org.gpuemu.policies.ParamChecks;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.workloads.KernelType;
import org.gpuemu.workloads.MemoryClass;
import org.gpuemu.workloads.RenderScene;

/**
 * PilotFish as COMBO describes it and COMBO's sharing schemes (combo.txt §1, §5) behind {@link SpacePolicy}: {@code
 * pilotfish-combo} (temporal only, from combo.txt's one-paragraph description; PilotFish as its authors published it
 * is {@link PilotfishPolicy}, {@code pilotfish}), {@code combo-exact} (exact integrated SM sharing), {@code combo-relaxed} (relaxed intra-SM sharing with
 * headroom merging), {@code combo} (switching between the two by Eq. 2-3) and {@code combo-nm} (COMBO without
 * headroom merging, §6.5's COMBO-NM).
 *
 * <p>Per scheme, which BE kernel is launched when (a candidate is the next kernel of a BE application whose
 * previous kernel has finished, while its type's stream is free, {@link BeStreams}):
 * <ul>
 *   <li>Temporal (PilotFish): only while no frame renders, one BE kernel at a time, the oldest candidate whose
 *       predicted duration fits before the next frame starts (spare = 1/fps − render time).
 *   <li>Exact (§5.1.1): the frame's SMs by Eq. 5 ({@link SmPartition}) on its Eq. 4 estimate; the BE group runs a
 *       CD and a TC kernel side by side, the oldest candidates, with no fit check: the groups share no SM.
 *   <li>Relaxed (§5.1.2): the whole GPU renders. While the frame's RT phase runs, the oldest CD candidate that fits is
 *       co-located with it: the co-location forecast ({@link CoRunForecast}) keeps the frame within its QoS target and
 *       the kernel ends before the next frame; no BE kernel runs beside the game's CD kernels (CD+CD serialise, and
 *       they hold the shared memory TC kernels need). Between frames, a CD and then a TC candidate are launched (CD+TC
 *       co-located) if every BE kernel is forecast to end before the next frame: the temporal fallback.
 * </ul>
 *
 * <p>Frames: frame k's QoS target is the next frame's nominal start, k/fps after the first frame was ready. A frame
 * whose layout differs from the previous frame's under the exact scheme, or whose scheme differs from the previous
 * frame's, is a switch frame: its render kernels are launched in their original, unbound version (Figure 11c; also
 * whenever the render group grows), and no BE kernel is launched until it has rendered (§5.2: "each time the
 * allocation scheme is changed, there is a sacrifice of the BE application in that frame"). PilotFish launches
 * original kernels always, as it converts none.
 *
 * <p>An exact layout change (exact before and after, another split) also suspends the BE group's running kernels
 * from the frame's start until it has rendered ({@link FramePlan#suspendBe}): §5.2 says "each time the allocation
 * scheme is changed, there is a sacrifice of the BE application in that frame to meet the QoS target" and "each time
 * a change occurs, the BE task is blocked during the frame", and COMBO runs every application's kernels as PTB
 * versions (§4, §6.8), whose persistent blocks can stop between the original blocks they loop over and resume
 * later. Blocking only new launches leaves the kernel launched under the previous layout running through the frame
 * (a 1.2 ms mri-q kernel lasts 12.3 ms in the 8-SM BE group of Table 6's stable load): the BE task is then not blocked, the change costs
 * about half a frame of BE work instead of a frame, and where the render group grows that kernel holds SMs the frame
 * needs, so QoS is not met. Interpretations: every exact change suspends, whether the render group grows or shrinks
 * (the text says every change, though the QoS motive holds only for growth; docs/papers/combo.md compares the two); a
 * scheme switch does not suspend: §5.3 handles a switch to the relaxed scheme, where BE-group kernels may still run,
 * with the original render kernels only. This is at odds with Figure 11b, where a BE kernel keeps its SMs across an
 * exact adjustment and only the original render kernel (11c) protects the frame; that happens here on a switch to
 * the relaxed scheme.
 *
 * <p>Headroom merging (§5.5), relaxed scheme only: when frame k has rendered, was not itself delayed, and BE work is
 * waiting or running, frame k + 1 is delayed by 1/fps − rendertime so that the two headrooms join. Interpretations:
 * rendertime is frame k's Eq. 4 estimate (its solo render time: a co-located BE kernel stretched its measured time, and
 * the delayed frame has no slack left for co-location); the delay is committed when frame k renders, before
 * frame k + 1's scene is known, so BE kernels can be fitted into the merged headroom ("the next few frame's rendering
 * time usually does not change significantly"). When frame k + 1 then arrives heavier than frame k, it starts as early
 * as its own estimate needs, and a BE kernel fitted to the longer headroom may still be running: replayed in
 * {@code ComboBenchTest}, no frame of the 120 FPS games' dynamic load misses its target, but 0 to 2 % of §5.2's
 * fluctuating 60 FPS frames (12-16 ms) do, the most beside long BE kernels (tpacf's 1.8 ms). Frames pair up: a delayed
 * frame's successor is never delayed. A switch out of the relaxed scheme that falls on a delayed frame waits one frame,
 * since a delayed frame has lost the time the exact scheme sizes SMs for.
 *
 * <p>Guard: every fit keeps {@code guard} free before its limit (a frame's target, the next frame's start), a
 * merged frame is delayed so that it ends that much before its target, and the exact scheme sizes SMs for the QoS
 * target less the guard. §6.7 measures the kernel launch latency at "less than
 * 0.1ms"; a kernel planned to end exactly at a limit would overrun it by that much.
 *
 * <p>Online overhead (§6.7): "the overhead includes the prediction latency, the latency for determining the
 * scheme, and the kernel launch latency ... executed sequentially, so their latencies cannot overlap. The average
 * prediction time is 0.06ms, the selection of the scheme takes 0.02ms, and the latency for kernel launch is less
 * than 0.1ms." Per frame, the prediction (Eq. 4, which Eq. 5 and the co-location forecast need) and, for the
 * policies that switch schemes, the selection (Eq. 2-3) run on the host between the frame's readiness and the launch
 * of its kernels: the frame starts {@code prediction-overhead} (+ {@code selection-overhead}) after it was ready, or
 * at its nominal or merged start if that is later, and Eq. 5 sizes the render group for the time that leaves. The
 * launch latency is the guard (below). {@code pilotfish-combo} charges none: PilotFish's own overheads are unknown
 * here ({@link PilotfishPolicy}).
 *
 * <p>A frame ready after its nominal start (the game itself was late) is sized by Eq. 5 for the time it has left
 * before its target, so the exact scheme lets a late game catch up instead of keeping it a constant lag behind.
 *
 * <p>Other interpretations: before the first frame there is no render to protect and BE kernels launch without a
 * fit check (under the exact scheme on the whole GPU, so the first exact frame is a switch frame); BE kernels left
 * running in a BE group after a switch to the relaxed scheme hold their own SMs and are not part of the relaxed
 * scheme's forecast; the forecast assumes the render's RT phase is its last.
 *
 * <p>Parameters: all read {@code guard} (nanos, &gt; 0); all but {@code pilotfish-combo} read {@code
 * prediction-overhead} (nanos, &gt;= 0); {@code combo-relaxed} and {@code combo} read {@code merge-headrooms} (true or
 * false); {@code combo} and {@code combo-nm} read {@code state-window} (frames, &gt; 0), {@code state-threshold}
 * (Eq. 3's 10 %, a real &gt; 0) and {@code selection-overhead} (nanos, &gt;= 0).
 */
public final class SpaceSharingPolicy implements SpacePolicy {
  /** Registry name of PilotFish's temporal sharing as combo.txt §1/§2.2 describes it. */
  public static final String PILOTFISH_COMBO = "pilotfish-combo";
  /** Registry name of exact integrated SM sharing only. */
  public static final String EXACT = "combo-exact";
  /** Registry name of relaxed intra-SM sharing only (Figure 17's "relaxed intra-SM sharing only"). */
  public static final String RELAXED = "combo-relaxed";
  /** Registry name of COMBO: switching by Eq. 2-3, headroom merging under the relaxed scheme. */
  public static final String COMBO = "combo";
  /** Registry name of COMBO without headroom merging (§6.5's COMBO-NM). */
  public static final String COMBO_NM = "combo-nm";
  /** Parameter: whether the relaxed scheme merges adjacent headrooms (§5.5). */
  public static final String MERGE_HEADROOMS = "merge-headrooms";
  /** Parameter: time every fit keeps free before its limit (nanos): the kernel launch latency, §6.7. */
  public static final String GUARD = "guard";
  /** Parameter: frames whose predicted render times Eq. 2 spans. */
  public static final String STATE_WINDOW = "state-window";
  /** Parameter: Eq. 3's threshold between a static and a dynamic load. */
  public static final String STATE_THRESHOLD = "state-threshold";
  /** Parameter: host time of a frame's Eq. 4 prediction before its kernels launch (nanos; §6.7: 0.06 ms). */
  public static final String PREDICTION_OVERHEAD = "prediction-overhead";
  /** Parameter: host time of a frame's scheme selection, Eq. 2-3, after the prediction (nanos; §6.7: 0.02 ms). */
  public static final String SELECTION_OVERHEAD = "selection-overhead";

  /** Forecast id of the rendering frame's RT phase (BE kernel ids are the emulator's request ids, &gt;= 0). */
  private static final long RT_PHASE = -1;
  private static final SpaceDecision IDLE = new SpaceDecision.Idle();

  private final String name;
  private final long guard;
  /** §6.7: the host's work between a frame's readiness and its kernels' launch. */
  private final long hostNanos;
  private final Optional<SchemeSelector> selector;
  private final boolean merge;
  private final BeStreams streams = new BeStreams();
  private final List<SchemeSwitch> switches = new ArrayList<>();
  private final PlannedFrames frames = new PlannedFrames();
  private Scheme scheme;
  private SpaceSetup setup;
  private CoRunForecast forecast;
  /** The switch frame BE launches wait for, or -1. */
  private long blockedBy = -1;
  /** The delay committed for the frame after the last planned, or -1. */
  private long mergeDelay = -1;
  /** The frame whose RT phase is in the forecast, or -1. */
  private long rtFrame = -1;

  private SpaceSharingPolicy(String name, PolicyParams params, Scheme initial, Optional<SchemeSelector> selector,
      boolean merge) {
    this.name = name;
    this.guard = ParamChecks.positiveNanos(params, name, GUARD);
    this.hostNanos = initial == Scheme.TEMPORAL ? 0 : ParamChecks.nonNegativeNanos(params, name, PREDICTION_OVERHEAD)
        + (selector.isPresent() ? ParamChecks.nonNegativeNanos(params, name, SELECTION_OVERHEAD) : 0);
    this.scheme = initial;
    this.selector = selector;
    this.merge = merge;
  }

  /** {@code pilotfish-combo}: temporal sharing only, as combo.txt describes PilotFish. */
  public static SpaceSharingPolicy pilotfishCombo(PolicyParams params) {
    return new SpaceSharingPolicy(PILOTFISH_COMBO, params, Scheme.TEMPORAL, Optional.empty(), false);
  }

  /** {@code combo-exact}: exact integrated SM sharing for the whole run. */
  public static SpaceSharingPolicy exact(PolicyParams params) {
    return new SpaceSharingPolicy(EXACT, params, Scheme.EXACT, Optional.empty(), false);
  }

  /** {@code combo-relaxed}: relaxed intra-SM sharing for the whole run. */
  public static SpaceSharingPolicy relaxed(PolicyParams params) {
    return new SpaceSharingPolicy(RELAXED, params, Scheme.RELAXED, Optional.empty(),
        ParamChecks.flag(params, RELAXED, MERGE_HEADROOMS));
  }

  /** {@code combo}: Eq. 2-3 switching. */
  public static SpaceSharingPolicy combo(PolicyParams params) {
    return new SpaceSharingPolicy(COMBO, params, Scheme.RELAXED, Optional.of(selector(params, COMBO)),
        ParamChecks.flag(params, COMBO, MERGE_HEADROOMS));
  }

  /** {@code combo-nm}: Eq. 2-3 switching without headroom merging. */
  public static SpaceSharingPolicy comboNoMerge(PolicyParams params) {
    return new SpaceSharingPolicy(COMBO_NM, params, Scheme.RELAXED, Optional.of(selector(params, COMBO_NM)), false);
  }

  private static SchemeSelector selector(PolicyParams params, String policy) {
    return new SchemeSelector(ParamChecks.positiveCount(params, policy, STATE_WINDOW),
        ParamChecks.positiveReal(params, policy, STATE_THRESHOLD));
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void attach(SpaceSetup setup) {
    if (this.setup != null) throw new IllegalStateException(name + ": attached twice");
    this.setup = setup;
    this.forecast = new CoRunForecast(setup.colocation());
  }

  @Override
  public FramePlan frameReady(long frame, RenderScene scene, long now) {
    attached();
    Frame last = frames.last();
    if (last != null && frame <= last.plan().frame()) {
      throw new IllegalArgumentException(name + ": frame " + frame + " ready after frame " + last.plan().frame());
    }
    frames.ready(frame, now);
    RenderTimePredictor.Estimate estimate = setup.predictor().estimate(scene);
    boolean merged = mergeDelay >= 0 && frame == last.plan().frame() + 1; // a skipped frame's slot was all headroom
    Scheme next = schemeFor(estimate, merged);
    boolean switched = next != scheme;
    SmLayout previous = last == null ? whole() : last.plan().layout();
    long nominal = nominal(frame);
    long deadline = nominal(frame + 1);
    // §6.7: the prediction (and selection) run on the host before the frame's kernels can launch
    long start = Math.max(now + hostNanos, merged ? mergedStart(nominal, deadline, estimate) : nominal);
    // Eq. 5 for the time the frame has: a frame ready late (its game was held up) needs more SMs to make its target
    SmLayout layout = next == Scheme.EXACT
        ? SmPartition.split(setup.totalSms(), estimate.totalNanos(), Math.max(1, deadline - start - guard)) : whole();
    // an exact layout change (not a scheme switch) suspends the BE group for the frame: see the class javadoc
    boolean layoutChange = next == Scheme.EXACT && !switched && previous instanceof SmLayout.Split p
        && !layout.equals(p);
    if (next != Scheme.TEMPORAL && (switched || (next == Scheme.EXACT && !layout.equals(previous)))) {
      blockedBy = frame;
    }
    mergeDelay = -1;
    FramePlan plan = new FramePlan(frame, nominal, start, deadline, layout,
        binding(next, switched, previous, layout), next, merged, layoutChange, hostNanos);
    if (switched) switches.add(new SchemeSwitch(frame, now, scheme, next));
    scheme = next;
    frames.planned(new Frame(plan, estimate));
    return plan;
  }

  @Override
  public void renderPhaseStarted(long frame, KernelType type, long now) {
    Frame f = unrenderedFrame(frame);
    if (type == KernelType.RT && f.plan().scheme() == Scheme.RELAXED && rtFrame < 0) {
      forecast.advanceTo(now);
      forecast.add(RT_PHASE, KernelType.RT, MemoryClass.UNCLASSIFIED, f.estimate().rtNanos());
      rtFrame = frame;
    }
  }

  @Override
  public void frameRendered(long frame, long now) {
    Frame f = unrenderedFrame(frame);
    frames.rendered(frame);
    forecast.advanceTo(now);
    if (rtFrame == frame) {
      forecast.remove(RT_PHASE);
      rtFrame = -1;
    }
    if (blockedBy == frame) blockedBy = -1;
    if (merge && f.plan().scheme() == Scheme.RELAXED && !f.plan().merged() && f == frames.last()
        && streams.pending()) {
      long delay = nominal(frame + 2) - nominal(frame + 1) - f.estimate().totalNanos() - guard;
      if (delay > 0) mergeDelay = delay;
    }
  }

  @Override
  public void beQueued(BeKernel kernel, long now) {
    attached();
    streams.queued(kernel);
  }

  @Override
  public void beFinished(BeKernel kernel, long now) {
    attached();
    forecast.advanceTo(now);
    if (streams.finished(kernel) == Placement.WHOLE_GPU) forecast.remove(kernel.id());
  }

  @Override
  public SpaceDecision next(long now) {
    attached();
    forecast.advanceTo(now);
    Optional<SpaceDecision.Launch> launch = switch (scheme) {
      case TEMPORAL -> temporal(now);
      case EXACT -> exact();
      case RELAXED -> relaxed(now);
    };
    if (launch.isEmpty()) return IDLE;
    BeKernel k = launch.get().kernel();
    streams.launched(k, launch.get().placement());
    if (launch.get().placement() == Placement.WHOLE_GPU) {
      forecast.add(k.id(), k.type(), k.memory(), k.soloNanos());
    }
    return launch.get();
  }

  @Override
  public Scheme scheme() {
    return scheme;
  }

  @Override
  public List<SchemeSwitch> switches() {
    return List.copyOf(switches);
  }

  @Override
  public List<String> checkInvariants() {
    List<String> violations = new ArrayList<>();
    streams.check(name, violations);
    if (scheme == Scheme.TEMPORAL && streams.running() > 1) {
      violations.add(name + ": " + streams.running() + " BE kernels running under temporal sharing");
    }
    if (forecast != null) {
      Set<Long> expected = new HashSet<>(streams.runningOnWholeGpu());
      if (rtFrame >= 0) expected.add(RT_PHASE);
      if (!expected.equals(new HashSet<>(forecast.ids()))) {
        violations.add(name + ": forecast holds " + forecast.ids() + " but " + expected + " are running");
      }
    }
    if (frames.last() != null && frames.last().plan().layout() instanceof SmLayout.Split s
        && s.renderSms() + s.beSms() != setup.totalSms()) {
      violations.add(name + ": split " + s + " does not add up to " + setup.totalSms() + " SMs");
    }
    return violations;
  }

  // ------------------------------------------------------------------ schemes

  /** PilotFish: between frames, one kernel at a time, the oldest head that fits before the next frame. */
  private Optional<SpaceDecision.Launch> temporal(long now) {
    if (frames.rendering(now) != null || streams.running() > 0) return Optional.empty();
    long headroomEnd = nextStart(now);
    return firstFitting(now, streams.candidates(), headroomEnd, Long.MAX_VALUE);
  }

  /** Exact integrated SM sharing: CD and TC side by side in the BE group, unless a switch frame is rendering. */
  private Optional<SpaceDecision.Launch> exact() {
    if (blockedBy >= 0) return Optional.empty();
    SmLayout layout = frames.last() == null ? whole() : frames.last().plan().layout();
    if (layout instanceof SmLayout.Split s && s.beSms() == 0) return Optional.empty();
    Placement placement = layout instanceof SmLayout.Split ? Placement.BE_GROUP : Placement.WHOLE_GPU;
    for (KernelType stream : BeStreams.STREAMS) {
      List<BeKernel> candidates = streams.candidates(stream);
      if (!candidates.isEmpty()) return launch(candidates.get(0), placement);
    }
    return Optional.empty();
  }

  /** Relaxed intra-SM sharing: BE CD beside the RT phase within QoS; CD then TC between frames. */
  private Optional<SpaceDecision.Launch> relaxed(long now) {
    if (blockedBy >= 0) return Optional.empty();
    long headroomEnd = nextStart(now);
    Frame rendering = frames.rendering(now);
    if (rendering != null) {
      if (rtFrame != rendering.plan().frame()) return Optional.empty();
      return firstFitting(now, streams.candidates(KernelType.CD), headroomEnd, rendering.plan().deadline());
    }
    for (KernelType stream : BeStreams.STREAMS) {
      Optional<SpaceDecision.Launch> launch = firstFitting(now, streams.candidates(stream), headroomEnd, Long.MAX_VALUE);
      if (launch.isPresent()) return launch;
    }
    return Optional.empty();
  }

  /** The first candidate that {@link #fits}, placed on the whole GPU. */
  private Optional<SpaceDecision.Launch> firstFitting(long now, List<BeKernel> candidates, long headroomEnd,
      long frameDeadline) {
    for (BeKernel k : candidates) {
      if (fits(now, k, headroomEnd, frameDeadline)) return launch(k, Placement.WHOLE_GPU);
    }
    return Optional.empty();
  }

  /**
   * Whether launching {@code k} now keeps the rendering frame's RT phase within {@code frameDeadline} and every BE
   * kernel on the whole GPU within {@code headroomEnd}, by the co-location forecast.
   */
  private boolean fits(long now, BeKernel k, long headroomEnd, long frameDeadline) {
    Map<Long, Long> ends = forecast.endsWith(now, k.id(), k.type(), k.memory(), k.soloNanos());
    for (Map.Entry<Long, Long> end : ends.entrySet()) {
      long limit = end.getKey() == RT_PHASE ? frameDeadline : headroomEnd;
      if (limit != Long.MAX_VALUE && end.getValue() > limit - guard) return false;
    }
    return true;
  }

  private static Optional<SpaceDecision.Launch> launch(BeKernel k, Placement placement) {
    return Optional.of(new SpaceDecision.Launch(k, placement));
  }

  // ------------------------------------------------------------------ frames

  private Scheme schemeFor(RenderTimePredictor.Estimate estimate, boolean merged) {
    if (selector.isEmpty()) return scheme;
    Scheme wanted = selector.get().observe(estimate.totalNanos());
    return merged ? Scheme.RELAXED : wanted;
  }

  /** Original kernels on a switch frame and when the render group grows; PilotFish converts no kernel. */
  private static Binding binding(Scheme next, boolean switched, SmLayout previous, SmLayout layout) {
    if (next == Scheme.TEMPORAL || switched) return Binding.ORIGINAL;
    if (layout instanceof SmLayout.Split s) {
      boolean shrinksOrKeeps = previous instanceof SmLayout.Split p && p.renderSms() >= s.renderSms();
      return shrinksOrKeeps ? Binding.SM_BOUND : Binding.ORIGINAL;
    }
    return Binding.SM_BOUND;
  }

  /** A merged frame starts the committed delay late, but early enough to make its target by its own estimate. */
  private long mergedStart(long nominal, long deadline, RenderTimePredictor.Estimate estimate) {
    long start = nominal + mergeDelay;
    long latest = deadline - guard - estimate.totalNanos();
    return start > latest ? Math.max(nominal, latest) : start;
  }

  /** The frame at the game's fixed rate: the first frame's readiness + (k − first)/fps. */
  private long nominal(long frame) {
    return frames.nominal(frame, setup.fps());
  }

  /** When the next frame starts ({@link PlannedFrames#nextStart}). */
  private long nextStart(long now) {
    return frames.nextStart(now, setup.fps(), mergeDelay);
  }

  private SmLayout whole() {
    return new SmLayout.Whole(setup.totalSms());
  }

  private Frame unrenderedFrame(long frame) {
    attached();
    Frame f = frames.unrendered(frame);
    if (f == null) throw new IllegalArgumentException(name + ": frame " + frame + " is not planned or already rendered");
    return f;
  }

  private void attached() {
    if (setup == null) throw new IllegalStateException(name + ": not attached to a GPU yet");
  }
}
