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
import org.gpuemu.emulator.metrics.MetricsPorts;
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
 * One host: spawns its cores and, for each of its GPUs, a GPU scheduler and the physical GPU; then the VMs placed on
 * it once their GPU's units exist; and tells its parent every actor reference the run needs once all its VMs are
 * ready. Hosts share nothing: a VM's vCPUs, vGPU and scheduler are all on its host.
 */
public final class Host extends AbstractBehavior<Host.Command> {

  public sealed interface Command {}

  private record GpuReady(PhysicalGpu.Ready ready) implements Command {}

  private record VmReady(Vm.Ready ready) implements Command {}

  /** One GPU's actors: its scheduler, SM groups and memory. */
  public record GpuRefs(ActorRef<Scheduling.Command> scheduler, List<ActorRef<SmGroup.Command>> smGroups,
      ActorRef<GpuMemory.Command> memory) {}

  /** Every reference of one host a run needs for control and reports; {@code vms} in VM index order. */
  public record Refs(int host, List<ActorRef<CpuScheduler.Command>> cores, List<GpuRefs> gpus, List<Vm.Ready> vms) {}

  /** What one GPU of the host runs: the scheduler, the parts its policy switches on, what its vCPUs report. */
  private record Unit(ActorRef<Scheduling.Command> scheduler, ActorRef<GpuScheduler.Command> timeSharing,
      ActorRef<SpaceScheduler.Command> spaceSharing, PolicyParts parts, VcpuReports reports, Slicer slicer) {}

  private final Settings.Scenario scenario;
  private final int index;
  private final Settings.Host host;
  private final List<Settings.Vm> vmsHere;
  private final RunContext run;
  private final ActorRef<MetricsHub.Command> metrics;
  private final MetricsPorts ports;
  private final ActorRef<Refs> replyTo;
  private final List<ActorRef<CpuScheduler.Command>> cores = new ArrayList<>();
  private final List<Unit> units = new ArrayList<>();
  private final PhysicalGpu.Ready[] gpus;
  /** The physical GPUs as spawned, in GPU order: which one a Ready is from (one message adapter per class). */
  private final List<ActorRef<PhysicalGpu.Command>> physical = new ArrayList<>();
  private final TreeMap<Integer, Vm.Ready> vms = new TreeMap<>();
  private int gpusReady;
  private final RequestHistory history;

  /**
   * The host of index {@code index} in {@code scenario}, with the scenario's VMs placed on it; {@code history}: the
   * run's record of every guest request (the checker).
   */
  public static Behavior<Command> create(Settings.Scenario scenario, int index, RunContext run,
      Reporting metrics, RequestHistory history, ActorRef<Refs> replyTo) {
    return Behaviors.setup(ctx -> run.causal(new Host(ctx, scenario, index, run, new Links(metrics, history,
        replyTo))));
  }

  /** The metrics: the hub (the rare reports, as messages) and its ports (the frequent ones, {@link MetricsPorts}). */
  public record Reporting(ActorRef<MetricsHub.Command> hub, MetricsPorts ports) {}

  /** What a host reports to: the metrics, the run's request history, and who hears its {@link Refs}. */
  private record Links(Reporting metrics, RequestHistory history, ActorRef<Refs> replyTo) {}

  private Host(ActorContext<Command> ctx, Settings.Scenario scenario, int index, RunContext run, Links links) {
    super(ctx);
    this.scenario = scenario;
    this.index = index;
    this.host = scenario.hosts().get(index);
    this.vmsHere = scenario.vms().stream().filter(vm -> vm.host() == index).toList();
    this.run = run;
    this.metrics = links.metrics().hub();
    this.ports = links.metrics().ports();
    this.history = links.history();
    this.replyTo = links.replyTo();
    this.gpus = new PhysicalGpu.Ready[host.gpus()];
    Settings.PolicyChoice cpu = scenario.cpuPolicy();
    for (int c = 0; c < host.cores(); c++) {
      // a crashed core's scheduler comes back with a fresh policy from the configuration
      cores.add(ctx.spawn(CpuScheduler.create(c, () -> cpu.create(PolicyKind.CPU), run, host.vcpuSwitchNanos()),
          "core-" + c));
    }
    for (int g = 0; g < host.gpus(); g++) units.add(unit(ctx, g));
  }

  /**
   * GPU {@code g}'s scheduler and physical GPU. The single GPU of a host keeps the names {@code gpu-scheduler} and
   * {@code gpu}; the others get their index ({@code gpu-scheduler-1}, {@code gpu-1}): an actor's name is part of the
   * key that orders simultaneous events, so a scenario of one GPU runs exactly as before many GPUs.
   */
  private Unit unit(ActorContext<Command> ctx, int g) {
    String suffix = g == 0 ? "" : "-" + g;
    Settings.PolicyChoice gc = scenario.gpuPolicy();
    Settings.PolicyChoice m = scenario.memoryPolicy();
    MemoryPolicy memoryPolicy = m.create(PolicyKind.MEMORY);
    boolean copiesGtt = m.needs(PolicyInput.GTT_COPIES);
    Unit unit;
    if (scenario.spaceShared()) {
      Settings.Vm game = gameVm(scenario);
      SpaceScheduler.Sharing sharing = new SpaceScheduler.Sharing(host.gpu().sms(), game.index(),
          (ComboGame) scenario.workload(game.workload()), Vm.programSeed(scenario.seed(), game.seedIndex()));
      ActorRef<SpaceScheduler.Command> space = ctx.spawn(SpaceScheduler.create(gc.create(PolicyKind.SPACE), sharing,
          run, metrics), "gpu-scheduler" + suffix);
      unit = new Unit(space.narrow(), null, space, PolicyParts.NONE, new VcpuReports(false, copiesGtt), Slicer.NONE);
    } else {
      GpuPolicy gpuPolicy = gc.create(PolicyKind.GPU);
      PolicyParts parts = PolicyParts.of(gpuPolicy, gc.spec().inputs());
      // this instance first; after a gpu-scheduler-crash, a fresh one from the configuration
      GpuScheduler.Wiring wiring = new GpuScheduler.Wiring(p -> PolicyParts.of(p, gc.spec().inputs()), metrics,
          List.copyOf(cores), vgpuOfVcpu(g));
      ActorRef<GpuScheduler.Command> time = ctx.spawn(GpuScheduler.create(firstThenFresh(gpuPolicy,
          () -> gc.create(PolicyKind.GPU)), wiring, run), "gpu-scheduler" + suffix);
      unit = new Unit(time.narrow(), time, null, parts, new VcpuReports(parts.cpuTime(), copiesGtt),
          parts.slicing() != null ? parts.slicing().slicing()::slice : Slicer.NONE);
    }
    physical.add(ctx.spawn(PhysicalGpu.create(host.gpuOf(g), scenario.spaceShared(), new PhysicalGpu.Memory(
        memoryPolicy, copiesGtt, List.copyOf(cores)), run, ctx.messageAdapter(PhysicalGpu.Ready.class,
        GpuReady::new)), "gpu" + suffix));
    return unit;
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

  /**
   * The first vCPU number of each VM of the host: the host's VMs' vCPUs are numbered on from the previous VM's (the
   * numbers its cores know them by).
   */
  private Map<Integer, Integer> firstVcpus() {
    Map<Integer, Integer> first = new HashMap<>();
    int next = 0;
    for (Settings.Vm vm : vmsHere) {
      first.put(vm.index(), next);
      next += vm.vcpus();
    }
    return first;
  }

  /** The vCPUs of GPU {@code g}'s VMs by their number on the host, each to its VM (its vGPU). */
  private Map<Integer, Integer> vgpuOfVcpu(int g) {
    Map<Integer, Integer> vgpus = new HashMap<>();
    Map<Integer, Integer> first = firstVcpus();
    for (Settings.Vm vm : vmsHere) {
      if (vm.gpu() != g) continue;
      for (int i = 0; i < vm.vcpus(); i++) vgpus.put(first.get(vm.index()) + i, vm.index());
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
    gpus[physical.indexOf(msg.ready().gpu())] = msg.ready();
    if (++gpusReady < gpus.length) return Behaviors.same();
    for (int g = 0; g < gpus.length; g++) {
      PhysicalGpu.Ready gpu = gpus[g];
      ActorRef<SpaceScheduler.Command> space = units.get(g).spaceSharing();
      if (space != null) space.tell(new SpaceScheduler.Groups(gpu.gpu(), gpu.smGroups().get(0), gpu.smGroups().get(1)));
    }
    if (vmsHere.isEmpty()) {
      reply();
      return Behaviors.same();
    }
    ActorRef<Vm.Ready> vmReady = getContext().messageAdapter(Vm.Ready.class, VmReady::new);
    Map<Integer, Integer> first = firstVcpus();
    for (Settings.Vm vm : vmsHere) {
      Vm.Spec spec = new Vm.Spec(vm, scenario.workload(vm.workload()), first.get(vm.index()), scenario.seed(),
          scenario.durationNanos());
      getContext().spawn(Vm.create(spec, run, wiring(vm.gpu()), vmReady), "vm-" + vm.seedIndex());
      Unit unit = units.get(vm.gpu());
      if (unit.parts().busAndMemory()) {
        unit.timeSharing().tell(new VmcgMeter.MemoryShare(vm.index(),
            Math.min(1.0, (double) vm.memoryCapBytes() / host.gpu().memoryBytes())));
      }
    }
    return Behaviors.same();
  }

  /** What a VM on GPU {@code g} is wired to. */
  private Vm.Wiring wiring(int g) {
    Unit u = units.get(g);
    PhysicalGpu.Ready gpu = gpus[g];
    boolean space = scenario.spaceShared();
    return new Vm.Wiring(cores, u.scheduler(), u.parts().cpuTime() ? u.timeSharing().narrow() : null,
        u.parts().gpuCoscheduled() ? u.timeSharing().narrow() : null, gpu.smGroups().get(0), gpu.memory(), metrics,
        ports, u.reports(), u.slicer(), space, history, scenario.faults());
  }

  private Behavior<Command> onVmReady(VmReady msg) {
    vms.put(msg.ready().vm(), msg.ready());
    if (vms.size() == vmsHere.size()) reply();
    return Behaviors.same();
  }

  private void reply() {
    List<GpuRefs> refs = new ArrayList<>();
    for (int g = 0; g < gpus.length; g++) {
      refs.add(new GpuRefs(units.get(g).scheduler(), gpus[g].smGroups(), gpus[g].memory()));
    }
    replyTo.tell(new Refs(index, List.copyOf(cores), List.copyOf(refs), List.copyOf(vms.values())));
  }
}
