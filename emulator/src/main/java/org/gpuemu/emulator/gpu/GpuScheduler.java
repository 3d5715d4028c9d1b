package org.gpuemu.emulator.gpu;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.clock.Timed;
import org.gpuemu.emulator.cpu.CpuScheduler;
import org.gpuemu.emulator.gpu.CpuCentricHook.CpuPicked;
import org.gpuemu.emulator.gpu.Scheduling.AgentJoin;
import org.gpuemu.emulator.gpu.Scheduling.Completed;
import org.gpuemu.emulator.gpu.Scheduling.Dispatch;
import org.gpuemu.emulator.gpu.Scheduling.Join;
import org.gpuemu.emulator.gpu.Scheduling.Leave;
import org.gpuemu.emulator.gpu.Scheduling.MayPresent;
import org.gpuemu.emulator.gpu.Scheduling.Queued;
import org.gpuemu.emulator.gpu.Scheduling.Report;
import org.gpuemu.emulator.gpu.Scheduling.SchedulerReport;
import org.gpuemu.emulator.gpu.VgrisController.AgentReport;
import org.gpuemu.emulator.gpu.VgrisController.PresentWake;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.policies.gpu.GpuDecision;
import org.gpuemu.policies.gpu.GpuPolicy;
import org.gpuemu.policies.vgris.AlgorithmSwitch;

/**
 * The GPU time-sharing scheduler: a dispatch core around a {@link GpuPolicy}. vGPUs tell it what they queued and
 * what completed ({@link Scheduling}); it asks the policy what to dispatch and tells the owning vGPU to hand that
 * request to its SM group; it arms a timer when the policy wants to be asked again later (a budget refills).
 *
 * <p>Each paper's extras are parts that the policy's needs switch on ({@link PolicyParts}): VGRIS's controller
 * ({@link VgrisController}), VMCG's inputs ({@link VmcgMeter}), FairGV's GPU-centric coscheduling
 * ({@link CoscheduleRouter}) and Pegasus's CPU-centric one ({@link CpuCentricHook}); each brings its own messages,
 * which the routing table takes only when the part is on. The parts are plain objects the core owns and calls, not
 * child actors: a child would add a message hop between an event and the decision that depends on it (a completion
 * and the VGRIS budget, a dispatch and its coscheduling request, a core's switch and the GPU's), and with it a shift
 * of the timing that every paper's figures were measured with.
 */
public final class GpuScheduler extends AbstractBehavior<GpuScheduler.Command> {

  /** The core's protocol: the shared one, each part's messages and the core's timers. */
  public sealed interface Command permits Scheduling.Command, AgentReport, PresentWake, VmcgMeter.CpuTime,
      VmcgMeter.MemoryShare, CoscheduleRouter.VcpuJoin, CpuPicked, Wake, SecondEnded {}

  private record Wake(long token, long due) implements Command, Timed {}

  private record SecondEnded(long due) implements Command, Timed {}

  private static final Object WAKE = "wake";
  private static final Object SECOND = "second";
  private static final long SECOND_NANOS = 1_000_000_000L;

  private final GpuPolicy policy;
  private final RunContext run;
  private final TimerScheduler<Command> timers;
  private final PolicyParts needs;
  private final PresentControl agents;
  private final VgrisController controller;
  private final VmcgMeter meter;
  private final CoscheduleRouter router;
  private final CpuCentricHook cpuCentric;
  private final Map<Integer, ActorRef<Dispatch>> vgpus = new HashMap<>();
  private long clock;
  private int inflight;
  private long dispatched;
  private long token;

  /**
   * A core for {@code policy}; with CPU-centric coscheduling it asks each of {@code cores} to report its switches,
   * {@code vgpuOfVcpu} naming every vCPU's vGPU.
   */
  public static Behavior<Command> create(GpuPolicy policy, PolicyParts needs, RunContext run,
      ActorRef<MetricsHub.Command> metrics, List<ActorRef<CpuScheduler.Command>> cores,
      Map<Integer, Integer> vgpuOfVcpu) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers ->
        run.causal(new GpuScheduler(ctx, policy, needs, run, metrics, timers, cores, vgpuOfVcpu))));
  }

  private GpuScheduler(ActorContext<Command> ctx, GpuPolicy policy, PolicyParts needs, RunContext run,
      ActorRef<MetricsHub.Command> metrics, TimerScheduler<Command> timers,
      List<ActorRef<CpuScheduler.Command>> cores, Map<Integer, Integer> vgpuOfVcpu) {
    super(ctx);
    this.policy = policy;
    this.run = run;
    this.timers = timers;
    this.needs = needs;
    this.controller = needs.presentGate() == null ? null
        : new VgrisController(needs.presentGate(), run, timers, metrics, ctx.getSelf().narrow(), ctx.getLog(),
            vgpus.keySet(), this::atWallNow);
    this.agents = controller != null ? controller : new PassThroughAgents(vgpus.keySet());
    this.meter = needs.meters() ? new VmcgMeter(needs.cpuTimeInput(), needs.busInput(), vgpus.keySet()) : null;
    this.router = needs.gpuCoscheduling() == null ? null : new CoscheduleRouter(needs.gpuCoscheduling());
    this.cpuCentric = needs.cpuCoscheduling() == null ? null : new CpuCentricHook(needs.cpuCoscheduling(), cores,
        vgpuOfVcpu, ctx.messageAdapter(CpuScheduler.SwitchedTo.class, CpuPicked::new));
    metrics.tell(new MetricsHub.Mode(controller != null ? needs.presentGate().algorithm().label() : policy.name()));
  }

  @Override public Receive<Command> createReceive() {
    var routes = newReceiveBuilder()
        .onMessage(Join.class, this::onJoin)
        .onMessage(Queued.class, this::onQueued)
        .onMessage(Completed.class, this::onCompleted)
        .onMessage(Leave.class, this::onLeave)
        .onMessage(Wake.class, this::onWake)
        .onMessage(Scheduling.Begin.class, m -> onBegin())
        .onMessage(SecondEnded.class, this::onSecondEnded)
        .onMessage(Report.class, this::onReport)
        .onMessage(Scheduling.Change.class, this::onChange)
        .onMessage(AgentJoin.class, agents::onAgentJoin)
        .onMessage(MayPresent.class, agents::onMayPresent)
        // the core goes on dispatching what the guests queued until they drain; it takes no notice of frames
        .onMessage(Scheduling.End.class, m -> this)
        .onMessage(Scheduling.Presented.class, m -> this);
    if (controller != null) {
      routes.onMessage(AgentReport.class, controller::onAgentReport).onMessage(PresentWake.class, this::onPresentWake);
    }
    if (meter != null) {
      routes.onMessage(VmcgMeter.CpuTime.class, meter::onCpuTime)
          .onMessage(VmcgMeter.MemoryShare.class, meter::onMemoryShare);
    }
    if (router != null) routes.onMessage(CoscheduleRouter.VcpuJoin.class, router::onVcpuJoin);
    if (cpuCentric != null) routes.onMessage(CpuPicked.class, this::onCpuPicked);
    return routes.build();
  }

  /**
   * The model time of an event stamped {@code atNanos}, never before the scheduler's latest: decisions are taken
   * at the time of the event that caused them, not when its message arrived (DESIGN.md §4).
   */
  private long at(long atNanos) {
    clock = run.received(clock, atNanos);
    return clock;
  }

  /** For an unstamped message: the wall clock's model time, never before the scheduler's latest event. */
  private long atWallNow() {
    clock = Math.max(clock, run.now());
    return clock;
  }

  private Behavior<Command> onJoin(Join msg) {
    int vgpu = msg.params().vgpu();
    vgpus.put(vgpu, msg.vgpu());
    policy.addVgpu(msg.params());
    agents.vgpuJoined(vgpu);
    if (meter != null) meter.joined(vgpu);
    return this;
  }

  private Behavior<Command> onQueued(Queued msg) {
    long now = at(msg.atNanos());
    if (router == null || !router.queued(msg.work(), msg.vcpu(), now)) policy.queued(msg.work(), now);
    if (meter != null) meter.queued(msg.work().vgpu());
    decide(now);
    return this;
  }

  private Behavior<Command> onCompleted(Completed msg) {
    long now = at(msg.finishedNanos());
    inflight--;
    if (controller != null) controller.completed(msg.work().vgpu(), msg.gpuNanos());
    policy.completed(msg.work(), msg.gpuNanos(), now);
    decide(now);
    return this;
  }

  private Behavior<Command> onLeave(Leave msg) {
    vgpus.remove(msg.vgpu());
    agents.left(msg.vgpu());
    long now = atWallNow();
    policy.removeVgpu(msg.vgpu());
    decide(now);
    return this;
  }

  private Behavior<Command> onChange(Scheduling.Change msg) {
    msg.applyTo(policy, atWallNow());
    decide(clock);
    return this;
  }

  private Behavior<Command> onWake(Wake msg) {
    if (msg.token() == token) decide(at(run.fired(msg.due())));
    return this;
  }

  /** Agents join while the tree is built, before time zero; the clock may be read only from here on. */
  private Behavior<Command> onBegin() {
    if (needs.perSecond()) run.arm(timers, SECOND, new SecondEnded(SECOND_NANOS), SECOND_NANOS);
    return this;
  }

  private Behavior<Command> onSecondEnded(SecondEnded msg) {
    long due = run.fired(msg.due());
    if (meter != null) meter.secondEnded();
    if (controller != null) controller.secondEnded(due);
    run.arm(timers, SECOND, new SecondEnded(due + SECOND_NANOS), due + SECOND_NANOS);
    // VGRIS decides at the agents' reports; VMCG's new measurement may change what runs now
    if (controller == null) decide(at(due));
    return this;
  }

  private Behavior<Command> onPresentWake(PresentWake msg) {
    controller.releasePresents(at(run.fired(msg.due())));
    return this;
  }

  private Behavior<Command> onCpuPicked(CpuPicked msg) {
    if (!vgpus.containsKey(msg.picked().vgpu())) return this;
    long now = at(msg.picked().atNanos());
    if (cpuCentric.picked(msg.picked().vgpu(), now)) decide(now);
    return this;
  }

  private Behavior<Command> onReport(Report msg) {
    List<AlgorithmSwitch> switches = controller == null ? List.of() : controller.switches();
    Map<Integer, Double> shares = controller == null ? Map.of() : controller.shares();
    Map<String, Object> figures = new LinkedHashMap<>(policy.figures());
    if (router != null) router.figures(figures);
    if (cpuCentric != null) cpuCentric.figures(figures);
    msg.replyTo().tell(new SchedulerReport(policy.name(), dispatched, policy.checkInvariants(), switches,
        shares, figures));
    return this;
  }

  private void decide(long now) {
    while (true) {
      GpuDecision d = policy.next(now, inflight);
      if (router != null) router.decided();
      if (d instanceof GpuDecision.Dispatch dispatch) {
        inflight++;
        dispatched++;
        vgpus.get(dispatch.work().vgpu()).tell(new Dispatch(dispatch.work(), now));
      } else {
        if (d instanceof GpuDecision.WakeAt wake) {
          run.arm(timers, WAKE, new Wake(++token, wake.nanos()), wake.nanos());
        }
        return;
      }
    }
  }
}
