package org.gpuemu.emulator.gpu;

import java.util.ArrayDeque;
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
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.gpu.GpuScheduler.Command;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.run.RunContext;
import org.gpuemu.policies.combo.BeKernel;
import org.gpuemu.policies.combo.BeThroughput;
import org.gpuemu.policies.combo.Binding;
import org.gpuemu.policies.combo.ColocationTable;
import org.gpuemu.policies.combo.FramePlan;
import org.gpuemu.policies.combo.Placement;
import org.gpuemu.policies.combo.RenderTimePredictor;
import org.gpuemu.policies.combo.Scheme;
import org.gpuemu.policies.combo.SmLayout;
import org.gpuemu.policies.combo.SpaceDecision;
import org.gpuemu.policies.combo.SpacePolicy;
import org.gpuemu.policies.combo.SpaceSetup;
import org.gpuemu.policies.gpu.GpuWork;
import org.gpuemu.policies.vgris.PresentMode;
import org.gpuemu.workloads.ComboGame;
import org.gpuemu.workloads.KernelSpec;
import org.gpuemu.workloads.KernelType;

/**
 * The GPU scheduler of a space-shared GPU (combo.txt §5): a thin adapter that drives a {@link SpacePolicy} exactly
 * as its javadoc's protocol says, with the {@link PhysicalGpu}'s render and BE groups as executors. It speaks the
 * {@link GpuScheduler} protocol, so vGPUs and guest agents do not know which of the two they talk to.
 *
 * <ul>
 *   <li>The game's requests (one VM, a {@link ComboGame}) are its render kernels, tagged with their frame by the
 *       vGPU. The first one of frame k to arrive makes the frame ready ({@link SpacePolicy#frameReady} with the
 *       scene of frame k of the game's seeded trace); the frame's kernels are held until its plan's start, then
 *       its layout goes to the physical GPU (suspending the BE group's kernels if the plan says so, until the frame
 *       has rendered) and its kernels go, one at a time in order (one CUDA stream), to the
 *       render group, SM-bound to the render group's SMs or unbound ("original") as the plan says. A frame has
 *       rendered when the vGPU has reported its Present and every one of its kernels has completed.
 *   <li>Every other VM is a BE application: each request is a {@link BeKernel} queued with the policy, and each
 *       launch the policy decides goes to the render group (whole GPU, beside the render) or the BE group.
 *   <li>After every event and at a held frame's start the policy is asked for launches until it answers idle.
 * </ul>
 *
 * <p>Interpretations: a render phase "starts executing" when its first kernel is dispatched (the render stream is
 * otherwise idle, so it starts at once unless an SM-bound kernel waits for SMs, Figure 11b); the layout is applied
 * when the frame's first kernel is dispatched, which is its plan's start or, if the previous frame is late, the end
 * of that frame. Once the run has ended the BE kernels still queued are handed to the render group unplanned, so
 * that the GPU drains; none of them counts.
 *
 * <p>Measured from the game's first frame to the end of the run (what runs before the game starts, the BE jobs
 * alone, is no co-location): BE throughput per Eq. 6 (solo durations of the BE kernels completed, per type, per
 * emulated second: ms/s, 1,000 being a whole GPU's worth of solo work), frames rendered, QoS violations (frames rendered after their
 * plan's deadline, the next frame's nominal start) and the frame times behind the average and 99th-percentile FPS:
 * a frame takes its 1/fps period, or longer when it rendered later than a period after its nominal start (the
 * paper gives no definition of its "99%-ile FPS"; this one is 120 for a game that misses no frame).
 */
public final class SpaceScheduler extends AbstractBehavior<Command> {
  private static final Object FRAME_DUE = "frame-due";

  private record Held(GpuWork work, KernelSpec kernel, long atNanos) {}

  private static final class FrameState {
    final long index;
    final FramePlan plan;
    final ArrayDeque<Held> kernels = new ArrayDeque<>();
    boolean started;
    boolean cdStarted;
    boolean rtStarted;
    int completed;
    int expected = -1;
    long lastFinish;
    /** The layout that suspended the BE group for this frame, or -1. */
    long suspendedBy = -1;

    FrameState(long index, FramePlan plan) {
      this.index = index;
      this.plan = plan;
    }
  }

  private final SpacePolicy policy;
  private final int totalSms;
  private final int gameVgpu;
  private final ComboGame.SceneTrace scenes;
  private final long periodNanos;
  private final RunContext run;
  private final TimerScheduler<Command> timers;
  private final ActorRef<MetricsHub.Command> metrics;
  private final Map<Integer, ActorRef<GpuScheduler.Dispatch>> vgpus = new HashMap<>();
  private final TreeMap<Long, FrameState> frames = new TreeMap<>();
  /** Kernel counts of Presents that came before their frame's first kernel. */
  private final Map<Long, Integer> presented = new HashMap<>();
  private final Map<Long, FrameState> renderOf = new HashMap<>();
  private final Map<Long, BeKernel> beQueued = new HashMap<>();
  private final Map<Long, Held> beHeld = new HashMap<>();
  private final Set<Long> drained = new HashSet<>();
  /** BE kernels the policy launched and that have not completed. */
  private final Set<Long> launched = new HashSet<>();
  private final BeThroughput throughput = new BeThroughput();
  private final Histogram frameTimes = new Histogram(3);
  /** QoS headrooms in µs: the render stream's idle gap between a frame's end and the next frame's start. */
  private final Histogram headrooms = new Histogram(3);
  private final Map<Scheme, Long> framesByScheme = new EnumMap<>(Scheme.class);
  private ActorRef<PhysicalGpu.Command> gpu;
  private ActorRef<SmGroup.Command> render;
  private ActorRef<SmGroup.Command> be;
  private SmLayout layout;
  private long epoch;
  private boolean renderBusy;
  /** When the render stream's last kernel finished (model time). */
  private long renderFreeAt;
  /** The latest frame whose render kernels started, or {@code Long.MIN_VALUE} before the first. */
  private long lastStarted = Long.MIN_VALUE;
  private Scheme shownScheme;
  private long clock;
  private long token;
  private long endNanos = Long.MAX_VALUE;
  private long dispatched;
  private long framesRendered;
  private long violations;
  private long merged;
  /** When the game's first frame was ready (-1: not yet): BE throughput is measured from then on. */
  private long origin = -1;

  /**
   * A scheduler for {@code policy}, not yet attached: it attaches it to a GPU of {@code totalSms} SMs executing
   * COMBO's co-location table, with the game's frame rate and its Eq. 4 predictor fitted offline on the game.
   */
  public static Behavior<Command> create(SpacePolicy policy, int totalSms, int gameVgpu, ComboGame game,
      long gameSeed, RunContext run, ActorRef<MetricsHub.Command> metrics) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> run.causal(new SpaceScheduler(ctx, policy, totalSms, gameVgpu,
        game, gameSeed, run, metrics, timers))));
  }

  private SpaceScheduler(ActorContext<Command> ctx, SpacePolicy policy, int totalSms, int gameVgpu, ComboGame game,
      long gameSeed, RunContext run, ActorRef<MetricsHub.Command> metrics, TimerScheduler<Command> timers) {
    super(ctx);
    this.policy = policy;
    this.totalSms = totalSms;
    this.gameVgpu = gameVgpu;
    this.scenes = game.scenes(gameSeed);
    this.periodNanos = Math.round(1e9 / game.fps());
    this.run = run;
    this.metrics = metrics;
    this.timers = timers;
    this.layout = new SmLayout.Whole(totalSms);
    policy.attach(new SpaceSetup(totalSms, game.fps(), RenderTimePredictor.fit(game.profile()),
        ColocationTable.combo()));
    shownScheme = policy.scheme();
    metrics.tell(new MetricsHub.Mode(shownScheme.label()));
  }

  @Override public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(GpuScheduler.Groups.class, m -> {
          gpu = m.gpu();
          render = m.render();
          be = m.be();
          return this;
        })
        .onMessage(GpuScheduler.Join.class, m -> {
          vgpus.put(m.params().vgpu(), m.vgpu());
          return this;
        })
        .onMessage(GpuScheduler.Queued.class, this::onQueued)
        .onMessage(GpuScheduler.Presented.class, this::onPresented)
        .onMessage(GpuScheduler.Completed.class, this::onCompleted)
        .onMessage(GpuScheduler.FrameDue.class, this::onFrameDue)
        .onMessage(GpuScheduler.End.class, this::onEnd)
        .onMessage(GpuScheduler.Report.class, this::onReport)
        .onMessage(GpuScheduler.AgentJoin.class, m -> {
          m.agent().tell(new GpuScheduler.SetMode(new PresentMode.PassThrough()));
          return this;
        })
        .onMessage(GpuScheduler.MayPresent.class, m -> {
          m.replyTo().tell(GpuScheduler.PresentAllowed.INSTANCE);
          return this;
        })
        // what time-sharing policies need and space sharing does not
        .onMessage(GpuScheduler.Placement.class, m -> this)
        .onMessage(GpuScheduler.Leave.class, m -> this)
        .onMessage(GpuScheduler.CpuTime.class, m -> this)
        .onMessage(GpuScheduler.MemoryShare.class, m -> this)
        .onMessage(GpuScheduler.AgentReport.class, m -> this)
        .onMessage(GpuScheduler.Begin.class, m -> this)
        .build();
  }

  /** The model time of an event, never before the scheduler's latest (DESIGN.md §4). */
  private long at(long atNanos) {
    clock = run.received(clock, atNanos);
    return clock;
  }

  private Behavior<Command> onQueued(GpuScheduler.Queued msg) {
    long now = at(msg.atNanos());
    Held held = new Held(msg.work(), msg.kernel(), msg.atNanos());
    if (msg.work().vgpu() == gameVgpu) {
      FrameState f = frames.get(msg.frame());
      // planned at the model time its first kernel reached the driver, which the scheduler's clock may have passed
      // while it handled a later-stamped message (the frame's start must not inherit that jitter)
      if (f == null) f = ready(msg.frame(), msg.atNanos());
      f.kernels.add(held);
      renderOf.put(msg.work().id(), f);
    } else if (endNanos != Long.MAX_VALUE) {
      drain(held, now);
    } else {
      BeKernel k = new BeKernel(msg.work().id(), msg.work().vgpu(), msg.kernel().type(), msg.kernel().soloNanos());
      beQueued.put(k.id(), k);
      beHeld.put(k.id(), held);
      policy.beQueued(k, now);
    }
    pumpRender(now);
    decide(now);
    return this;
  }

  /** Frame {@code index}'s first kernel arrived: the policy plans it. */
  private FrameState ready(long index, long now) {
    FramePlan plan = policy.frameReady(index, scenes.scene(index), now);
    FrameState f = new FrameState(index, plan);
    if (origin < 0) origin = plan.nominalStart();
    frames.put(index, f);
    Integer kernels = presented.remove(index);
    if (kernels != null) f.expected = kernels;
    if (plan.merged()) merged++;
    if (plan.scheme() != shownScheme) {
      shownScheme = plan.scheme();
      metrics.tell(new MetricsHub.Mode(shownScheme.label()));
    }
    return f;
  }

  private Behavior<Command> onPresented(GpuScheduler.Presented msg) {
    if (msg.vgpu() != gameVgpu || msg.kernels() == 0) return this;
    FrameState f = frames.get(msg.frame());
    if (f == null) {
      presented.put(msg.frame(), msg.kernels());
      return this;
    }
    f.expected = msg.kernels();
    // the frame's own latest completion, not a message stamp: no message skew to record
    clock = Math.max(clock, f.lastFinish);
    long now = clock;
    if (rendered(f, now)) {
      pumpRender(now);
      decide(now);
    }
    return this;
  }

  private Behavior<Command> onCompleted(GpuScheduler.Completed msg) {
    long now = at(msg.finishedNanos());
    long id = msg.work().id();
    FrameState f = renderOf.remove(id);
    if (f != null) {
      renderBusy = false;
      renderFreeAt = Math.max(renderFreeAt, msg.finishedNanos());
      f.completed++;
      f.lastFinish = msg.finishedNanos();
      rendered(f, now);
    } else if (!drained.remove(id)) {
      BeKernel k = beQueued.remove(id);
      beHeld.remove(id);
      launched.remove(id);
      policy.beFinished(k, now);
      if (origin >= 0 && msg.finishedNanos() >= origin && msg.finishedNanos() <= endNanos) {
        throughput.completed(k.type(), k.soloNanos());
      }
    }
    pumpRender(now);
    decide(now);
    return this;
  }

  private Behavior<Command> onFrameDue(GpuScheduler.FrameDue msg) {
    if (msg.token() != token) return this;
    long now = at(run.fired(msg.due()));
    pumpRender(now);
    decide(now);
    return this;
  }

  /** The frame has rendered when its Present was seen and all its kernels completed; true if it just did. */
  private boolean rendered(FrameState f, long now) {
    if (f.expected < 0 || f.completed < f.expected || !f.kernels.isEmpty()) return false;
    frames.remove(f.index);
    policy.frameRendered(f.index, now);
    long end = f.lastFinish;
    if (f.suspendedBy >= 0) gpu.tell(new PhysicalGpu.ResumeBe(f.suspendedBy, end));
    if (end <= endNanos) {
      framesRendered++;
      if (end > f.plan.deadline()) violations++;
      framesByScheme.merge(f.plan.scheme(), 1L, Long::sum);
      long frameTime = Math.max(periodNanos, end - f.plan.nominalStart());
      frameTimes.recordValue(Math.max(1, frameTime / 1_000));
    }
    return true;
  }

  /** Dispatches the render stream's next kernel if none runs and its frame may start. */
  private void pumpRender(long now) {
    if (renderBusy || render == null) return;
    FrameState f = null;
    for (FrameState candidate : frames.values()) {
      if (!candidate.kernels.isEmpty()) {
        f = candidate;
        break;
      }
    }
    if (f == null) return;
    if (f.plan.startAt() > now) {
      run.arm(timers, FRAME_DUE, new GpuScheduler.FrameDue(++token, f.plan.startAt()), f.plan.startAt());
      return;
    }
    Held h = f.kernels.poll();
    // the stream's next kernel starts on the GPU when its predecessor ends (no host round trip), once the frame may
    // start and the guest has launched it: so its start does not wait for the scheduler's clock (DESIGN.md §4)
    long startAt = Math.max(Math.max(f.plan.startAt(), renderFreeAt), h.atNanos());
    if (!f.started) {
      f.started = true;
      // the previous frame's last kernel was the stream's latest: the gap is the QoS headroom between the two
      if (lastStarted == f.index - 1 && startAt <= endNanos) {
        headrooms.recordValue(Math.max(0, startAt - renderFreeAt) / 1_000);
      }
      lastStarted = f.index;
      if (!f.plan.layout().equals(layout)) {
        layout = f.plan.layout();
        epoch++;
        gpu.tell(new PhysicalGpu.Layout(epoch, renderTarget(), totalSms - renderTarget(), startAt,
            f.plan.suspendBe()));
        if (f.plan.suspendBe()) f.suspendedBy = epoch;
      }
    }
    KernelType type = h.kernel().type();
    if (type == KernelType.CD && !f.cdStarted) {
      f.cdStarted = true;
      policy.renderPhaseStarted(f.index, KernelType.CD, now);
    } else if (type == KernelType.RT && !f.rtStarted) {
      f.rtStarted = true;
      policy.renderPhaseStarted(f.index, KernelType.RT, now);
    }
    int bound = f.plan.binding() == Binding.SM_BOUND ? renderTarget() : 0;
    renderBusy = true;
    send(h, startAt, render, new SmGroup.Bind(epoch, renderTarget(), bound));
  }

  private int renderTarget() {
    return layout instanceof SmLayout.Split s ? s.renderSms() : totalSms;
  }

  /** Asks the policy for BE launches until it is idle. */
  private void decide(long now) {
    if (endNanos != Long.MAX_VALUE || render == null) return;
    while (policy.next(now) instanceof SpaceDecision.Launch launch) {
      Held h = beHeld.get(launch.kernel().id());
      launched.add(launch.kernel().id());
      if (launch.placement() == Placement.WHOLE_GPU) {
        send(h, now, render, new SmGroup.Bind(epoch, renderTarget(), 0));
      } else {
        send(h, now, be, new SmGroup.Bind(epoch, totalSms - renderTarget(), 0));
      }
    }
  }

  private void send(Held h, long now, ActorRef<SmGroup.Command> group, SmGroup.Bind bind) {
    dispatched++;
    vgpus.get(h.work().vgpu()).tell(new GpuScheduler.Dispatch(h.work(), now, group, bind));
  }

  /** After the end: BE kernels go to the render group as they come, so that the GPU drains; none counts. */
  private void drain(Held h, long now) {
    drained.add(h.work().id());
    send(h, now, render, new SmGroup.Bind(epoch, renderTarget(), 0));
  }

  private Behavior<Command> onEnd(GpuScheduler.End msg) {
    long now = at(msg.atNanos());
    endNanos = msg.atNanos();
    // a frame that does not render after the end must not leave BE kernels suspended: the GPU drains
    if (gpu != null) gpu.tell(new PhysicalGpu.ResumeBe(epoch, now));
    List<Long> unlaunched = new ArrayList<>();
    for (Long id : beHeld.keySet()) {
      if (!launched.contains(id)) unlaunched.add(id);
    }
    unlaunched.sort(Long::compare);
    for (Long id : unlaunched) {
      Held h = beHeld.remove(id);
      beQueued.remove(id);
      drain(h, now);
    }
    return this;
  }

  private Behavior<Command> onReport(GpuScheduler.Report msg) {
    List<String> problems = new ArrayList<>(policy.checkInvariants());
    double seconds = endNanos == Long.MAX_VALUE || origin < 0 || endNanos <= origin ? Double.NaN
        : (endNanos - origin) / 1e9;
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
    figures.put("scheme_switches", policy.switches().size());
    msg.replyTo().tell(new GpuScheduler.SchedulerReport(policy.name(), dispatched, problems, List.of(), Map.of(),
        figures));
    return this;
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
