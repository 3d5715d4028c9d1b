package org.gpuemu.emulator.host;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.faults.RequestHistory;
import org.gpuemu.emulator.cpu.CpuScheduler;
import org.gpuemu.emulator.gpu.GpuMemory;
import org.gpuemu.emulator.gpu.GpuScheduler;
import org.gpuemu.emulator.gpu.PhysicalGpu;
import org.gpuemu.emulator.gpu.PolicyParts;
import org.gpuemu.emulator.gpu.Scheduling;
import org.gpuemu.emulator.gpu.SmGroup;
import org.gpuemu.emulator.gpu.VmcgMeter;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.vm.VCpu;
import org.gpuemu.emulator.vm.VcpuReports;
import org.gpuemu.emulator.vm.Slicer;
import org.gpuemu.emulator.vm.VGpu;
import org.gpuemu.emulator.vm.Vm;
import org.gpuemu.policies.gpu.GpuPolicy;
import org.gpuemu.policies.memory.MemoryPolicy;
import org.gpuemu.policies.spi.PolicyInput;
import org.gpuemu.policies.spi.PolicyKind;
import org.gpuemu.emulator.gpu.SpaceScheduler;
import org.gpuemu.workloads.ComboGame;

/**
 * The host: spawns its cores, the GPU scheduler and the physical GPU, then the VMs once the GPU's units exist,
 * and tells its parent every actor reference the run needs once all VMs are ready.
 */
public final class Host extends AbstractBehavior<Host.Command> {

  public sealed interface Command {}

  private record GpuReady(PhysicalGpu.Ready ready) implements Command {}

  private record VmReady(Vm.Ready ready) implements Command {}

  /** Every reference a run needs for control and reports. */
  public record Refs(List<ActorRef<CpuScheduler.Command>> cores, ActorRef<Scheduling.Command> scheduler,
      List<ActorRef<SmGroup.Command>> smGroups, ActorRef<GpuMemory.Command> memory, List<Vm.Ready> vms) {}

  private final Settings.Scenario scenario;
  private final RunContext run;
  private final ActorRef<MetricsHub.Command> metrics;
  private final ActorRef<Refs> replyTo;
  private final List<ActorRef<CpuScheduler.Command>> cores = new ArrayList<>();
  private final ActorRef<Scheduling.Command> scheduler;
  /** The time-sharing scheduler (null: space sharing) and the parts its policy switches on. */
  private final ActorRef<GpuScheduler.Command> timeSharing;
  private final PolicyParts parts;
  /** The space-sharing scheduler (null: time sharing). */
  private final ActorRef<SpaceScheduler.Command> spaceSharing;
  private final TreeMap<Integer, Vm.Ready> vms = new TreeMap<>();
  private PhysicalGpu.Ready gpu;
  private final VcpuReports reports;
  private final Slicer slicer;
  private final RequestHistory history;

  /** {@code history}: the run's record of every guest request (issue 18's checker). */
  public static Behavior<Command> create(Settings.Scenario scenario, RunContext run,
      ActorRef<MetricsHub.Command> metrics, RequestHistory history, ActorRef<Refs> replyTo) {
    return Behaviors.setup(ctx -> run.causal(new Host(ctx, scenario, run, metrics, history, replyTo)));
  }

  private Host(ActorContext<Command> ctx, Settings.Scenario scenario, RunContext run,
      ActorRef<MetricsHub.Command> metrics, RequestHistory history, ActorRef<Refs> replyTo) {
    super(ctx);
    this.scenario = scenario;
    this.run = run;
    this.metrics = metrics;
    this.history = history;
    this.replyTo = replyTo;
    Settings.PolicyChoice cpu = scenario.cpuPolicy();
    for (int c = 0; c < scenario.host().cores(); c++) {
      // a crashed core's scheduler comes back with a fresh policy from the configuration
      cores.add(ctx.spawn(CpuScheduler.create(c, () -> cpu.create(PolicyKind.CPU), run,
          scenario.host().vcpuSwitchNanos()), "core-" + c));
    }
    Settings.PolicyChoice g = scenario.gpuPolicy();
    Settings.PolicyChoice m = scenario.memoryPolicy();
    MemoryPolicy memoryPolicy = m.create(PolicyKind.MEMORY);
    boolean copiesGtt = m.needs(PolicyInput.GTT_COPIES);
    if (scenario.spaceShared()) {
      Settings.Vm game = gameVm(scenario);
      spaceSharing = ctx.spawn(SpaceScheduler.create(g.create(PolicyKind.SPACE),
          scenario.gpu().sms(), game.index(), (ComboGame) scenario.workload(game.workload()),
          Vm.programSeed(scenario.seed(), game.index()), run, metrics), "gpu-scheduler");
      scheduler = spaceSharing.narrow();
      timeSharing = null;
      parts = PolicyParts.NONE;
    } else {
      GpuPolicy gpuPolicy = g.create(PolicyKind.GPU);
      parts = PolicyParts.of(gpuPolicy, g.spec().inputs());
      // this instance first; after a gpu-scheduler-crash, a fresh one from the configuration
      timeSharing = ctx.spawn(GpuScheduler.create(firstThenFresh(gpuPolicy, () -> g.create(PolicyKind.GPU)),
          p -> PolicyParts.of(p, g.spec().inputs()), run, metrics, List.copyOf(cores),
          vgpuOfVcpu(scenario)), "gpu-scheduler");
      scheduler = timeSharing.narrow();
      spaceSharing = null;
    }
    reports = new VcpuReports(parts.cpuTime(), copiesGtt);
    slicer = parts.slicing() != null ? parts.slicing().slicing()::slice : Slicer.NONE;
    ctx.spawn(PhysicalGpu.create(scenario.gpu(), scenario.spaceShared(), memoryPolicy, copiesGtt, List.copyOf(cores), run,
        ctx.messageAdapter(PhysicalGpu.Ready.class, GpuReady::new)), "gpu");
  }

  private static <P> Supplier<P> firstThenFresh(P first, Supplier<P> fresh) {
    AtomicBoolean given = new AtomicBoolean();
    return () -> given.getAndSet(true) ? fresh.get() : first;
  }

  /** The one VM of a space-shared scenario that runs a game (the loader checked there is exactly one). */
  public static Settings.Vm gameVm(Settings.Scenario scenario) {
    return scenario.vms().stream().filter(vm -> scenario.workload(vm.workload()) instanceof ComboGame)
        .findFirst().orElseThrow(() -> new IllegalStateException("a space-shared scenario needs a game VM"));
  }

  /** Every vCPU's VM (its vGPU) by the vCPU's global index: each VM's vCPUs are numbered on from the previous one's. */
  private static Map<Integer, Integer> vgpuOfVcpu(Settings.Scenario scenario) {
    Map<Integer, Integer> vgpus = new HashMap<>();
    int first = 0;
    for (Settings.Vm vm : scenario.vms()) {
      for (int i = 0; i < vm.vcpus(); i++) vgpus.put(first + i, vm.index());
      first += vm.vcpus();
    }
    return Map.copyOf(vgpus);
  }

  @Override public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(GpuReady.class, this::onGpuReady)
        .onMessage(VmReady.class, this::onVmReady)
        .build();
  }

  private Behavior<Command> onGpuReady(GpuReady msg) {
    gpu = msg.ready();
    boolean space = scenario.spaceShared();
    if (space) spaceSharing.tell(new SpaceScheduler.Groups(gpu.gpu(), gpu.smGroups().get(0), gpu.smGroups().get(1)));
    Vm.Wiring wiring = new Vm.Wiring(cores, scheduler, parts.cpuTime() ? timeSharing.narrow() : null,
        parts.gpuCoscheduled() ? timeSharing.narrow() : null, gpu.smGroups().get(0), gpu.memory(), metrics, reports,
        slicer, space, history, scenario.faults());
    ActorRef<Vm.Ready> vmReady = getContext().messageAdapter(Vm.Ready.class, VmReady::new);
    int firstVcpu = 0;
    for (Settings.Vm vm : scenario.vms()) {
      getContext().spawn(Vm.create(vm, scenario.workload(vm.workload()), firstVcpu, scenario.seed(),
          scenario.durationNanos(), run, wiring,
          vmReady), "vm-" + vm.index());
      if (parts.busAndMemory()) {
        timeSharing.tell(new VmcgMeter.MemoryShare(vm.index(),
            Math.min(1.0, (double) vm.memoryCapBytes() / scenario.gpu().memoryBytes())));
      }
      firstVcpu += vm.vcpus();
    }
    return this;
  }

  private Behavior<Command> onVmReady(VmReady msg) {
    vms.put(msg.ready().vm(), msg.ready());
    if (vms.size() == scenario.vms().size()) {
      replyTo.tell(new Refs(List.copyOf(cores), scheduler, gpu.smGroups(), gpu.memory(), List.copyOf(vms.values())));
    }
    return this;
  }
}
