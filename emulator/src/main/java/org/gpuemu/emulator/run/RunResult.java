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
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.vm.VCpu;
import org.gpuemu.emulator.vm.VGpu;

/**
 * Every final report of one run, as collected from the actors, with the run's timer lateness and message skew
 * ({@link RunContext#received}), its causal order ({@link Causality}) and what happened to each fault it injected.
 */
public record RunResult(Settings.Scenario scenario, long emulatedNanos, double wallSeconds, boolean drained,
    List<VGpu.VgpuReport> vgpus, List<List<VCpu.VcpuReport>> vcpus, List<CpuScheduler.CoreReport> cores,
    List<SmGroup.GroupReport> smGroups, Scheduling.SchedulerReport scheduler, GpuMemory.MemoryReport memory,
    MetricsHub.FinalMetrics metrics, TimerLateness.Snapshot lateness,
    TimerLateness.Snapshot skew, Causality.Snapshot order, List<FaultInjector.Record> faults) {

  /** A run without faults. */
  public RunResult(Settings.Scenario scenario, long emulatedNanos, double wallSeconds, boolean drained,
      List<VGpu.VgpuReport> vgpus, List<List<VCpu.VcpuReport>> vcpus, List<CpuScheduler.CoreReport> cores,
      List<SmGroup.GroupReport> smGroups, Scheduling.SchedulerReport scheduler, GpuMemory.MemoryReport memory,
      MetricsHub.FinalMetrics metrics, TimerLateness.Snapshot lateness, TimerLateness.Snapshot skew,
      Causality.Snapshot order) {
    this(scenario, emulatedNanos, wallSeconds, drained, vgpus, vcpus, cores, smGroups, scheduler, memory, metrics,
        lateness, skew, order, List.of());
  }
}
