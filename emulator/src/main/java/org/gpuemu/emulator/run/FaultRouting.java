package org.gpuemu.emulator.run;

import org.apache.pekko.actor.typed.ActorRef;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.cpu.CpuScheduler;
import org.gpuemu.emulator.faults.FaultInjector;
import org.gpuemu.emulator.gpu.SmGroup;
import org.gpuemu.emulator.vm.VGpu;

/** Where the guardian sends a fault the injector fired: the actor of its target VM it strikes, by its kind. */
final class FaultRouting {
  private FaultRouting() {}

  static void strike(Settings.Scenario scenario, Emulation.Refs refs, FaultInjector.Strike s) {
    FaultPlan.Fault f = s.fault();
    int vm = 0;
    while (!scenario.vms().get(vm).name().equals(f.target())) vm++;
    Settings.Vm target = scenario.vms().get(vm);
    int firstVcpu = 0; // its vCPUs' numbers on its host: after those of the host's VMs before it
    for (Settings.Vm other : scenario.vms().subList(0, vm)) if (other.host() == target.host()) firstVcpu += other.vcpus();
    ActorRef<VGpu.Command> vgpu = refs.vms().get(vm).vgpu();
    switch (f.kind()) {
      case GPU_HANG -> {
        refs.gpuOf(target).smGroups().get(0).tell(new SmGroup.Hang(f.id(), vm, f.healAfterNanos(), s.atNanos(), s.outcomes()));
        vgpu.tell(new VGpu.Watch(f.id(), -1, s.outcomes()));
      }
      case VGPU_CRASH -> vgpu.tell(new VGpu.Crash(f.id(), f.healAfterNanos(), s.atNanos(), s.outcomes()));
      case VCPU_STALL -> {
        int core = target.cores().get(0);
        refs.hosts().get(target.host()).cores().get(core).tell(new CpuScheduler.Stall(f.id(), firstVcpu, f.healAfterNanos(), s.atNanos(),
            s.outcomes()));
        vgpu.tell(new VGpu.Watch(f.id(), s.atNanos() + f.healAfterNanos(), s.outcomes()));
      }
      case EMULATOR_STALL -> { } // carried out by the injector itself
      case NODE_CRASH -> { } // never in a node's model: the cluster's coordinator carries it out
    }
  }
}
