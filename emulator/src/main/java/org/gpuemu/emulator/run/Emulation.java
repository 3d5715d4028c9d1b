package org.gpuemu.emulator.run;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.clock.Timed;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.faults.FaultInjector;
import org.gpuemu.emulator.faults.RequestHistory;
import org.gpuemu.emulator.gpu.GpuMemory;
import org.gpuemu.emulator.gpu.Scheduling;
import org.gpuemu.emulator.host.Host;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.metrics.MetricsPorts;
import org.gpuemu.emulator.vm.VCpu;
import org.gpuemu.emulator.vm.VGpu;
import org.gpuemu.emulator.vm.Vm;

/**
 * The guardian of one run. It builds the tree (fault injector, metrics hub, host), declares emulated time zero
 * when every actor exists, starts each VM at its start time, and at the end stops the guests, lets the GPU drain
 * what they had queued (so every request completes or is reported), and hands the references to the runner.
 */
public final class Emulation extends AbstractBehavior<Emulation.Command> {

  public sealed interface Command {}

  private record HostReady(Host.Refs refs) implements Command {}

  /** Emulated time zero as an event: what starts the run is stamped 0, not the wall time each actor hears of it. */
  private record Began(long due) implements Command, Timed {}

  private record StartVm(int vm, long due) implements Command, Timed {}

  private record StopVm(int vm, long due) implements Command, Timed {}

  /** A vCPU has stopped (of a VM that leaves before the end, or at the end). */
  private record AnyVcpuStopped(VCpu.Stopped stopped) implements Command {}

  /** A vGPU has drained (of a VM that left before the end, or at the end). */
  private record AnyVgpuDrained(VGpu.Drained drained) implements Command {}

  private record EndRun(long due) implements Command, Timed {}

  private record DrainTimedOut(long due) implements Command, Timed {}

  /** The fault injector strikes a fault: routed to the actor its kind hits. */
  private record Struck(FaultInjector.Strike strike) implements Command {}

  /** A fault began or ended: the timeline marks it. */
  private record Windowed(FaultInjector.Window window) implements Command {}

  /** Forwards to the metrics hub: the live view for the progress line. */
  public record Live(ActorRef<MetricsHub.LiveView> replyTo) implements Command {}

  /**
   * From outside the run (unstamped: the live dashboard): apply {@code control} as an event at a model time just
   * after the model's present ({@link Control#after}); {@code replyTo} hears that time, or -1 when the run ends
   * before it.
   */
  public record Request(Control control, ActorRef<Long> replyTo) implements Command {}

  /** The control {@code index} takes effect: its event ({@link ControlDesk}). */
  record Apply(int index, long due) implements Command, Timed {}

  /** The GPU scheduler's answer to a weight or share change. */
  private record Answered(Scheduling.Changed changed) implements Command {}

  /** Every control so far, in the order they were requested (or planned), with what became of each. */
  public record Controls(ActorRef<List<Control.Record>> replyTo) implements Command {}

  /** The vGPUs of the run, for sampling their counters mid-run (a soak); empty before the host is up. */
  public record Vgpus(ActorRef<List<ActorRef<VGpu.Command>>> replyTo) implements Command {}

  /** Every host's references, and every VM's by its index. */
  public record Refs(List<Host.Refs> hosts, List<Vm.Ready> vms) {
    /** The GPU VM {@code vm} runs on. */
    Host.GpuRefs gpuOf(Settings.Vm vm) {
      return hosts.get(vm.host()).gpus().get(vm.gpu());
    }
  }

  /** What the runner gets when the run has ended. */
  public record Ended(Refs refs, ActorRef<MetricsHub.Command> metrics,
      ActorRef<FaultInjector.Command> faults, long endedNanos, boolean drained, long runningWallNanos,
      RequestHistory history) {}

  /** Emulated time the GPU gets after the end to finish what the guests queued. */
  static final long DRAIN_LIMIT_NANOS = 10_000_000_000L;

  private final Settings.Scenario scenario;
  private final RunContext run;
  private final Runnable timeZero;
  private final CompletableFuture<Ended> ended;
  private final TimerScheduler<Command> timers;
  private final ActorRef<MetricsHub.Command> metrics;
  private final ActorRef<FaultInjector.Command> faults;
  /** Every guest request of the run, by id: the checker's record. */
  private final RequestHistory history;
  private Refs refs;
  private final java.util.TreeMap<Integer, Host.Refs> hostsReady = new java.util.TreeMap<>();
  private final java.util.Map<Integer, Integer> leaving = new java.util.HashMap<>();
  private final java.util.Set<Integer> drainingToLeave = new java.util.HashSet<>();
  private final java.util.Set<Integer> endAwaitsLeave = new java.util.HashSet<>();
  private final ActorRef<VCpu.Stopped> stoppedAdapter;
  private final ActorRef<VGpu.Drained> drainedAdapter;
  private int awaiting;
  private long endedAt = -1;
  private final ControlDesk desk;

  /**
   * What a run's guardian is given: the scenario and the run's context, where the timeline goes and who sees its rows
   * ({@code tap}), what to run at time zero ({@code timeZero}: the clock's start) and what to complete at the end;
   * {@code planned} controls are applied at their model times (a replay), and {@code onControlled} hears each
   * control's record once it has taken effect (on the dispatcher's thread: it must not block); {@code history},
   * every guest request (a soak reads its counts live).
   */
  public record Setup(Settings.Scenario scenario, RunContext run, Path timeline, MetricsHub.TimelineTap tap,
      Runnable timeZero, CompletableFuture<Ended> ended, List<Control.Planned> planned,
      java.util.function.Consumer<Control.Record> onControlled, RequestHistory history) {}

  /** The run's guardian, as {@code setup} says. */
  public static Behavior<Command> create(Setup setup) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> setup.run().causal(new Emulation(ctx, setup,
        timers))));
  }

  private Emulation(ActorContext<Command> ctx, Setup setup, TimerScheduler<Command> timers) {
    super(ctx);
    Settings.Scenario scenario = setup.scenario();
    RunContext run = setup.run();
    this.scenario = scenario;
    this.run = run;
    this.timeZero = setup.timeZero();
    this.ended = setup.ended();
    this.timers = timers;
    stoppedAdapter = ctx.messageAdapter(VCpu.Stopped.class, AnyVcpuStopped::new);
    drainedAdapter = ctx.messageAdapter(VGpu.Drained.class, AnyVgpuDrained::new);
    List<MetricsHub.VmInfo> infos = scenario.vms().stream().map(vm -> new MetricsHub.VmInfo(vm.index(), vm.name(),
        vm.slaFps(), vm.weight(), scenario.gpuNumber(vm))).toList();
    MetricsPorts ports = new MetricsPorts(run);
    metrics = ctx.spawn(MetricsHub.create(infos, scenario.metricsPeriodNanos(), new MetricsHub.Sink(setup.timeline(),
        setup.tap()), run, ports, !scenario.faults().isEmpty()), "metrics");
    faults = ctx.spawn(FaultInjector.create(scenario.faults(), run,
        ctx.messageAdapter(FaultInjector.Strike.class, Struck::new),
        ctx.messageAdapter(FaultInjector.Window.class, Windowed::new)), "faults");
    this.history = setup.history();
    desk = new ControlDesk(setup, timers, faults, metrics, ctx.messageAdapter(Scheduling.Changed.class,
        Answered::new));
    ActorRef<Host.Refs> hostReady = ctx.messageAdapter(Host.Refs.class, HostReady::new);
    for (int h = 0; h < scenario.hosts().size(); h++) {
      ctx.spawn(Host.create(scenario, h, run, new Host.Reporting(metrics, ports), history, hostReady),
          scenario.hosts().get(h).actorName());
    }
  }

  @Override public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(HostReady.class, this::onHostReady)
        .onMessage(Began.class, this::onBegan)
        .onMessage(StartVm.class, this::onStartVm)
        .onMessage(StopVm.class, this::onStopVm)
        .onMessage(AnyVcpuStopped.class, this::onAnyVcpuStopped)
        .onMessage(AnyVgpuDrained.class, this::onAnyVgpuDrained)
        .onMessage(EndRun.class, this::onEndRun)
        .onMessage(DrainTimedOut.class, this::onDrainTimedOut)
        .onMessage(Live.class, this::onLive)
        .onMessage(Vgpus.class, this::onVgpus)
        .onMessage(Struck.class, this::onStruck)
        .onMessage(Windowed.class, m -> {
          FaultInjector.Window w = m.window();
          metrics.tell(new MetricsHub.FaultWindow(w.fault(), w.label(), w.atNanos(), w.began()));
          return Behaviors.same();
        })
        .onMessage(Request.class, this::onRequest)
        .onMessage(Apply.class, this::onApply)
        .onMessage(Answered.class, this::onAnswered)
        .onMessage(Controls.class, this::onControls)
        .build();
  }

  private Behavior<Command> onHostReady(HostReady msg) {
    hostsReady.put(msg.refs().host(), msg.refs());
    if (hostsReady.size() < scenario.hosts().size()) return Behaviors.same();
    java.util.TreeMap<Integer, Vm.Ready> vms = new java.util.TreeMap<>();
    for (Host.Refs h : hostsReady.values()) for (Vm.Ready vm : h.vms()) vms.put(vm.vm(), vm);
    refs = new Refs(List.copyOf(hostsReady.values()), List.copyOf(vms.values()));
    timeZero.run();
    run.arm(timers, "began", new Began(0), 0);
    return Behaviors.same();
  }

  /**
   * Time zero, handled as a timer due at 0 (the causal order): the schedulers' and VMs' starts carry model time 0 and
   * the causal order of the event that sent them, so every VM starts at exactly 0 whichever hears of it first.
   */
  private Behavior<Command> onBegan(Began msg) {
    run.fired(msg.due());
    metrics.tell(MetricsHub.Begin.INSTANCE);
    if (!scenario.faults().isEmpty()) faults.tell(FaultInjector.Begin.INSTANCE);
    for (Host.Refs h : refs.hosts()) {
      for (Host.GpuRefs g : h.gpus()) {
        g.scheduler().tell(Scheduling.Begin.INSTANCE);
        g.memory().tell(new GpuMemory.Begin(scenario.hosts().get(h.host()).cores(), metrics));
      }
    }
    for (Settings.Vm vm : scenario.vms()) {
      if (vm.startDelayNanos() == 0) {
        startVm(vm.index());
      } else {
        run.arm(timers, "start-" + vm.index(), new StartVm(vm.index(), vm.startDelayNanos()), vm.startDelayNanos());
      }
    }
    run.arm(timers, "end", new EndRun(scenario.durationNanos()), scenario.durationNanos());
    desk.armPlanned();
    return Behaviors.same();
  }

  private Behavior<Command> onStartVm(StartVm msg) {
    run.fired(msg.due());
    startVm(msg.vm());
    return Behaviors.same();
  }

  private void startVm(int index) {
    for (ActorRef<VCpu.Command> vcpu : refs.vms().get(index).vcpus()) vcpu.tell(VCpu.Start.INSTANCE);
    Settings.Vm vm = scenario.vms().get(index);
    if (vm.stopAfterNanos() != Long.MAX_VALUE) {
      long due = vm.startDelayNanos() + vm.stopAfterNanos();
      if (due < scenario.durationNanos()) run.arm(timers, "stop-" + index, new StopVm(index, due), due);
    }
  }

  /** A VM leaves before the end: its vCPUs stop, the GPU finishes what it queued, its vGPU leaves the scheduler. */
  private Behavior<Command> onStopVm(StopVm msg) {
    run.fired(msg.due());
    List<ActorRef<VCpu.Command>> vcpus = refs.vms().get(msg.vm()).vcpus();
    leaving.put(msg.vm(), vcpus.size());
    for (ActorRef<VCpu.Command> vcpu : vcpus) vcpu.tell(new VCpu.Stop(stoppedAdapter));
    return Behaviors.same();
  }

  /**
   * A vCPU stopped: of a VM that leaves before the end (its stop precedes the end in model time), or at the end.
   * One adapter for both: a message adapter per class replaces the previous one, so two VMs leaving at once, or a
   * VM leaving while the run ends, would otherwise have their answers taken for another's.
   */
  private Behavior<Command> onAnyVcpuStopped(AnyVcpuStopped msg) {
    int vm = msg.stopped().vm();
    if (endedAt < 0 && leaving.containsKey(vm)) {
      int left = leaving.merge(vm, -1, Integer::sum);
      if (left == 0) {
        leaving.remove(vm);
        drainingToLeave.add(vm);
        refs.vms().get(vm).vgpu().tell(new VGpu.Drain(drainedAdapter));
      }
      return Behaviors.same();
    }
    if (--awaiting > 0) return Behaviors.same();
    for (Vm.Ready v : refs.vms()) {
      awaiting++;
      // a vGPU still draining what its leaving VM queued answers that drain, which the end waits for as well
      if (drainingToLeave.contains(v.vm())) {
        endAwaitsLeave.add(v.vm());
      } else {
        v.vgpu().tell(new VGpu.Drain(drainedAdapter));
      }
    }
    return Behaviors.same();
  }

  /** A vGPU drained: of a VM that left (it leaves the scheduler), or at the end (and then maybe of both). */
  private Behavior<Command> onAnyVgpuDrained(AnyVgpuDrained msg) {
    int vm = msg.drained().vgpu();
    if (drainingToLeave.remove(vm)) {
      refs.gpuOf(scenario.vms().get(vm)).scheduler().tell(new Scheduling.Leave(vm));
      if (!endAwaitsLeave.remove(vm)) return Behaviors.same();
    }
    if (endedAt >= 0 && --awaiting == 0) finish(true);
    return Behaviors.same();
  }

  private Behavior<Command> onEndRun(EndRun msg) {
    run.causality().gather(); // the end gathers every host: from here no host runs ahead of another
    endedAt = run.fired(msg.due());
    run.disarmAll(timers);
    for (Host.Refs h : refs.hosts()) for (Host.GpuRefs g : h.gpus()) g.scheduler().tell(new Scheduling.End(endedAt));
    for (Vm.Ready vm : refs.vms()) {
      for (ActorRef<VCpu.Command> vcpu : vm.vcpus()) {
        awaiting++;
        vcpu.tell(new VCpu.Stop(stoppedAdapter));
      }
    }
    long limit = endedAt + DRAIN_LIMIT_NANOS;
    run.arm(timers, "drain", new DrainTimedOut(limit), limit);
    return Behaviors.same();
  }

  private Behavior<Command> onDrainTimedOut(DrainTimedOut msg) {
    getContext().getLog().warn("the GPU did not drain within {} s after the end; unfinished requests are reported",
        DRAIN_LIMIT_NANOS / 1_000_000_000L);
    finish(false);
    return Behaviors.same();
  }

  /** A fault reaches what it hits: {@link FaultRouting}. */
  private Behavior<Command> onStruck(Struck msg) {
    FaultRouting.strike(msg.strike(), scenario, refs, metrics);
    return Behaviors.same();
  }

  private Behavior<Command> onRequest(Request msg) {
    msg.replyTo().tell(refs == null || endedAt >= 0 ? -1L : desk.request(msg.control()));
    return Behaviors.same();
  }

  private Behavior<Command> onApply(Apply msg) {
    desk.apply(msg.index(), run.fired(msg.due()), vm -> refs.gpuOf(scenario.vms().get(vm)).scheduler());
    return Behaviors.same();
  }

  private Behavior<Command> onAnswered(Answered msg) {
    desk.answered(msg.changed());
    return Behaviors.same();
  }

  private Behavior<Command> onControls(Controls msg) {
    msg.replyTo().tell(desk.records());
    return Behaviors.same();
  }

  private Behavior<Command> onLive(Live msg) {
    metrics.tell(new MetricsHub.Live(msg.replyTo()));
    return Behaviors.same();
  }

  private Behavior<Command> onVgpus(Vgpus msg) {
    msg.replyTo().tell(refs == null ? List.of() : refs.vms().stream().map(Vm.Ready::vgpu).toList());
    return Behaviors.same();
  }

  private void finish(boolean drained) {
    run.disarmAll(timers);
    run.causality().freeze(); // the actors keep their state at the end for the runner's questions
    // how long the emulated time took in wall time (a measurement, not the model's: the clock is read here only)
    long wall = run.clock().toWallNanos(run.clock().nowNanos());
    ended.complete(new Ended(refs, metrics, faults, endedAt, drained, wall, history));
  }
}
