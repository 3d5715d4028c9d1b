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
    FaultPlan.Fault f = s.fault();
    if (f.kind() == FaultPlan.Kind.NODE_CRASH) return; // never in a node's model: the cluster's coordinator's
    int vm = 0;
    while (!scenario.vms().get(vm).name().equals(f.target())) vm++;
    Settings.Vm target = scenario.vms().get(vm);
    int firstVcpu = 0; // its vCPUs' numbers on its host: after those of the host's VMs before it
    for (Settings.Vm other : scenario.vms().subList(0, vm)) if (other.host() == target.host()) firstVcpu += other.vcpus();
    Host.Refs host = all.hosts().get(target.host());
    Host.GpuRefs refs = all.gpuOf(target); // the target's GPU: its scheduler, SM groups and memory
    Vm.Ready units = all.vms().get(vm);
    ActorRef<VGpu.Command> vgpu = units.vgpu();
    long at = s.atNanos();
    ActorRef<FaultInjector.Outcome> outcomes = s.outcomes();
    int core = scenario.vms().get(vm).cores().get(0);
    switch (f.kind()) {
      case GPU_HANG -> {
        // the group the target's kernels run on (space sharing: the game's render group, else the BE group)
        refs.smGroups().get(groupOf(scenario, vm, refs)).tell(new SmGroup.Hang(f.id(), vm, f.healAfterNanos(), at,
            outcomes));
        vgpu.tell(new VGpu.Watch(f.id(), -1, outcomes)); // from the reset, which its failures tell
        return;
      }
      case VGPU_CRASH -> {
        vgpu.tell(new VGpu.Crash(f.id(), f.healAfterNanos(), at, outcomes, "vgpu-crashed"));
        return; // it watches for its own recovery
      }
      case VCPU_STALL -> {
        host.cores().get(core).tell(new CpuScheduler.Stall(f.id(), firstVcpu, f.healAfterNanos(), at, outcomes));
        vgpu.tell(new VGpu.Watch(f.id(), at + f.healAfterNanos(), outcomes));
        return;
      }
      case VM_REBOOT -> {
        vgpu.tell(new VGpu.Crash(f.id(), f.healAfterNanos(), at, outcomes, "vm-crashed")); // watches, too
        units.agent().tell(new GuestAgent.Reset(at, "vm-crashed"));
        for (ActorRef<VCpu.Command> v : units.vcpus()) v.tell(new VCpu.Reboot(f.id(), at, f.healAfterNanos(), null));
        refs.memory().tell(new GpuMemory.Release(vm, at));
        return;
      }
      case MESSAGE_DELAY, MESSAGE_DUPLICATE, MESSAGE_LOSS -> {
        if (!scenario.faults().channelFaulted(f.target())) { // injected from outside: the VM was given no channel
          outcomes.tell(new FaultInjector.Healed(f.id(), at));
          vgpu.tell(new VGpu.Watch(f.id(), at, outcomes));
          return;
        }
        long until = at + f.healAfterNanos();
        for (ActorRef<VCpu.Command> v : units.vcpus()) v.tell(new VCpu.ChannelFault(f.id(), f.kind(), at, until));
        outcomes.tell(new FaultInjector.Healed(f.id(), until));
        vgpu.tell(new VGpu.Watch(f.id(), until, outcomes));
        return;
      }
      case CORE_OFFLINE -> {
        long until = at + f.healAfterNanos();
        int fallback = fallbackCore(scenario, f, core);
        if (fallback < 0) { // Linux refuses to take its last online CPU down (kernel/cpu.c, _cpu_down: -EBUSY)
          outcomes.tell(new FaultInjector.Healed(f.id(), at));
          vgpu.tell(new VGpu.Watch(f.id(), at, outcomes));
          return;
        }
        host.cores().get(core).tell(new CpuScheduler.Offline(f.id(), at, until, host.cores().get(fallback)));
        outcomes.tell(new FaultInjector.Healed(f.id(), until));
        vgpu.tell(new VGpu.Watch(f.id(), until, outcomes));
        return;
      }
      case VCPU_CRASH -> units.vcpus().get(0).tell(new VCpu.Crash(f.id(), at, outcomes));
      case VM_CRASH -> units.self().tell(new Vm.Crash(f.id(), at, outcomes));
      case AGENT_CRASH -> units.agent().tell(new GuestAgent.Crash(f.id(), at, outcomes));
      case GPU_SCHEDULER_CRASH -> refs.scheduler().tell(new Scheduling.Crash(f.id(), at, outcomes));
      case CPU_SCHEDULER_CRASH -> host.cores().get(core).tell(new CpuScheduler.Crash(f.id(), at, outcomes));
      case SMGROUP_CRASH -> refs.smGroups().get(groupOf(scenario, vm, refs)).tell(new SmGroup.Crash(f.id(), at,
          outcomes));
      case MEMORY_CRASH -> refs.memory().tell(new GpuMemory.Crash(f.id(), at, outcomes));
      case MEMORY_PRESSURE -> {
        long until = at + f.healAfterNanos();
        refs.memory().tell(new GpuMemory.Pressure(f.id(), scenario.faults().pressureBytes(), at, until, outcomes));
        vgpu.tell(new VGpu.Watch(f.id(), until, outcomes));
        return;
      }
      case METRICS_CRASH -> metrics.tell(new MetricsHub.Crash(f.id(), at, outcomes));
      case EMULATOR_STALL, NODE_CRASH -> {
        return; // carried out by the injector itself; a node crash by the cluster's coordinator
      }
    }
    vgpu.tell(new VGpu.Watch(f.id(), at, outcomes)); // restarted at once: recovered at its next completion
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
