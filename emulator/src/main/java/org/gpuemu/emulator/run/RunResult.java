package org.gpuemu.emulator.run;

import java.util.ArrayList;
import java.util.List;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.clock.Causality;
import org.gpuemu.emulator.clock.TimerLateness;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.gpu.GpuMemory;
import org.gpuemu.emulator.gpu.Scheduling;
import org.gpuemu.emulator.gpu.SmGroup;
import org.gpuemu.emulator.cpu.CpuScheduler;
import org.gpuemu.emulator.faults.FaultInjector;
import org.gpuemu.emulator.faults.RequestHistory;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.vm.VcpuReport;
import org.gpuemu.emulator.vm.VGpu;

/**
 * Every final report of one run, as collected from the actors, with the run's timer lateness and message skew
 * ({@link RunContext#received}), its causal order ({@link Causality}) and what happened to each fault it injected.
 * {@code wallSeconds}: the whole run's wall time, start-up and the collection of reports included;
 * {@code runningWallSeconds}: from time zero to the end of the drain, what the emulated time took (a pause not
 * included); {@code controls}: the changes made to it from outside and its pauses ({@link Control}), in model time;
 * {@code progress}: its real-time factor and timer lateness over wall time; {@code latenessHistogram},
   * {@code lagHistogram}: the timer lateness and the causal order's lag in buckets; {@code history}: every guest
   * request's outcome, by id (the checker's record; empty for hand-made results). {@code hosts}: each host's cores and
   * GPUs in the scenario's host order; the VMs' lists are by VM index.
 */
public record RunResult(Settings.Scenario scenario, long emulatedNanos, double wallSeconds, boolean drained,
    List<VGpu.VgpuReport> vgpus, List<List<VcpuReport>> vcpus, List<HostResult> hosts,
    MetricsHub.FinalMetrics metrics, TimerLateness.Snapshot lateness,
    TimerLateness.Snapshot skew, Causality.Snapshot order, List<FaultInjector.Record> faults,
    double runningWallSeconds, List<Control.Record> controls, List<Progress> progress,
    TimerLateness.Buckets latenessHistogram, TimerLateness.Buckets lagHistogram, RequestHistory.Snapshot history) {

  /**
   * One sample of the run's progress, every live period: {@code wallS} since the run started, {@code emulatedS} the
   * model time its timers had reached, the real-time factor and p99 timer lateness (µs) over the period (NaN, -1:
   * unknown), {@code paused} whether it was paused.
   */
  public record Progress(double wallS, double emulatedS, double realTimeFactor, long latenessP99Us, boolean paused) {}

  /** One host: its cores' reports and its GPUs'. */
  public record HostResult(String name, List<CpuScheduler.CoreReport> cores, List<GpuResult> gpus) {}

  /** One GPU: its SM groups', scheduler's and memory's reports. */
  public record GpuResult(List<SmGroup.GroupReport> smGroups, Scheduling.SchedulerReport scheduler,
      GpuMemory.MemoryReport memory) {}

  /**
   * A result made by hand (tests, golden summaries): the run's scenario, how long it ran and whether it drained, the
   * rest set on the builder; what is not set is empty (no faults, controls, progress, histograms or history) and the
   * running wall time is the whole wall time.
   */
  public static Builder builder(Settings.Scenario scenario, long emulatedNanos, double wallSeconds, boolean drained) {
    return new Builder(scenario, emulatedNanos, wallSeconds, drained);
  }

  /** Builds a {@link RunResult} made by hand ({@link #builder}). */
  public static final class Builder {
    private final Settings.Scenario scenario;
    private final long emulatedNanos;
    private final double wallSeconds;
    private final boolean drained;
    private double runningWallSeconds;
    private List<VGpu.VgpuReport> vgpus = List.of();
    private List<List<VcpuReport>> vcpus = List.of();
    private List<HostResult> hosts = List.of();
    private MetricsHub.FinalMetrics metrics;
    private TimerLateness.Snapshot lateness;
    private TimerLateness.Snapshot skew;
    private Causality.Snapshot order;
    private List<FaultInjector.Record> faults = List.of();
    private List<Control.Record> controls = List.of();
    private List<Progress> progress = List.of();
    private TimerLateness.Buckets latenessHistogram = TimerLateness.Buckets.EMPTY;
    private TimerLateness.Buckets lagHistogram = TimerLateness.Buckets.EMPTY;

    private Builder(Settings.Scenario scenario, long emulatedNanos, double wallSeconds, boolean drained) {
      this.scenario = scenario;
      this.emulatedNanos = emulatedNanos;
      this.wallSeconds = wallSeconds;
      this.drained = drained;
      this.runningWallSeconds = wallSeconds;
    }

    /** The guests' reports: each VM's vGPU and its vCPUs, by VM index. */
    public Builder guests(List<VGpu.VgpuReport> vgpus, List<List<VcpuReport>> vcpus) {
      this.vgpus = vgpus;
      this.vcpus = vcpus;
      return this;
    }

    /** The scenario's one host with one GPU: its cores' reports and the GPU's. */
    public Builder oneGpu(List<CpuScheduler.CoreReport> cores, List<SmGroup.GroupReport> smGroups,
        Scheduling.SchedulerReport scheduler, GpuMemory.MemoryReport memory) {
      this.hosts = List.of(new HostResult(scenario.host().name(), cores,
          List.of(new GpuResult(smGroups, scheduler, memory))));
      return this;
    }

    public Builder metrics(MetricsHub.FinalMetrics metrics) {
      this.metrics = metrics;
      return this;
    }

    /** The timers' lateness, the messages' skew and the causal order. */
    public Builder timing(TimerLateness.Snapshot lateness, TimerLateness.Snapshot skew, Causality.Snapshot order) {
      this.lateness = lateness;
      this.skew = skew;
      this.order = order;
      return this;
    }

    public Builder faults(List<FaultInjector.Record> faults) {
      this.faults = faults;
      return this;
    }

    public Builder runningWallSeconds(double runningWallSeconds) {
      this.runningWallSeconds = runningWallSeconds;
      return this;
    }

    public Builder controls(List<Control.Record> controls) {
      this.controls = controls;
      return this;
    }

    public Builder progress(List<Progress> progress) {
      this.progress = progress;
      return this;
    }

    public Builder histograms(TimerLateness.Buckets latenessHistogram, TimerLateness.Buckets lagHistogram) {
      this.latenessHistogram = latenessHistogram;
      this.lagHistogram = lagHistogram;
      return this;
    }

    public RunResult build() {
      return new RunResult(scenario, emulatedNanos, wallSeconds, drained, vgpus, vcpus, hosts, metrics, lateness,
          skew, order, faults, runningWallSeconds, controls, progress, latenessHistogram, lagHistogram,
          RequestHistory.Snapshot.EMPTY);
    }
  }

  /** The GPU VM {@code vm} ran on. */
  public GpuResult gpuOf(Settings.Vm vm) {
    return hosts.get(vm.host()).gpus().get(vm.gpu());
  }

  /** Every GPU's result, in host then GPU order. */
  public List<GpuResult> allGpus() {
    List<GpuResult> all = new ArrayList<>();
    for (HostResult h : hosts) all.addAll(h.gpus());
    return all;
  }

  /** Every core's report, in host then core order. */
  public List<CpuScheduler.CoreReport> allCores() {
    List<CpuScheduler.CoreReport> all = new ArrayList<>();
    for (HostResult h : hosts) all.addAll(h.cores());
    return all;
  }

  /** Every SM group's report, in host then GPU order. */
  public List<SmGroup.GroupReport> smGroups() {
    List<SmGroup.GroupReport> all = new ArrayList<>();
    for (GpuResult g : allGpus()) all.addAll(g.smGroups());
    return all;
  }

  /** The first GPU's scheduler report: the one GPU of a scenario of one host. */
  public Scheduling.SchedulerReport scheduler() {
    return hosts.get(0).gpus().get(0).scheduler();
  }

  /** The first GPU's memory report: the one GPU of a scenario of one host. */
  public GpuMemory.MemoryReport memory() {
    return hosts.get(0).gpus().get(0).memory();
  }

  /** Every core of the first host (the one host of a scenario with {@code scenario.host}). */
  public List<CpuScheduler.CoreReport> cores() {
    return hosts.get(0).cores();
  }
}
