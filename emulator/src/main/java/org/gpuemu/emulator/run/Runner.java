package org.gpuemu.emulator.run;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.RecipientRef;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.clock.CausalMailbox;
import org.gpuemu.emulator.clock.Causality;
import org.gpuemu.emulator.clock.FidelityMeter;
import org.gpuemu.emulator.clock.HighResScheduler;
import org.gpuemu.emulator.clock.ScaledClock;
import org.gpuemu.emulator.clock.TimerLateness;
import org.gpuemu.emulator.clock.TimerProbe;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.faults.RequestHistory;
import org.gpuemu.emulator.gpu.GpuMemory;
import org.gpuemu.emulator.gpu.Scheduling;
import org.gpuemu.emulator.gpu.SmGroup;
import org.gpuemu.emulator.cpu.CpuScheduler;
import org.gpuemu.emulator.faults.FaultInjector;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.vm.VCpu;
import org.gpuemu.emulator.vm.VcpuReport;
import org.gpuemu.emulator.vm.VGpu;
import org.gpuemu.emulator.vm.Vm;

/**
 * Runs one scenario: starts an actor system with the high-resolution timer, waits for the guardian to end the
 * run, collects every actor's final report and hands them over as {@link RunResult}. Not an actor: it is the
 * boundary between the command line and the emulation.
 */
public final class Runner {
  private static final Duration ASK = Duration.ofSeconds(30);

  private Runner() {}

  /** Pekko settings of a run under the conservative order ({@link #pekkoConfig(Causality.Order)}). */
  public static Config pekkoConfig() {
    return pekkoConfig(Causality.Order.CONSERVATIVE);
  }

  /**
   * Pekko settings every run uses: the high-resolution scheduler, the causal mailbox, and the dispatcher measured
   * best here for the run's order (docs/performance.md): under the conservative order one thread (events of
   * different model times run one after the other whatever the threads, and a second thread only adds hand-offs and
   * contention: 8 VMs of sync-loop ran ~70,000 requests per wall second on one, ~40,000 on two); under the arrival
   * order the fixed 2-thread pool measured best before it. JVM system properties ({@code -Dpekko....}) still
   * override them, for measuring alternatives.
   */
  public static Config pekkoConfig(Causality.Order order) {
    return pekkoConfig(order, 0, List.of());
  }

  /**
   * As {@link #pekkoConfig(Causality.Order)}; when the hosts run apart ({@code fidelity.host-threads} > 0,
   * {@link Causality#partitioned}) each host's actors on a dispatcher thread of their own ({@link HostDispatchers}).
   */
  public static Config pekkoConfig(Causality.Order order, int hostThreads, List<String> hostActors) {
    Config dispatcher = order == Causality.Order.CONSERVATIVE ? HostDispatchers.config(hostThreads, hostActors)
        : TimerProbe.RECOMMENDED_DISPATCHER;
    return ConfigFactory.systemProperties().withFallback(ConfigFactory.parseString("pekko.scheduler.implementation = \"" + HighResScheduler.class.getName() + "\"\n"
            + "pekko.actor.typed.default-mailbox.mailbox-type = \"" + CausalMailbox.class.getName() + "\"")
        .withFallback(dispatcher))
        .withFallback(ConfigFactory.load());
  }

  /**
   * Runs {@code scenario} for at most {@code wallNanos} of wall time (its duration cut to that at its time scale)
   * into a temporary folder, deletes the folder and discards the result. A fresh JVM interprets the actors' code
   * for its first few hundred milliseconds and compiles it while they run, on the same two cores: timers of a run
   * started cold fire milliseconds late in its first second, which is most of a short run's p99. Running the same
   * scenario briefly first has the JIT compile the paths the measured run takes (the same policies, workloads and
   * actors), so that the measured run's lateness is the machine's, not the start-up's. Nothing of the warm-up
   * reaches the measured run: each run starts its own actor system and clock.
   */
  public static void warmUp(Settings.Scenario scenario, long wallNanos) throws Exception {
    long emulated = Math.max(1, Math.min(scenario.durationNanos(), Math.round(wallNanos * scenario.timeScale())));
    Path dir = Files.createTempDirectory("gpuemu-warm-up-");
    try {
      run(scenario.withDuration(emulated), dir, Options.every(1000));
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }

  /**
   * How the outside watches and drives a run. {@code live} is called about every {@code liveEveryMillis} of wall time
   * with the last metrics period's view (for the progress line), including the run's real-time factor and p99 timer
   * lateness since the previous view; {@code started} gets the run's context (its clock and lateness record) before
   * any actor exists, so that a caller can read lateness windows while the run goes on; {@code tap} sees every
   * timeline row as it is written (the live dashboard), without a message to any actor of the run; on each live view
   * {@code sampler} may take a sample, which waits for the view and asks each vGPU for its report; {@code attach}
   * takes the run's session, control records and planned controls. {@code zeroEpochMillis}: the wall instant of
   * model time zero (0: at once), which the nodes of a cluster run share; {@code measured}: whether the run measures
   * its fidelity as it goes (the live views and summary.json's {@code fidelity.progress}); a cluster node does not,
   * and its sampler is handed a bare view every period instead.
   */
  public record Options(Consumer<MetricsHub.LiveView> live, long liveEveryMillis, Consumer<RunContext> started,
      MetricsHub.TimelineTap tap, Sampler sampler, Attach attach, long zeroEpochMillis, boolean measured) {
    /** {@code live} every {@code liveEveryMillis}, nothing else. */
    public static Options every(long liveEveryMillis, Consumer<MetricsHub.LiveView> live) {
      return new Options(live, liveEveryMillis, context -> { }, MetricsHub.TimelineTap.NONE, Sampler.NONE,
          Attach.NONE, 0, true);
    }

    /** Views every {@code liveEveryMillis} that nobody reads: a run watched only for its result. */
    public static Options every(long liveEveryMillis) {
      return every(liveEveryMillis, view -> { });
    }

    /**
     * A cluster node's part: model time zero at the wall instant {@code zeroEpochMillis} (or at once, if that has
     * passed), no fidelity measured as it goes, the sampler (if any) asked every {@code everyMillis}.
     */
    public static Options node(long zeroEpochMillis, long everyMillis) {
      return new Options(view -> { }, everyMillis, context -> { }, MetricsHub.TimelineTap.NONE, Sampler.NONE,
          Attach.NONE, zeroEpochMillis, false);
    }

    public Options withStarted(Consumer<RunContext> started) {
      return new Options(live, liveEveryMillis, started, tap, sampler, attach, zeroEpochMillis, measured);
    }

    public Options withTap(MetricsHub.TimelineTap tap) {
      return new Options(live, liveEveryMillis, started, tap, sampler, attach, zeroEpochMillis, measured);
    }

    public Options withSampler(Sampler sampler) {
      return new Options(live, liveEveryMillis, started, tap, sampler, attach, zeroEpochMillis, measured);
    }

    public Options withAttach(Attach attach) {
      return new Options(live, liveEveryMillis, started, tap, sampler, attach, zeroEpochMillis, measured);
    }
  }

  /**
   * What samples a run while it goes (a soak): asked on every live view whether a sample is due, and if so handed
   * that view with every vGPU's counters and the guests' request counts so far. Called on the runner's thread, never
   * on an actor's.
   */
  public interface Sampler {
    Sampler NONE = new Sampler() {
      @Override public boolean due(long emulatedNanos) {
        return false;
      }

      @Override public void sample(MetricsHub.LiveView view, List<VGpu.VgpuReport> vgpus,
          RequestHistory.Totals requests) { }
    };

    /** Whether a sample is due at this emulated time. */
    boolean due(long emulatedNanos);

    /**
     * One sample: the live view (with its fidelity so far), each vGPU's report so far and the guests' request counts
     * ({@code requests}: also what their channel failed before it reached a vGPU).
     */
    void sample(MetricsHub.LiveView view, List<VGpu.VgpuReport> vgpus, RequestHistory.Totals requests);
  }

  /**
   * A running emulation as the outside sees it (the live dashboard, docs/guides/report-and-dashboard.md). Thread-safe;
   * valid until the run ends.
   */
  public interface Session {
    /**
     * Pauses the model and its clock together (the run's timers, its clock and its causal order at the model's
     * present); returns the model time (ns) it stopped at. A second pause changes nothing.
     */
    long pause();

    /** Resumes a paused run from where it stood; returns how long it stood still (wall ns), 0 if not paused. */
    long resume();

    boolean paused();

    /**
     * Hands {@code control} to the guardian, which applies it as an event just after the model's present; completes
     * with that model time (ns), or -1 when the run ends first.
     */
    CompletionStage<Long> control(Control control);

    /** Why this run cannot be paused (a cluster run: every node has a clock of its own); null when it can. */
    default String pauseRefused() {
      return null;
    }
  }

  /**
   * What the outside attaches to a run: {@code session} gets the run's {@link Session} once its actors exist;
   * {@code controlled} hears each control's record as it takes effect (on a dispatcher thread: it must not block);
   * {@code planned} controls are applied at their model times (a replay of a run that had them).
   */
  public record Attach(Consumer<Session> session, Consumer<Control.Record> controlled, List<Control.Planned> planned) {
    public static final Attach NONE = new Attach(s -> { }, r -> { }, List.of());

    public Attach {
      planned = List.copyOf(planned);
    }
  }

  /** Runs the scenario and returns what it measured, watched and driven as {@code options} say. */
  public static RunResult run(Settings.Scenario scenario, Path outDir, Options options) throws Exception {
    Sampler sampler = options.sampler();
    Started run = start(scenario, outDir, options);
    // from time zero on (on the guardian's thread, as time zero is declared): before it the clock is not started,
    // and a pause would stop a clock about to be reset
    run.begun().thenRun(() -> options.attach().session().accept(run.session()));
    try (FidelityMeter meter = options.measured() ? new FidelityMeter(run.context().lateness()) : null) {
      StallWatch stall = new StallWatch(run.context().causality(), run.session());
      ProgressLog progress = new ProgressLog(run.wallStart());
      while (!run.ended().isDone()) {
        try {
          run.ended().get(options.liveEveryMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
          stall.check();
          CompletableFuture<MetricsHub.LiveView> viewed = meter == null
              ? ask(run.system(), Emulation.Live::new).toCompletableFuture() : measure(run, meter, progress, options);
          if (sampler != Sampler.NONE) sample(run, viewed, sampler);
        }
      }
      Emulation.Ended end = run.ended().get();
      run.context().causality().awaitSettled(ASK.toMillis());
      // a node's pauses are recorded by the cluster's session, not in the part's summary
      return collect(run, end, options.measured() ? run.session().pauses() : List.of(), progress.samples());
    } finally {
      stop(run.system());
    }
  }

  /** One live period of a measured run: its fidelity read, its progress noted, its view handed to {@code live}. */
  private static CompletableFuture<MetricsHub.LiveView> measure(Started run, FidelityMeter meter,
      ProgressLog progress, Options options) {
    FidelityMeter.Reading f = meter.read();
    progress.add(run.context().lateness().reachedNanos(), f, run.session().paused());
    CompletableFuture<MetricsHub.LiveView> viewed = ask(run.system(), Emulation.Live::new)
        .thenApply(view -> view.withFidelity(f.realTimeFactor(), f.p99Micros(),
            liveVerdict(view, run.context(), run.scenario())))
        .toCompletableFuture();
    viewed.thenAccept(options.live());
    return viewed;
  }

  /** A run whose causal order stopped moving: an event counted and never handled (a defect, not bad input). */
  public static final class Stuck extends RuntimeException {
    Stuck(String message) {
      super(message, null, false, false);
    }
  }

  private static void sample(Started run, CompletableFuture<MetricsHub.LiveView> viewed, Sampler sampler)
      throws Exception {
    MetricsHub.LiveView view;
    try {
      view = viewed.get(ASK.toSeconds(), TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      return; // the run ended while it was asked: the final sample is taken from its result
    }
    if (!sampler.due(view.emulatedNanos()) || run.ended().isDone()) return;
    List<VGpu.VgpuReport> reports = new ArrayList<>();
    for (ActorRef<VGpu.Command> vgpu : await(ask(run.system(), Emulation.Vgpus::new))) {
      reports.add(await(ask(run.system(), vgpu, VGpu.Report::new)));
    }
    sampler.sample(view, reports, run.history().snapshot().totals());
  }

  /**
   * The verdict so far, by the rules of the final one ({@link FidelityVerdict}); the unit it sizes violations against is the
   * median of the VMs' frame times in the last period (the final verdict takes the median frame of the whole run),
   * and none when no VM renders frames (the size rule is then applied at the end only).
   */
  static String liveVerdict(MetricsHub.LiveView view, RunContext context, Settings.Scenario scenario) {
    double[] fps = java.util.Arrays.stream(view.fps()).filter(x -> x > 0).sorted().toArray();
    long unit = fps.length == 0 ? Long.MAX_VALUE : Math.round(1e9 / fps[fps.length / 2]);
    FidelityVerdict v = FidelityVerdict.of(context.causality().snapshot(), unit, "median frame", scenario.fidelity(),
        scenario.timeScale());
    return v.faithful() ? "faithful" : "UNFAITHFUL " + v.rule();
  }

  /**
   * Runs the scenario as background load (the bench's "under load" figures) until {@code stop} completes or the
   * scenario ends, whichever comes first, then tears it down without collecting reports. {@code started} gets the
   * run's context before any actor exists, to read its timers' lateness.
   */
  public static void runAsLoad(Settings.Scenario scenario, Path outDir, Consumer<RunContext> started,
      CompletionStage<?> stop) throws Exception {
    Started run = start(scenario, outDir, Options.every(1000).withStarted(started));
    try {
      CompletableFuture.anyOf(run.ended(), stop.toCompletableFuture()).get();
    } finally {
      stop(run.system());
    }
  }

  private record Started(Settings.Scenario scenario, ActorSystem<Emulation.Command> system, RunContext context,
      CompletableFuture<Emulation.Ended> ended, long wallStart, LiveSession session, CompletableFuture<Void> begun,
      RequestHistory history) {}

  /** Starts the run; time zero waits for the wall instant {@code options.zeroEpochMillis()} (0: at once). */
  private static Started start(Settings.Scenario scenario, Path outDir, Options options) throws java.io.IOException {
    Files.createDirectories(outDir);
    ScaledClock clock = new ScaledClock(scenario.timeScale());
    Settings.Fidelity f = scenario.fidelity();
    RunContext context = new RunContext(clock, new TimerLateness(clock), new Causality(clock, f.order(),
        clock.toEmulatedNanos(f.horizonWallNanos()), f.orderSeed()));
    if (f.hostThreads() > 0) {
      context.causality().partitioned(scenario.hosts().stream().map(Settings.Host::actorName).toList());
    }
    options.started().accept(context);
    CompletableFuture<Emulation.Ended> ended = new CompletableFuture<>();
    CompletableFuture<Void> begun = new CompletableFuture<>();
    long wallStart = System.nanoTime();
    long zeroEpochMillis = options.zeroEpochMillis();
    Runnable timeZero = () -> {
      // a cluster node waits for the run's common time zero (a wall instant all nodes were given)
      long wait = zeroEpochMillis - System.currentTimeMillis();
      if (zeroEpochMillis > 0 && wait > 0) java.util.concurrent.locks.LockSupport.parkNanos(wait * 1_000_000L);
      clock.start();
      begun.complete(null);
    };
    RequestHistory history = new RequestHistory(scenario.vms().stream().map(Settings.Vm::name).toList());
    ActorSystem<Emulation.Command> system = ActorSystem.create(
        Emulation.create(new Emulation.Setup(scenario, context, outDir.resolve("timeline.jsonl"), options.tap(),
            timeZero, ended, options.attach().planned(), options.attach().controlled(), history)),
        "emulation", pekkoConfig(f.order(), f.hostThreads(),
            scenario.hosts().stream().map(Settings.Host::actorName).toList()));
    return new Started(scenario, system, context, ended, wallStart, new LiveSession(system, clock,
        context.causality()), begun, history);
  }

  private static void stop(ActorSystem<?> system) throws Exception {
    system.terminate();
    system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  /** Every actor's final report, once the run has ended; {@code pauses}: the session's, which the actors never saw. */
  private static RunResult collect(Started run, Emulation.Ended end, List<Control.Record> pauses,
      List<RunResult.Progress> progress) throws Exception {
    double wallSeconds = (System.nanoTime() - run.wallStart()) / 1e9;
    ActorSystem<Emulation.Command> system = run.system();
    RunContext context = run.context();
    Settings.Scenario scenario = run.scenario();
    List<VGpu.VgpuReport> vgpus = new ArrayList<>();
    List<List<VcpuReport>> vcpus = new ArrayList<>();
    for (Vm.Ready vm : end.refs().vms()) {
      vgpus.add(await(ask(system, vm.vgpu(), VGpu.Report::new)));
      List<VcpuReport> list = new ArrayList<>();
      for (ActorRef<VCpu.Command> v : vm.vcpus()) list.add(await(ask(system, v, VCpu.Report::new)));
      vcpus.add(list);
    }
    List<RunResult.HostResult> hosts = new ArrayList<>();
    for (org.gpuemu.emulator.host.Host.Refs h : end.refs().hosts()) {
      List<CpuScheduler.CoreReport> cores = new ArrayList<>();
      for (ActorRef<CpuScheduler.Command> c : h.cores()) cores.add(await(ask(system, c, CpuScheduler.Report::new)));
      List<RunResult.GpuResult> gpus = new ArrayList<>();
      for (org.gpuemu.emulator.host.Host.GpuRefs g : h.gpus()) {
        List<SmGroup.GroupReport> groups = new ArrayList<>();
        for (ActorRef<SmGroup.Command> sm : g.smGroups()) groups.add(await(ask(system, sm, SmGroup.Report::new)));
        Scheduling.SchedulerReport scheduler = await(ask(system, g.scheduler(), Scheduling.Report::new));
        GpuMemory.MemoryReport memory = await(ask(system, g.memory(), GpuMemory.Report::new));
        gpus.add(new RunResult.GpuResult(groups, scheduler, memory));
      }
      hosts.add(new RunResult.HostResult(scenario.hosts().get(h.host()).name(), cores, gpus));
    }
    MetricsHub.FinalMetrics metrics = await(ask(system, end.metrics(), MetricsHub.Finish::new));
    List<FaultInjector.Record> faults = await(ask(system, end.faults(), FaultInjector.Report::new));
    List<Control.Record> controls = new ArrayList<>(await(ask(system, Emulation.Controls::new)));
    controls.addAll(pauses);
    controls.sort(Comparator.comparingLong(Control.Record::atNanos)); // stable: a pause after a change at its time
    return new RunResult(scenario, end.endedNanos(), wallSeconds, end.drained(), vgpus, vcpus, hosts, metrics,
        context.lateness().snapshot(), context.skew().snapshot(), context.causality().snapshot(), faults,
        end.runningWallNanos() / 1e9, controls, progress, context.lateness().histogram(),
        context.causality().lag().histogram(), end.history().snapshot());
  }

  private static <T, R> CompletionStage<R> ask(ActorSystem<?> system, RecipientRef<T> to,
      Function<ActorRef<R>, T> message) {
    return AskPattern.ask(to, message::apply, ASK, system.scheduler());
  }

  private static <R> CompletionStage<R> ask(ActorSystem<Emulation.Command> system,
      Function<ActorRef<R>, Emulation.Command> message) {
    return AskPattern.ask(system, message::apply, ASK, system.scheduler());
  }

  private static <R> R await(CompletionStage<R> stage) throws Exception {
    return stage.toCompletableFuture().get(ASK.toSeconds(), TimeUnit.SECONDS);
  }
}
