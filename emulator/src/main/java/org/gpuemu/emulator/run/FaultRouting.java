package org.gpuemu.emulator.run;

import org.apache.pekko.actor.typed.ActorRef;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.cpu.CpuScheduler;
import org.gpuemu.emulator.faults.FaultInjector;
import org.gpuemu.emulator.gpu.GpuMemory;
import org.gpuemu.emulator.gpu.Scheduling;
import org.gpuemu.emulator.gpu.SmGroup;
import org.gpuemu.emulator.host.Host;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.vm.GuestAgent;
import org.gpuemu.emulator.vm.VCpu;
import org.gpuemu.emulator.vm.VGpu;
import org.gpuemu.emulator.vm.Vm;

/**
 * Where each fault kind strikes: the guardian hands every struck fault here, with the run's actors. What
 * each does and how it heals is written where it is carried out (the actor's class or its faults helper);
 * docs/guides/faults-and-soak.md has the table. Every fault but a hang has its target VM's vGPU watch for the VM's
 * first completed request after the fault: the recovery the injector records.
 */
final class FaultRouting {
  private FaultRouting() {}

  static void strike(FaultInjector.Strike s, Settings.Scenario scenario, Emulation.Refs all,
      ActorRef<MetricsHub.Command> metrics) {
    if (s.fault().kind() == FaultPlan.Kind.NODE_CRASH) return; // never in a node's model: the cluster's coordinator's
    Target t = target(s, scenario, all);
    if (heals(t, scenario) || timed(t, scenario)) return;
    crash(t, scenario, metrics);
    t.watch(t.at()); // restarted at once: recovered at its next completion
  }

  /**
   * A fault's target as the routing needs it: the VM's index, its first vCPU's number on its host (after those of
   * the host's VMs before it), its first core, its host's and GPU's actors (scheduler, SM groups, memory), its own
   * units, and the strike's model time and outcome receiver.
   */
  private record Target(FaultPlan.Fault f, int vm, int firstVcpu, int core, Host.Refs host, Host.GpuRefs gpu,
      Vm.Ready units, long at, ActorRef<FaultInjector.Outcome> outcomes) {
    /** The target's vGPU watches for its first completed request after {@code from}: the fault's recovery. */
    void watch(long from) {
      units.vgpu().tell(new VGpu.Watch(f.id(), from, outcomes));
    }
  }

  private static Target target(FaultInjector.Strike s, Settings.Scenario scenario, Emulation.Refs all) {
    FaultPlan.Fault f = s.fault();
    int vm = 0;
    while (!scenario.vms().get(vm).name().equals(f.target())) vm++;
    Settings.Vm target = scenario.vms().get(vm);
    int firstVcpu = 0;
    for (Settings.Vm other : scenario.vms().subList(0, vm)) {
      if (other.host() == target.host()) firstVcpu += other.vcpus();
    }
    return new Target(f, vm, firstVcpu, target.cores().get(0), all.hosts().get(target.host()), all.gpuOf(target),
        all.vms().get(vm), s.atNanos(), s.outcomes());
  }

  /** The faults that heal after their own time (a hang, a crash with a restart delay, a stall, a reboot). */
  private static boolean heals(Target t, Settings.Scenario scenario) {
    FaultPlan.Fault f = t.f();
    ActorRef<VGpu.Command> vgpu = t.units().vgpu();
    switch (f.kind()) {
      case GPU_HANG -> {
        // the group the target's kernels run on (space sharing: the game's render group, else the BE group)
        t.gpu().smGroups().get(groupOf(scenario, t.vm(), t.gpu())).tell(new SmGroup.Hang(f.id(), t.vm(),
            f.healAfterNanos(), t.at(), t.outcomes()));
        t.watch(-1); // from the reset, which its failures tell
      }
      case VGPU_CRASH -> vgpu.tell(new VGpu.Crash(f.id(), f.healAfterNanos(), t.at(), t.outcomes(), "vgpu-crashed"));
      case VCPU_STALL -> {
        t.host().cores().get(t.core()).tell(new CpuScheduler.Stall(f.id(), t.firstVcpu(), f.healAfterNanos(), t.at(),
            t.outcomes()));
        t.watch(t.at() + f.healAfterNanos());
      }
      case VM_REBOOT -> {
        vgpu.tell(new VGpu.Crash(f.id(), f.healAfterNanos(), t.at(), t.outcomes(), "vm-crashed")); // watches, too
        t.units().agent().tell(new GuestAgent.Reset(t.at(), "vm-crashed"));
        for (ActorRef<VCpu.Command> v : t.units().vcpus()) {
          v.tell(new VCpu.Reboot(f.id(), t.at(), f.healAfterNanos(), null));
        }
        t.gpu().memory().tell(new GpuMemory.Release(t.vm(), t.at()));
      }
      case EMULATOR_STALL, NODE_CRASH -> { } // carried out by the injector itself; a node crash by the coordinator
      default -> {
        return false;
      }
    }
    return true; // a crashed vGPU watches for its own recovery
  }

  /** The faults that last a window and heal at its end (a channel's, a core offline, memory pressure); true if one. */
  private static boolean timed(Target t, Settings.Scenario scenario) {
    FaultPlan.Fault f = t.f();
    long at = t.at();
    long until = at + f.healAfterNanos();
    switch (f.kind()) {
      case MESSAGE_DELAY, MESSAGE_DUPLICATE, MESSAGE_LOSS -> {
        if (!scenario.faults().channelFaulted(f.target())) { // injected from outside: the VM was given no channel
          t.outcomes().tell(new FaultInjector.Healed(f.id(), at));
          t.watch(at);
          return true;
        }
        for (ActorRef<VCpu.Command> v : t.units().vcpus()) v.tell(new VCpu.ChannelFault(f.id(), f.kind(), at, until));
      }
      case CORE_OFFLINE -> {
        int fallback = fallbackCore(scenario, f, t.core());
        if (fallback < 0) { // Linux refuses to take its last online CPU down (kernel/cpu.c, _cpu_down: -EBUSY)
          t.outcomes().tell(new FaultInjector.Healed(f.id(), at));
          t.watch(at);
          return true;
        }
        t.host().cores().get(t.core()).tell(new CpuScheduler.Offline(f.id(), at, until,
            t.host().cores().get(fallback)));
      }
      case MEMORY_PRESSURE -> {
        t.gpu().memory().tell(new GpuMemory.Pressure(f.id(), scenario.faults().pressureBytes(), at, until,
            t.outcomes()));
        t.watch(until);
        return true;
      }
      default -> {
        return false;
      }
    }
    t.outcomes().tell(new FaultInjector.Healed(f.id(), until));
    t.watch(until);
    return true;
  }

  /** The crashes the supervisor restarts at once: each actor kind's. */
  private static void crash(Target t, Settings.Scenario scenario, ActorRef<MetricsHub.Command> metrics) {
    FaultPlan.Fault f = t.f();
    long at = t.at();
    ActorRef<FaultInjector.Outcome> outcomes = t.outcomes();
    switch (f.kind()) {
      case VCPU_CRASH -> t.units().vcpus().get(0).tell(new VCpu.Crash(f.id(), at, outcomes));
      case VM_CRASH -> t.units().self().tell(new Vm.Crash(f.id(), at, outcomes));
      case AGENT_CRASH -> t.units().agent().tell(new GuestAgent.Crash(f.id(), at, outcomes));
      case GPU_SCHEDULER_CRASH -> t.gpu().scheduler().tell(new Scheduling.Crash(f.id(), at, outcomes));
      case CPU_SCHEDULER_CRASH -> t.host().cores().get(t.core()).tell(new CpuScheduler.Crash(f.id(), at, outcomes));
      case SMGROUP_CRASH -> t.gpu().smGroups().get(groupOf(scenario, t.vm(), t.gpu())).tell(new SmGroup.Crash(
          f.id(), at, outcomes));
      case MEMORY_CRASH -> t.gpu().memory().tell(new GpuMemory.Crash(f.id(), at, outcomes));
      case METRICS_CRASH -> metrics.tell(new MetricsHub.Crash(f.id(), at, outcomes));
      default -> throw new IllegalStateException("not a crash: " + f.kind());
    }
  }

  /**
   * Where an offline core's work goes: the first core that is neither it nor offline by another planned core-offline
   * at the same time (Linux's select_fallback_rq takes the first online CPU for a task pinned to a CPU going down; so
   * no two offline cores pass work to each other); -1 when none is left.
   */
  private static int fallbackCore(Settings.Scenario scenario, FaultPlan.Fault f, int core) {
    java.util.Set<Integer> down = new java.util.HashSet<>(java.util.List.of(core));
    for (FaultPlan.Fault g : scenario.faults().faults()) {
      if (g.kind() != FaultPlan.Kind.CORE_OFFLINE || g.id() == f.id() || g.atNanos() > f.atNanos()
          || f.atNanos() >= g.atNanos() + g.healAfterNanos()) continue;
      for (Settings.Vm vm : scenario.vms()) {
        if (vm.name().equals(g.target()) && vm.host() == hostOf(scenario, f)) down.add(vm.cores().get(0));
      }
    }
    Settings.Vm target = scenario.vms().stream().filter(v -> v.name().equals(f.target())).findFirst().orElseThrow();
    for (int c = 0; c < scenario.hosts().get(target.host()).cores(); c++) if (!down.contains(c)) return c;
    return -1;
  }

  private static int hostOf(Settings.Scenario scenario, FaultPlan.Fault f) {
    return scenario.vms().stream().filter(v -> v.name().equals(f.target())).findFirst().orElseThrow().host();
  }

  /** The SM group a VM's kernels run on: time-shared, the one group; space-shared, the game's render group, else BE. */
  private static int groupOf(Settings.Scenario scenario, int vm, Host.GpuRefs refs) {
    if (refs.smGroups().size() == 1) return 0;
    return scenario.vms().get(vm).index() == Host.gameVm(scenario).index() ? 0 : 1;
  }
}
