package org.gpuemu.emulator.vm;

import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.gpu.GpuMemory;
import org.gpuemu.emulator.gpu.CoscheduleRouter;
import org.gpuemu.emulator.gpu.Scheduling;
import org.gpuemu.emulator.gpu.VmcgMeter;
import org.gpuemu.emulator.gpu.SmGroup;
import org.gpuemu.emulator.cpu.CpuScheduler;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.policies.gpu.VgpuParams;
import org.gpuemu.workloads.Workload;

/**
 * A guest VM: its vGPU, its guest agent and its vCPUs, placed on physical cores. The workload's main thread runs
 * on vCPU 0; a multi-threaded workload's other threads ({@code Workload#threads}) on the next vCPUs; the other
 * vCPUs exist but idle, as a single-threaded game leaves them.
 */
public final class Vm {

  public sealed interface Command {}

  /** Asks for the VM's actors again. */
  public record Units(ActorRef<Ready> replyTo) implements Command {}

  /** Announced to {@code replyTo} once the VM's actors exist. */
  public record Ready(int vm, ActorRef<VGpu.Command> vgpu, List<ActorRef<VCpu.Command>> vcpus) {}

  private Vm() {}

  /**
   * Wiring the VM needs from the host; {@code cpuTimes} and {@code coscheduler} are the GPU scheduler's parts that
   * take the vCPUs' CPU time and their coscheduling join, null when the policy does not use them.
   */
  public record Wiring(List<ActorRef<CpuScheduler.Command>> cores, ActorRef<Scheduling.Command> scheduler,
      ActorRef<VmcgMeter.CpuTime> cpuTimes, ActorRef<CoscheduleRouter.VcpuJoin> coscheduler,
      ActorRef<SmGroup.Command> smGroup, ActorRef<GpuMemory.Command> memory, ActorRef<MetricsHub.Command> metrics,
      VcpuReports reports, Slicer slicer, boolean reportFrames) {}

  /** The seed of the program VM {@code index} runs in a run seeded {@code seed}. */
  public static long programSeed(long seed, int index) {
    return seed + 7919L * index;
  }

  /** The VM {@code vm}, running {@code workload} (the scenario's resolution of its workload name). */
  public static Behavior<Command> create(Settings.Vm vm, Workload workload, int firstVcpu, long seed,
      long runEndNanos, RunContext run, Wiring w, ActorRef<Ready> replyTo) {
    return Behaviors.setup(ctx -> {
      VgpuParams params = new VgpuParams(vm.index(), vm.name(), vm.weight(), vm.share(), vm.slaFps());
      ActorRef<VGpu.Command> vgpu = ctx.spawn(VGpu.create(params, vm.commandBuffer(), vm.driverQueue(),
          vm.stopNanos(runEndNanos), w.slicer(), w.reportFrames(), run, w.scheduler(), w.cpuTimes(), w.smGroup(),
          w.metrics()),
          "vgpu");
      ActorRef<GuestAgent.Command> agent = ctx.spawn(GuestAgent.create(vm, vgpu, w.scheduler(), run), "agent");
      w.memory().tell(new GpuMemory.Join(vm.index(), vm.name(), vm.memoryCapBytes()));
      List<ActorRef<VCpu.Command>> vcpus = new ArrayList<>();
      for (int i = 0; i < vm.vcpus(); i++) {
        var program = i < workload.threads() ? workload.start(programSeed(seed, vm.seedIndex()) + 104_729L * i) : null;
        vcpus.add(ctx.spawn(VCpu.create(firstVcpu + i, vm, program, run, w.cores().get(vm.cores().get(i)), vgpu,
            agent, w.memory(), w.metrics(), w.reports(), w.coscheduler()), "vcpu-" + i));
      }
      Ready ready = new Ready(vm.index(), vgpu, List.copyOf(vcpus));
      replyTo.tell(ready);
      return Behaviors.receive(Command.class)
          .onMessage(Units.class, m -> {
            m.replyTo().tell(ready);
            return Behaviors.same();
          })
          .build();
    });
  }
}
