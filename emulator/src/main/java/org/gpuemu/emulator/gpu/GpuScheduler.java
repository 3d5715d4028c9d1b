package org.gpuemu.emulator.gpu;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.javadsl.AbstractMatchingBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.clock.Timed;
import org.gpuemu.emulator.cpu.CpuScheduler;
import org.gpuemu.emulator.faults.Crashed;
import org.gpuemu.emulator.gpu.CpuCentricHook.CpuPicked;
import org.gpuemu.emulator.gpu.Scheduling.Completed;
import org.gpuemu.emulator.gpu.Scheduling.Dispatch;
import org.gpuemu.emulator.gpu.Scheduling.Join;
import org.gpuemu.emulator.gpu.Scheduling.Leave;
import org.gpuemu.emulator.gpu.Scheduling.Queued;
import org.gpuemu.emulator.gpu.Scheduling.Report;
import org.gpuemu.emulator.gpu.VgrisController.AgentReport;
import org.gpuemu.emulator.gpu.VgrisController.PresentWake;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.policies.gpu.GpuDecision;
import org.gpuemu.policies.gpu.GpuPolicy;

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
 * of the timing that every paper's figures were measured with. A crash: {@link SchedulerRecovery}.
 */
public final class GpuScheduler extends AbstractMatchingBehavior<GpuScheduler.Command> {

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
  private final CoreParts parts;
  private final Map<Integer, Scheduling.VgpuEnd> vgpus = new HashMap<>();
  /** After a crash; what outlives it: what joined, the incarnation, the dispatch count ({@code recovery.held}). */
  private final SchedulerRecovery recovery;
  private long clock;
  private int inflight;
  private long token;

  /**
   * What a scheduler core is wired to: {@code partsOf} gives the parts a policy switches on, {@code metrics} the
   * metrics hub; the host's {@code cores} and {@code vgpuOfVcpu} (every vCPU's vGPU) serve CPU-centric coscheduling.
   */
  public record Wiring(Function<GpuPolicy, PolicyParts> partsOf, ActorRef<MetricsHub.Command> metrics,
      List<ActorRef<CpuScheduler.Command>> cores, Map<Integer, Integer> vgpuOfVcpu) {}

  /** A core for the policy {@code policies} makes (after a crash, a fresh one), wired by {@code wiring}. */
  public static Behavior<Command> create(Supplier<GpuPolicy> policies, Wiring wiring, RunContext run) {
    SchedulerRecovery.Registry registry = new SchedulerRecovery.Registry();
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> run.causal(Crashed.restarting(Behaviors.setup(c ->
        new GpuScheduler(c, policies.get(), wiring, run, timers, registry))))));
  }

  private GpuScheduler(ActorContext<Command> ctx, GpuPolicy policy, Wiring wiring, RunContext run,
      TimerScheduler<Command> timers, SchedulerRecovery.Registry registry) {
    super(ctx);
    this.recovery = new SchedulerRecovery(registry);
    this.policy = policy;
    this.run = run;
    this.timers = timers;
    this.needs = wiring.partsOf().apply(policy);
    this.parts = new CoreParts(needs, wiring, new CoreParts.View(vgpus.keySet(), this::atWallNow, registry), ctx,
        timers, run);
    wiring.metrics().tell(new MetricsHub.Mode(parts.controller != null ? needs.presentGate().algorithm().label()
        : policy.name()));
    if (recovery.restarted()) clock = recovery.rebuild(this::onJoin, parts, needs.perSecond() ? this::armSecond : null);
  }

  private void armSecond(long due) {
    run.arm(timers, SECOND, new SecondEnded(due), due);
  }

  /** The routing table, every request's messages first; the core takes no notice of frames (End, Presented). */
  @Override public Behavior<Command> onMessage(Command msg) {
    if (msg instanceof Queued m) return onQueued(m);
    if (msg instanceof Completed m) return onCompleted(m);
    if (msg instanceof Join m) return onJoin(m);
    if (msg instanceof Leave m) return onLeave(m);
    if (msg instanceof Wake m) return onWake(m);
    if (msg == Scheduling.Begin.INSTANCE) return onBegin();
    if (msg instanceof SecondEnded m) return onSecondEnded(m);
    if (msg instanceof Report m) return onReport(m);
    if (msg instanceof Scheduling.Resynced m) return onResynced(m);
    if (msg instanceof Scheduling.Crash m) return recovery.crash(at(m.atNanos()), m, getContext().getLog());
    if (msg instanceof Scheduling.Change m) return onChange(m);
    if (msg instanceof Scheduling.End || msg instanceof Scheduling.Presented) return this;
    if (msg instanceof PresentWake m && parts.controller != null) return onPresentWake(m);
    if (msg instanceof CpuPicked m && parts.cpuCentric != null) return onCpuPicked(m);
    return parts.route(msg);
  }

  @Override public Behavior<Command> onSignal(Signal signal) {
    return signal instanceof PreRestart ? run.disarmAll(timers, this) : Behaviors.unhandled();
  }

  /** The model time of an event stamped {@code atNanos}, never before the scheduler's latest (causal order). */
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
    recovery.held.joins.put(msg.params().vgpu(), msg);
    int vgpu = msg.params().vgpu();
    vgpus.put(vgpu, msg.vgpu());
    policy.addVgpu(msg.params());
    parts.joined(vgpu);
    return Behaviors.same();
  }

  private Behavior<Command> onQueued(Queued msg) {
    if (!recovery.duplicate(msg.work())) queue(msg);
    return Behaviors.same();
  }

  /** A vGPU's answer to a new incarnation: what it had handed on is queued again, what runs is in flight. */
  private Behavior<Command> onResynced(Scheduling.Resynced msg) {
    recovery.resynced(msg).forEach(this::queue);
    inflight += msg.running().size();
    decide(at(run.now()));
    return Behaviors.same();
  }

  private void queue(Queued msg) {
    long now = at(msg.atNanos());
    parts.queued(policy, msg.work(), msg.vcpu(), now);
    decide(now);
  }

  private Behavior<Command> onCompleted(Completed msg) {
    long now = at(msg.finishedNanos());
    if (msg.epoch() != recovery.held.epoch) { // a dead incarnation's dispatch: not the new policy's to account
      if (recovery.orphanCompleted(msg.work())) inflight--;
    } else {
      inflight--;
      parts.completed(msg.work().vgpu(), msg.gpuNanos());
      policy.completed(msg.work(), msg.gpuNanos(), now);
    }
    decide(now);
    return Behaviors.same();
  }

  private Behavior<Command> onLeave(Leave msg) {
    recovery.held.joins.remove(msg.vgpu());
    vgpus.remove(msg.vgpu());
    parts.agents.left(msg.vgpu());
    long now = atWallNow();
    policy.removeVgpu(msg.vgpu());
    decide(now);
    return Behaviors.same();
  }

  private Behavior<Command> onChange(Scheduling.Change msg) {
    msg.applyTo(policy, atWallNow());
    decide(clock);
    return Behaviors.same();
  }

  private Behavior<Command> onWake(Wake msg) {
    if (msg.token() == token) decide(at(run.fired(msg.due())));
    return Behaviors.same();
  }

  /** Agents join while the tree is built, before time zero; the clock may be read only from here on. */
  private Behavior<Command> onBegin() {
    recovery.held.begun = true;
    if (needs.perSecond()) armSecond(SECOND_NANOS);
    return Behaviors.same();
  }

  private Behavior<Command> onSecondEnded(SecondEnded msg) {
    long due = run.fired(msg.due());
    boolean decides = parts.secondEnded(due);
    armSecond(due + SECOND_NANOS);
    if (decides) decide(at(due));
    return Behaviors.same();
  }

  private Behavior<Command> onPresentWake(PresentWake msg) {
    parts.controller.releasePresents(at(run.fired(msg.due())));
    return Behaviors.same();
  }

  private Behavior<Command> onCpuPicked(CpuPicked msg) {
    if (!vgpus.containsKey(msg.picked().vgpu())) return Behaviors.same();
    long now = at(msg.picked().atNanos());
    if (parts.cpuCentric.picked(msg.picked().vgpu(), now)) decide(now);
    return Behaviors.same();
  }

  private Behavior<Command> onReport(Report msg) {
    msg.replyTo().tell(parts.report(policy, recovery.held.dispatched));
    return Behaviors.same();
  }

  private void decide(long now) {
    while (true) {
      GpuDecision d = policy.next(now, inflight);
      if (parts.router != null) parts.router.decided();
      if (d instanceof GpuDecision.Dispatch dispatch) {
        inflight++;
        recovery.held.dispatched++;
        vgpus.get(dispatch.work().vgpu()).tell(new Dispatch(dispatch.work(), now, null, null, recovery.held.epoch));
      } else {
        if (d instanceof GpuDecision.WakeAt wake) {
          run.arm(timers, WAKE, new Wake(++token, wake.nanos()), wake.nanos());
        }
        return;
      }
    }
  }
}
