package org.gpuemu.emulator.vm;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.faults.Crashed;
import org.gpuemu.emulator.faults.FaultInjector;
import org.gpuemu.emulator.faults.RequestHistory;
import org.gpuemu.emulator.gpu.GpuMemory;
import org.gpuemu.emulator.gpu.CoscheduleRouter;
import org.gpuemu.emulator.gpu.Scheduling;
import org.gpuemu.emulator.gpu.VmcgMeter;
import org.gpuemu.emulator.gpu.SmGroup;
import org.gpuemu.emulator.cpu.CpuScheduler;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.metrics.MetricsPorts;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.policies.gpu.VgpuParams;
import org.gpuemu.workloads.Program;
import org.gpuemu.workloads.Workload;

/**
 * A guest VM: its vGPU, its guest agent and its vCPUs, placed on physical cores. The workload's main thread runs
 * on vCPU 0; a multi-threaded workload's other threads ({@code Workload#threads}) on the next vCPUs; the other
 * vCPUs exist but idle, as a single-threaded game leaves them.
 *
 * <p>{@code vm-crash} ({@link Crash}). Effect: the VM's own actor (the VM's control process, as QEMU's
 * main loop beside its vCPU threads) fails and supervision restarts it; its units are kept ({@code withStopChildren
 * (false)}). It is on no request's path, so no guest call waits for it. Recovery: the new incarnation finds its units
 * again among its children ({@code ActorContext.getChild}) and answers for them as before.
 */
public final class Vm {

  public sealed interface Command {}

  /** Asks for the VM's actors again. */
  public record Units(ActorRef<Ready> replyTo) implements Command {}

  /** Fault {@code fault} (vm-crash) at {@code atNanos}: see the class. */
  public record Crash(int fault, long atNanos, ActorRef<FaultInjector.Outcome> outcomes) implements Command {}

  /** Announced to {@code replyTo} once the VM's actors exist. */
  public record Ready(int vm, ActorRef<VGpu.Command> vgpu, List<ActorRef<VCpu.Command>> vcpus,
      ActorRef<GuestAgent.Command> agent, ActorRef<Command> self) {}

  private Vm() {}

  /**
   * Wiring the VM needs from the host; {@code cpuTimes} and {@code coscheduler} are the GPU scheduler's parts that
   * take the vCPUs' CPU time and their coscheduling join, null when the policy does not use them; {@code history}
   * gives every guest request its id and takes its outcome; {@code faults}: the run's, whose message faults give a
   * VM's vCPUs a channel to its vGPU ({@link GuestChannel}); {@code ports}: where its vCPUs, vGPU and agent write
   * their frequent reports to the metrics hub (one port each, made here once, kept across their restarts).
   */
  public record Wiring(List<ActorRef<CpuScheduler.Command>> cores, ActorRef<Scheduling.Command> scheduler,
      ActorRef<VmcgMeter.CpuTime> cpuTimes, ActorRef<CoscheduleRouter.VcpuJoin> coscheduler,
      ActorRef<SmGroup.Command> smGroup, ActorRef<GpuMemory.Command> memory, ActorRef<MetricsHub.Command> metrics,
      MetricsPorts ports, VcpuReports reports, Slicer slicer, boolean reportFrames, RequestHistory history, FaultPlan faults) {}

  /** The seed of the program VM {@code index} runs in a run seeded {@code seed}. */
  public static long programSeed(long seed, int index) {
    return seed + 7919L * index;
  }

  /**
   * A VM as the run places it: its settings, {@code workload} (the scenario's resolution of its workload name), the
   * run-wide number of its first vCPU, and the run's seed (its programs' seeds come from it) and end.
   */
  public record Spec(Settings.Vm vm, Workload workload, int firstVcpu, long seed, long runEndNanos) {}

  /** The VM {@code spec}, wired to the host by {@code w}; {@code replyTo} hears once its actors exist. */
  public static Behavior<Command> create(Spec spec, RunContext run, Wiring w, ActorRef<Ready> replyTo) {
    Settings.Vm vm = spec.vm();
    return run.causal(Crashed.restarting(Behaviors.setup(ctx -> {
      boolean restarted = ctx.getChild("vgpu").isPresent();
      Ready ready = restarted ? found(vm, ctx) : spawn(spec, run, w, ctx);
      if (!restarted) replyTo.tell(ready);
      return Behaviors.receive(Command.class)
          .onMessage(Units.class, m -> {
            m.replyTo().tell(ready);
            return Behaviors.same();
          })
          .onMessage(Crash.class, m -> Crashed.strike("VM " + vm.name(), m.fault(), Math.max(run.now(),
              m.atNanos()), m.outcomes()))
          .build();
    })));
  }

  private static Ready spawn(Spec spec, RunContext run, Wiring w, ActorContext<Command> ctx) {
    Settings.Vm vm = spec.vm();
    VgpuParams params = new VgpuParams(vm.index(), vm.name(), vm.weight(), vm.share(), vm.slaFps());
    ActorRef<VGpu.Command> vgpu = ctx.spawn(VGpu.create(new VGpu.Settings(params, vm.commandBuffer(),
        vm.driverQueue(), vm.stopNanos(spec.runEndNanos()), w.slicer(), w.reportFrames()),
        new VGpu.Peers(w.scheduler(), w.cpuTimes(), w.smGroup(), w.ports().gpuTime(vm.index())), run, w.history()), "vgpu");
    ActorRef<GuestAgent.Command> agent = ctx.spawn(GuestAgent.create(vm, new GuestAgent.Peers(vgpu, w.scheduler(),
        w.ports().presents(vm.index())), run, w.history()), "agent");
    w.memory().tell(new GpuMemory.Join(vm.index(), vm.name(), vm.memoryCapBytes()));
    FaultPlan.Channel channel = w.faults().channelFaulted(vm.name()) ? w.faults().channel() : null;
    List<ActorRef<VCpu.Command>> vcpus = new ArrayList<>();
    for (int i = 0; i < vm.vcpus(); i++) {
      // as in the whole run on a cluster node
      long programSeed = programSeed(spec.seed(), vm.seedIndex()) + 104_729L * i;
      Workload workload = spec.workload();
      Supplier<Program> programs = i < workload.threads() ? () -> workload.start(programSeed) : () -> null;
      VCpu.Peers peers = new VCpu.Peers(w.cores().get(vm.cores().get(i)), vgpu, agent, w.memory(), w.metrics(),
          w.ports().frames(vm.index()), w.coscheduler());
      vcpus.add(ctx.spawn(VCpu.create(new VCpu.Spec(spec.firstVcpu() + i, vm, programs), peers, run, w.reports(),
          w.history(), channel), "vcpu-" + i));
    }
    return new Ready(vm.index(), vgpu, List.copyOf(vcpus), agent, ctx.getSelf());
  }

  /** A restarted VM actor: its units, found among its children. */
  @SuppressWarnings("unchecked")
  private static Ready found(Settings.Vm vm, ActorContext<Command> ctx) {
    List<ActorRef<VCpu.Command>> vcpus = new ArrayList<>();
    for (int i = 0; i < vm.vcpus(); i++) vcpus.add((ActorRef<VCpu.Command>) (ActorRef<?>) ctx.getChild("vcpu-" + i).get());
    return new Ready(vm.index(), (ActorRef<VGpu.Command>) (ActorRef<?>) ctx.getChild("vgpu").get(), List.copyOf(vcpus),
        (ActorRef<GuestAgent.Command>) (ActorRef<?>) ctx.getChild("agent").get(), ctx.getSelf());
  }
}
