package org.gpuemu.emulator.run;

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
 * request's outcome, by id (the checker's record; empty for hand-made results).
 */
public record RunResult(Settings.Scenario scenario, long emulatedNanos, double wallSeconds, boolean drained,
    List<VGpu.VgpuReport> vgpus, List<List<VcpuReport>> vcpus, List<CpuScheduler.CoreReport> cores,
    List<SmGroup.GroupReport> smGroups, Scheduling.SchedulerReport scheduler, GpuMemory.MemoryReport memory,
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

  /** A run without a request history (hand-made results). */
  public RunResult(Settings.Scenario scenario, long emulatedNanos, double wallSeconds, boolean drained,
      List<VGpu.VgpuReport> vgpus, List<List<VcpuReport>> vcpus, List<CpuScheduler.CoreReport> cores,
      List<SmGroup.GroupReport> smGroups, Scheduling.SchedulerReport scheduler, GpuMemory.MemoryReport memory,
      MetricsHub.FinalMetrics metrics, TimerLateness.Snapshot lateness, TimerLateness.Snapshot skew,
      Causality.Snapshot order, List<FaultInjector.Record> faults, double runningWallSeconds,
      List<Control.Record> controls, List<Progress> progress, TimerLateness.Buckets latenessHistogram,
      TimerLateness.Buckets lagHistogram) {
    this(scenario, emulatedNanos, wallSeconds, drained, vgpus, vcpus, cores, smGroups, scheduler, memory, metrics,
        lateness, skew, order, faults, runningWallSeconds, controls, progress, latenessHistogram, lagHistogram,
        RequestHistory.Snapshot.EMPTY);
  }

  /** A run without controls, progress samples, histograms or request history (hand-made results). */
  public RunResult(Settings.Scenario scenario, long emulatedNanos, double wallSeconds, boolean drained,
      List<VGpu.VgpuReport> vgpus, List<List<VcpuReport>> vcpus, List<CpuScheduler.CoreReport> cores,
      List<SmGroup.GroupReport> smGroups, Scheduling.SchedulerReport scheduler, GpuMemory.MemoryReport memory,
      MetricsHub.FinalMetrics metrics, TimerLateness.Snapshot lateness, TimerLateness.Snapshot skew,
      Causality.Snapshot order, List<FaultInjector.Record> faults, double runningWallSeconds) {
    this(scenario, emulatedNanos, wallSeconds, drained, vgpus, vcpus, cores, smGroups, scheduler, memory, metrics,
        lateness, skew, order, faults, runningWallSeconds, List.of(), List.of(), TimerLateness.Buckets.EMPTY,
        TimerLateness.Buckets.EMPTY, RequestHistory.Snapshot.EMPTY);
  }

  /** A run whose running time is not known apart from its whole wall time (hand-made results). */
  public RunResult(Settings.Scenario scenario, long emulatedNanos, double wallSeconds, boolean drained,
      List<VGpu.VgpuReport> vgpus, List<List<VcpuReport>> vcpus, List<CpuScheduler.CoreReport> cores,
      List<SmGroup.GroupReport> smGroups, Scheduling.SchedulerReport scheduler, GpuMemory.MemoryReport memory,
      MetricsHub.FinalMetrics metrics, TimerLateness.Snapshot lateness, TimerLateness.Snapshot skew,
      Causality.Snapshot order, List<FaultInjector.Record> faults) {
    this(scenario, emulatedNanos, wallSeconds, drained, vgpus, vcpus, cores, smGroups, scheduler, memory, metrics,
        lateness, skew, order, faults, wallSeconds);
  }

  /** A run without faults. */
  public RunResult(Settings.Scenario scenario, long emulatedNanos, double wallSeconds, boolean drained,
      List<VGpu.VgpuReport> vgpus, List<List<VcpuReport>> vcpus, List<CpuScheduler.CoreReport> cores,
      List<SmGroup.GroupReport> smGroups, Scheduling.SchedulerReport scheduler, GpuMemory.MemoryReport memory,
      MetricsHub.FinalMetrics metrics, TimerLateness.Snapshot lateness, TimerLateness.Snapshot skew,
      Causality.Snapshot order) {
    this(scenario, emulatedNanos, wallSeconds, drained, vgpus, vcpus, cores, smGroups, scheduler, memory, metrics,
        lateness, skew, order, List.of());
  }
}
