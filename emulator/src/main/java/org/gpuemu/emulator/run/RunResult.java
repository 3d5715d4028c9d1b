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
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.vm.VCpu;
import org.gpuemu.emulator.vm.VGpu;

/**
 * Every final report of one run, as collected from the actors, with the run's timer lateness and message skew
 * ({@link RunContext#received}) and its causal order ({@link Causality}).
 */
public record RunResult(Settings.Scenario scenario, long emulatedNanos, double wallSeconds, boolean drained,
    List<VGpu.VgpuReport> vgpus, List<List<VCpu.VcpuReport>> vcpus, List<CpuScheduler.CoreReport> cores,
    List<SmGroup.GroupReport> smGroups, Scheduling.SchedulerReport scheduler, GpuMemory.MemoryReport memory,
    MetricsHub.FinalMetrics metrics, TimerLateness.Snapshot lateness,
    TimerLateness.Snapshot skew, Causality.Snapshot order) {}
