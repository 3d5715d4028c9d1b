package org.gpuemu.emulator.gpu;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.cpu.CpuScheduler;
import org.gpuemu.emulator.gpu.CpuCentricHook.CpuPicked;
import org.gpuemu.emulator.gpu.VgrisController.AgentReport;
import org.gpuemu.emulator.gpu.VgrisController.PresentWake;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.policies.gpu.GpuPolicy;
import org.gpuemu.policies.gpu.GpuWork;
import org.gpuemu.policies.vgris.AlgorithmSwitch;

/**
 * The parts a time-sharing policy switches on ({@link PolicyParts}), as one {@link GpuScheduler} incarnation owns
 * them: VGRIS's controller, VMCG's meter, FairGV's router, Pegasus's CPU hook, and the guest agents' Present control.
 * Each part's registrations (agents, vCPUs, memory shares) also go to the scheduler's registry, so that a new
 * incarnation after a crash gets them again ({@link #replay}, {@link SchedulerRecovery}).
 */
final class CoreParts {
  final PresentControl agents;
  final VgrisController controller;
  final VmcgMeter meter;
  final CoscheduleRouter router;
  final CpuCentricHook cpuCentric;
  private final SchedulerRecovery.Registry registry;

  /**
   * The scheduler core as its parts see it: the vGPUs that joined it (a live view), its model time for an unstamped
   * question, and the registry its parts' registrations go to, so that they outlive a crash.
   */
  record View(Set<Integer> joined, LongSupplier now, SchedulerRecovery.Registry registry) {}

  CoreParts(PolicyParts needs, GpuScheduler.Wiring wiring, View core, ActorContext<GpuScheduler.Command> ctx,
      TimerScheduler<GpuScheduler.Command> timers, RunContext run) {
    this.registry = core.registry();
    this.controller = needs.presentGate() == null ? null
        : new VgrisController(needs.presentGate(), run, timers, wiring.metrics(), ctx, core);
    this.agents = controller != null ? controller : new PassThroughAgents(core.joined());
    this.meter = needs.meters() ? new VmcgMeter(needs.cpuTimeInput(), needs.busInput(), core.joined()) : null;
    this.router = needs.gpuCoscheduling() == null ? null : new CoscheduleRouter(needs.gpuCoscheduling());
    this.cpuCentric = needs.cpuCoscheduling() == null ? null : new CpuCentricHook(needs.cpuCoscheduling(),
        wiring.cores(), wiring.vgpuOfVcpu(), ctx.messageAdapter(CpuScheduler.SwitchedTo.class, CpuPicked::new));
  }

  /**
   * A part's message, for the parts switched on (a part that is off leaves its messages unhandled); the scheduler
   * itself handles a VGRIS wake-up and a core's pick.
   */
  Behavior<GpuScheduler.Command> route(GpuScheduler.Command msg) {
    if (msg instanceof Scheduling.AgentJoin m) return agents.onAgentJoin(registry.agents.merge(m.vgpu(), m, last()));
    if (msg instanceof Scheduling.MayPresent m) return agents.onMayPresent(m);
    if (msg instanceof AgentReport m && controller != null) return controller.onAgentReport(m);
    if (msg instanceof VmcgMeter.CpuTime m && meter != null) return meter.onCpuTime(m);
    if (msg instanceof VmcgMeter.MemoryShare m && meter != null) {
      return meter.onMemoryShare(registry.memoryShares.merge(m.vgpu(), m, last()));
    }
    if (msg instanceof CoscheduleRouter.VcpuJoin m && router != null) {
      return router.onVcpuJoin(registry.vcpus.merge(m.vcpu(), m, last()));
    }
    return Behaviors.unhandled();
  }

  private static <T> java.util.function.BiFunction<T, T, T> last() {
    return (before, now) -> now;
  }

  /**
   * A new incarnation: the agents, vCPUs and memory shares the dead one had are registered again; each agent hears
   * of the restart, so that one waiting for a Present's permission asks again (the dead one's question was lost).
   */
  void replay() {
    registry.agents.values().forEach(agents::onAgentJoin);
    for (Scheduling.AgentJoin a : registry.agents.values()) a.agent().tell(Scheduling.Restarted.INSTANCE);
    if (router != null) registry.vcpus.values().forEach(router::onVcpuJoin);
    if (meter != null) registry.memoryShares.values().forEach(meter::onMemoryShare);
  }

  void joined(int vgpu) {
    agents.vgpuJoined(vgpu);
    if (meter != null) meter.joined(vgpu);
  }

  /** A request reached the driver: FairGV's router takes it with its vCPU, else the policy. */
  void queued(GpuPolicy policy, GpuWork work, int vcpu, long now) {
    if (router == null || !router.queued(work, vcpu, now)) policy.queued(work, now);
    if (meter != null) meter.queued(work.vgpu());
  }

  void completed(int vgpu, long gpuNanos) {
    if (controller != null) controller.completed(vgpu, gpuNanos);
  }

  /** A second ended at {@code due}: VMCG's measurement, VGRIS's collection; whether the core decides now. */
  boolean secondEnded(long due) {
    if (meter != null) meter.secondEnded();
    if (controller != null) controller.secondEnded(due);
    return controller == null; // VGRIS decides at the agents' reports; VMCG's new measurement may change what runs
  }

  /** The scheduler's final report: the policy's figures and the parts', VGRIS's switches and shares. */
  Scheduling.SchedulerReport report(GpuPolicy policy, long dispatched) {
    List<AlgorithmSwitch> switches = controller == null ? List.of() : controller.switches();
    Map<Integer, Double> shares = controller == null ? Map.of() : controller.shares();
    Map<String, Object> figures = new LinkedHashMap<>(policy.figures());
    if (router != null) router.figures(figures);
    if (cpuCentric != null) cpuCentric.figures(figures);
    return new Scheduling.SchedulerReport(policy.name(), dispatched, policy.checkInvariants(), switches, shares,
        figures);
  }
}
