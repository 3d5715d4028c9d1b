package org.gpuemu.emulator.gpu;

import java.util.HashMap;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.clock.Timed;
import org.gpuemu.emulator.faults.Crashed;
import org.gpuemu.emulator.gpu.RenderFrame.Held;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.policies.combo.BeKernel;
import org.gpuemu.policies.combo.Binding;
import org.gpuemu.policies.combo.ColocationTable;
import org.gpuemu.policies.combo.FramePlan;
import org.gpuemu.policies.combo.Placement;
import org.gpuemu.policies.combo.Scheme;
import org.gpuemu.policies.combo.SpaceDecision;
import org.gpuemu.policies.combo.SpacePolicy;
import org.gpuemu.policies.combo.SpaceSetup;
import org.gpuemu.workloads.ComboGame;
import org.gpuemu.workloads.KernelType;

/**
 * The GPU scheduler of a space-shared GPU (combo.txt §5): a thin adapter that drives a {@link SpacePolicy} exactly
 * as its javadoc's protocol says, with the {@link PhysicalGpu}'s render and BE groups as executors. It speaks the
 * shared {@link Scheduling} protocol, so vGPUs and guest agents do not know which scheduler they talk to, and its
 * own messages beside it; the guest agents pass Present through ({@link PassThroughAgents}).
 *
 * <ul>
 *   <li>The game's requests (one VM, a {@link ComboGame}) are its render kernels, tagged with their frame by the
 *       vGPU. The first one of frame k to arrive makes the frame ready ({@link SpacePolicy#frameReady} with the
 *       scene of frame k of the game's seeded trace); the frame's kernels are held until its plan's start, then its
 *       layout goes to the physical GPU (suspending the BE group's kernels if the plan says so, until the frame has
 *       rendered) and its kernels go, one at a time in order (one CUDA stream), to the render group, SM-bound to
 *       its SMs or unbound ("original") as the plan says. A frame has rendered when the vGPU has reported its
 *       Present and every one of its kernels has completed.
 *   <li>Every other VM is a BE application: each request is a {@link BeKernel} queued with the policy, and each
 *       launch the policy decides goes to the render group (whole GPU, beside the render) or the BE group.
 *   <li>After every event and at a held frame's start the policy is asked for launches until it answers idle.
 * </ul>
 *
 * <p>Interpretations: a render phase "starts executing" when its first kernel is dispatched (the render stream is
 * otherwise idle, so it starts at once unless an SM-bound kernel waits for SMs, Figure 11b); the layout is applied
 * when the frame's first kernel is dispatched, which is its plan's start or, if the previous frame is late, the end
 * of that frame. Once the run has ended the BE kernels still queued are handed to the render group unplanned, so
 * that the GPU drains; none of them counts. Its figures ({@link SpaceFigures}) count from the game's first frame on.
 *
 * <p>{@code gpu-scheduler-crash}: unlike the time-sharing core it is not rebuilt (not done: the policy's frame
 * protocol would have to take frames already under way); the same instance is restarted, so the crash loses only its
 * timer, a held frame's start, which it arms again.
 */
public final class SpaceScheduler extends AbstractBehavior<SpaceScheduler.Command> {

  /** The space scheduler's protocol: the shared one and its own. */
  public sealed interface Command permits Scheduling.Command, Groups, FrameDue {}

  /** The physical GPU and its render and BE groups (before any vGPU joins). */
  public record Groups(ActorRef<PhysicalGpu.Command> gpu, ActorRef<SmGroup.Command> render,
      ActorRef<SmGroup.Command> be) implements Command {}

  /** A held frame may start at emulated time {@code due}. */
  private record FrameDue(long token, long due) implements Command, Timed {}

  private static final Object FRAME_DUE = "frame-due";

  private final SpacePolicy policy;
  private final int totalSms;
  private final int gameVgpu;
  private final ComboGame.SceneTrace scenes;
  private final RunContext run;
  private final TimerScheduler<Command> timers;
  private final ActorRef<MetricsHub.Command> metrics;
  private final Map<Integer, Scheduling.VgpuEnd> vgpus = new HashMap<>();
  private final PresentControl agents = new PassThroughAgents(vgpus.keySet());
  private final SpaceFigures figures;
  private final RenderFrames frames = new RenderFrames();
  private final BeKernels beKernels = new BeKernels();
  /** The physical GPU and its two groups; null before they are known. */
  private Groups groups;
  private final AppliedLayout layout;
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
  /** When the game's first frame was ready (-1: not yet): BE throughput is measured from then on. */
  private long origin = -1;

  /**
   * What a space scheduler shares: a GPU of {@code totalSms} SMs, between best-effort kernels and the game VM whose
   * vGPU is {@code gameVgpu}, running {@code game} from {@code gameSeed}.
   */
  public record Sharing(int totalSms, int gameVgpu, ComboGame game, long gameSeed) {}

  /**
   * A scheduler for {@code policy}, not yet attached: it attaches it to the GPU of {@code sharing} executing COMBO's
   * co-location table, with the game's frame rate and its Eq. 4 predictor fitted offline on the game.
   */
  public static Behavior<Command> create(SpacePolicy policy, Sharing sharing, RunContext run,
      ActorRef<MetricsHub.Command> metrics) {
    // after a crash, the held frame's start, its timer cancelled by the restart, is armed again
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> run.causal(Crashed.restartingSame(c -> new
        SpaceScheduler(c, policy, sharing, run, metrics, timers), s -> s.pumped()))));
  }

  private SpaceScheduler(ActorContext<Command> ctx, SpacePolicy policy, Sharing sharing, RunContext run,
      ActorRef<MetricsHub.Command> metrics, TimerScheduler<Command> timers) {
    super(ctx);
    this.policy = policy;
    int totalSms = sharing.totalSms();
    ComboGame game = sharing.game();
    this.totalSms = totalSms;
    this.gameVgpu = sharing.gameVgpu();
    this.scenes = game.scenes(sharing.gameSeed());
    this.run = run;
    this.metrics = metrics;
    this.timers = timers;
    this.layout = new AppliedLayout(totalSms);
    this.figures = new SpaceFigures(game, totalSms, scenes);
    policy.attach(new SpaceSetup(totalSms, game.fps(), figures.predictor(), ColocationTable.combo()));
    shownScheme = policy.scheme();
    metrics.tell(new MetricsHub.Mode(shownScheme.label()));
  }

  @Override public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Groups.class, this::onGroups)
        .onMessage(Scheduling.Join.class, this::onJoin)
        .onMessage(Scheduling.Queued.class, this::onQueued)
        .onMessage(Scheduling.Presented.class, this::onPresented)
        .onMessage(Scheduling.Completed.class, this::onCompleted)
        .onMessage(FrameDue.class, this::onFrameDue)
        .onMessage(Scheduling.End.class, this::onEnd)
        .onMessage(Scheduling.Report.class, this::onReport)
        .onMessage(Scheduling.AgentJoin.class, agents::onAgentJoin)
        .onMessage(Scheduling.MayPresent.class, agents::onMayPresent)
        .onMessage(Scheduling.Crash.class, m -> Crashed.strike("space scheduler", m.fault(), at(m.atNanos()),
            m.outcomes()))
        .onSignal(PreRestart.class, sig -> run.disarmAll(timers, this))
        // nothing here works per second, a vGPU that left has nothing held here, no resync is asked, and no VM has a
        // weight or share
        .onMessage(Scheduling.Begin.class, m -> this).onMessage(Scheduling.Leave.class, m -> this)
        .onMessage(Scheduling.Resynced.class, m -> this)
        .onMessage(Scheduling.Change.class, m -> m.refuse(policy.name() + " shares the GPU's SMs, by no weight"))
        .build();
  }

  private Behavior<Command> onGroups(Groups msg) {
    groups = msg;
    return Behaviors.same();
  }

  private Behavior<Command> onJoin(Scheduling.Join msg) {
    vgpus.put(msg.params().vgpu(), msg.vgpu());
    agents.vgpuJoined(msg.params().vgpu());
    return Behaviors.same();
  }

  /** The model time of an event, never before the scheduler's latest (docs/concepts/time-and-order.md). */
  private long at(long atNanos) {
    clock = run.received(clock, atNanos);
    return clock;
  }

  private Behavior<Command> onQueued(Scheduling.Queued msg) {
    long now = at(msg.atNanos());
    Held held = new Held(msg.work(), msg.kernel(), msg.atNanos());
    if (msg.work().vgpu() == gameVgpu) {
      RenderFrame f = frames.get(msg.frame());
      // planned at the model time its first kernel reached the driver, which the scheduler's clock may have passed
      // while it handled a later-stamped message (the frame's start must not inherit that jitter)
      if (f == null) f = ready(msg.frame(), msg.atNanos());
      frames.hold(f, held);
    } else if (endNanos != Long.MAX_VALUE) {
      drain(held, now);
    } else {
      policy.beQueued(beKernels.queued(held), now);
    }
    pumpRender(now);
    decide(now);
    return Behaviors.same();
  }

  /** Frame {@code index}'s first kernel arrived: the policy plans it. */
  private RenderFrame ready(long index, long now) {
    FramePlan plan = policy.frameReady(index, scenes.scene(index), now);
    RenderFrame f = new RenderFrame(index, plan);
    if (origin < 0) origin = plan.nominalStart();
    frames.add(f);
    if (plan.merged()) figures.merged();
    if (plan.scheme() != shownScheme) {
      shownScheme = plan.scheme();
      metrics.tell(new MetricsHub.Mode(shownScheme.label()));
    }
    return f;
  }

  private Behavior<Command> onPresented(Scheduling.Presented msg) {
    if (msg.vgpu() != gameVgpu || msg.kernels() == 0) return Behaviors.same();
    RenderFrame f = frames.presented(msg.frame(), msg.kernels());
    if (f == null) return Behaviors.same();
    // the frame's own latest completion, not a message stamp: no message skew to record
    clock = Math.max(clock, f.lastFinish);
    long now = clock;
    if (rendered(f, now)) {
      pumpRender(now);
      decide(now);
    }
    return Behaviors.same();
  }

  private Behavior<Command> onCompleted(Scheduling.Completed msg) {
    long now = at(msg.finishedNanos());
    long id = msg.work().id();
    RenderFrame f = frames.completed(id);
    BeKernel k = f == null ? beKernels.completed(id) : null;
    figures.kernelEnded(id, msg.finishedNanos());
    if (f != null) {
      renderBusy = false;
      renderFreeAt = Math.max(renderFreeAt, msg.finishedNanos());
      f.completed++;
      f.lastFinish = msg.finishedNanos();
      rendered(f, now);
    } else if (k != null) {
      policy.beFinished(k, now);
      if (origin >= 0 && msg.finishedNanos() >= origin && msg.finishedNanos() <= endNanos) {
        figures.beCompleted(msg.work().vgpu(), k.type(), k.soloNanos());
      }
    }
    pumpRender(now);
    decide(now);
    return Behaviors.same();
  }

  private Behavior<Command> onFrameDue(FrameDue msg) {
    if (msg.token() != token) return Behaviors.same();
    long now = at(run.fired(msg.due()));
    pumpRender(now);
    decide(now);
    return Behaviors.same();
  }

  /** The frame has rendered when its Present was seen and all its kernels completed; true if it just did. */
  private boolean rendered(RenderFrame f, long now) {
    if (f.expected < 0 || f.completed < f.expected || !f.kernels.isEmpty()) return false;
    frames.rendered(f);
    policy.frameRendered(f.index, now);
    long end = f.lastFinish;
    if (f.suspendedBy >= 0) groups.gpu().tell(new PhysicalGpu.ResumeBe(f.suspendedBy, end));
    figures.rendered(f, end, end <= endNanos);
    return true;
  }

  /** As {@link #pumpRender} at the scheduler's latest time (a restart), returning itself. */
  private SpaceScheduler pumped() {
    pumpRender(clock);
    return this;
  }

  /** Dispatches the render stream's next kernel if none runs and its frame may start. */
  private void pumpRender(long now) {
    if (renderBusy || groups == null) return;
    drainLayout(now);
    RenderFrame f = frames.next();
    if (f == null) return;
    if (f.plan.startAt() > now) {
      run.arm(timers, FRAME_DUE, new FrameDue(++token, f.plan.startAt()), f.plan.startAt());
      return;
    }
    Held h = f.kernels.poll();
    // the stream's next kernel starts on the GPU when its predecessor ends (no host round trip), once the frame may
    // start and the guest has launched it: so its start does not wait for the scheduler's clock (causal order)
    long startAt = Math.max(Math.max(f.plan.startAt(), renderFreeAt), h.atNanos());
    if (!f.started) {
      f.started = true;
      figures.frameStarted(f, startAt, layout.differs(f.plan.layout()));
      // the previous frame's last kernel was the stream's latest: the gap is the QoS headroom between the two
      if (lastStarted == f.index - 1 && startAt <= endNanos) figures.headroom(startAt - renderFreeAt);
      lastStarted = f.index;
      if (layout.apply(f.plan.layout())) {
        groups.gpu().tell(layout.message(startAt, f.plan.suspendBe()));
        if (f.plan.suspendBe()) f.suspendedBy = layout.epoch();
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
    int bound = f.plan.binding() == Binding.SM_BOUND ? layout.renderSms() : 0;
    renderBusy = true;
    send(h, startAt, groups.render(), new SmGroup.Bind(layout.epoch(), layout.renderSms(), bound));
  }

  /** Asks the policy for BE launches until it is idle. */
  private void decide(long now) {
    if (endNanos != Long.MAX_VALUE || groups == null) return;
    while (policy.next(now) instanceof SpaceDecision.Launch launch) {
      Held h = beKernels.launched(launch.kernel().id(), launch.placement() == Placement.BE_GROUP);
      figures.beLaunched(h.work().id(), launch.placement() == Placement.WHOLE_GPU);
      if (launch.placement() == Placement.WHOLE_GPU) {
        send(h, now, groups.render(), new SmGroup.Bind(layout.epoch(), layout.renderSms(), 0));
      } else {
        send(h, now, groups.be(), new SmGroup.Bind(layout.epoch(), layout.beSms(), 0));
      }
    }
  }

  private void send(Held h, long now, ActorRef<SmGroup.Command> group, SmGroup.Bind bind) {
    dispatched++;
    figures.kernelStarted(h.work().id(), now);
    vgpus.get(h.work().vgpu()).tell(new Scheduling.Dispatch(h.work(), now, group, bind));
  }

  /** After the end, the render stream idle: a stuck BE group gets SMs ({@link AppliedLayout#drain}). */
  private void drainLayout(long now) {
    if (endNanos != Long.MAX_VALUE && beKernels.anyInBeGroup() && layout.drain()) {
      groups.gpu().tell(layout.message(now, false));
    }
  }

  /** After the end: BE kernels go to the render group as they come, so that the GPU drains; none counts. */
  private void drain(Held h, long now) {
    beKernels.drained(h.work().id());
    send(h, now, groups.render(), new SmGroup.Bind(layout.epoch(), layout.renderSms(), 0));
  }

  private Behavior<Command> onEnd(Scheduling.End msg) {
    long now = at(msg.atNanos());
    endNanos = msg.atNanos();
    // a frame that does not render after the end must not leave BE kernels suspended: the GPU drains
    if (groups != null) groups.gpu().tell(new PhysicalGpu.ResumeBe(layout.epoch(), now));
    for (Held h : beKernels.takeUnlaunched()) drain(h, now);
    if (!renderBusy && groups != null) drainLayout(now);
    return Behaviors.same();
  }

  private Behavior<Command> onReport(Scheduling.Report msg) {
    msg.replyTo().tell(figures.report(policy, dispatched, origin, endNanos, gameVgpu));
    return Behaviors.same();
  }
}
