package org.gpuemu.emulator.report;

import static org.gpuemu.emulator.report.Summary.round;

import java.util.ArrayList;
import java.util.List;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.metrics.PresentFigures;
import org.gpuemu.emulator.run.RunResult;
import org.gpuemu.emulator.vm.VcpuReport;
import org.gpuemu.emulator.vm.VcpuReport;
import org.gpuemu.emulator.vm.VGpu;

/**
 * One VM's run, its vCPUs summed, with the rates the fairness figures compare. Throughputs and GPU time count what
 * finished while the VM's program ran, not the drain after it.
 *
 * @param ranSeconds how long its program ran (at least 1 ns)
 * @param share its share of the busy time of the vGPUs on its GPU
 * @param fairShare its weight over the total weight of the VMs on its GPU
 * @param measured kernels per second of its program's run
 * @param bySolo whether every VM's workload has a solo throughput (FairGV's basis), else GPU time is the basis
 * @param solo its workload's solo throughput (0 unless by solo)
 * @param normalized FairGV §5.4's x_i: measured over its weighted share of solo, or share over fair share
 */
record VmTally(Settings.Vm vm, VGpu.VgpuReport vgpu, MetricsHub.VmMetrics metrics, Threads threads,
    double ranSeconds, double share, double fairShare, double measured, boolean bySolo, double solo,
    double normalized) {

  /**
   * The totals every VM is measured against: the GPU time of the VMs on its GPU, their weight, and whether every
   * VM's workload has a solo throughput. With one GPU these are the run's totals.
   */
  record Totals(java.util.Map<Integer, Long> gpuBusyInRunNanos, java.util.Map<Integer, Integer> weight,
      boolean bySolo) {
    static Totals of(RunResult r) {
      java.util.Map<Integer, Long> busy = new java.util.HashMap<>();
      java.util.Map<Integer, Integer> weight = new java.util.HashMap<>();
      for (Settings.Vm vm : r.scenario().vms()) {
        int gpu = r.scenario().gpuNumber(vm);
        busy.merge(gpu, r.vgpus().get(vm.index()).gpuBusyInRunNanos(), Long::sum);
        weight.merge(gpu, vm.weight(), Integer::sum);
      }
      return new Totals(busy, weight, FairnessFigures.bySolo(r.scenario()));
    }
  }

  /** A VM's vCPUs summed; {@code programNanos} is -1 while any of its programs runs. */
  record Threads(long ran, long steal, long memorySubmitted, long memoryCompleted, long memoryFailed,
      long memoryRefused, long objectReturns, long maxStall, List<String> failures, long programNanos,
      long channelFailed) {
    static Threads of(List<VcpuReport> vcpus) {
      long ran = 0, steal = 0, submitted = 0, completed = 0, failed = 0, refused = 0, returns = 0, maxStall = 0;
      long channelFailed = 0;
      List<String> failures = new ArrayList<>();
      for (VcpuReport c : vcpus) {
        ran += c.ranNanos();
        steal += c.stealNanos();
        submitted += c.memorySubmitted();
        completed += c.memoryCompleted();
        failed += c.memoryFailed();
        refused += c.memoryRefused();
        returns += c.objectReturns();
        maxStall = Math.max(maxStall, c.maxStallNanos());
        failures.addAll(c.failures());
        channelFailed += c.channelFailed();
      }
      return new Threads(ran, steal, submitted, completed, failed, refused, returns, maxStall, failures,
          programNanos(vcpus), channelFailed);
    }

    // a finite workload's figure (2D traces, CPU benchmarks, batch jobs, sequences): once every thread's program
    // ended (the main vCPU's and those of the other vCPUs that took steps), the longest
    private static long programNanos(List<VcpuReport> vcpus) {
      long longest = -1;
      for (int t = 0; t < vcpus.size(); t++) {
        VcpuReport thread = vcpus.get(t);
        if (t > 0 && thread.steps() == 0) continue;
        if (thread.programNanos() < 0) return -1;
        longest = Math.max(longest, thread.programNanos());
      }
      return longest;
    }
  }

  static VmTally of(RunResult r, Settings.Vm vm, Totals totals) {
    int i = vm.index();
    VGpu.VgpuReport g = r.vgpus().get(i);
    double ranSeconds = Math.max(1e-9, Summary.ranNanos(vm, r.emulatedNanos()) / 1e9);
    int gpu = r.scenario().gpuNumber(vm);
    long busy = totals.gpuBusyInRunNanos().get(gpu);
    double share = busy > 0 ? (double) g.gpuBusyInRunNanos() / busy : 0;
    double fairShare = (double) vm.weight() / totals.weight().get(gpu);
    double measured = g.kernelsInRun() / ranSeconds;
    double solo = totals.bySolo() ? r.scenario().workload(vm.workload()).soloRequestsPerSecond().getAsDouble() : 0;
    double normalized = totals.bySolo() ? measured / (fairShare * solo) : share / fairShare;
    return new VmTally(vm, g, r.metrics().vms().get(i), Threads.of(r.vcpus().get(i)), ranSeconds, share, fairShare,
        measured, totals.bySolo(), solo, normalized);
  }

  /** FairGV's ideal throughput: the weighted share of the solo one. */
  double ideal() {
    return fairShare * solo;
  }

  /** VMCG's throughput: FPS for a VM that presents frames, completed requests per second otherwise. */
  double throughput() {
    return metrics.frames() > 0 ? metrics.frames() / ranSeconds : measured;
  }

  /** Its rates as the fairness figures compare them. */
  FairnessFigures.Row fairnessRow() {
    long program = threads.programNanos();
    return new FairnessFigures.Row(vm.name(), vm.workload(), vm.weight(), normalized, ideal(), measured, throughput(),
        program > 0 ? 1e9 / program : null);
  }

  long submitted() {
    // a GPU call its channel failed never reached the vGPU: submitted and failed here
    return vgpu.submitted() + threads.memorySubmitted() + threads.channelFailed();
  }

  long completed() {
    return vgpu.completed() + threads.memoryCompleted();
  }

  long failed() {
    return vgpu.failed() + threads.memoryFailed() + threads.channelFailed();
  }

  /** The VM's entry in {@code vms}; {@code game} is COMBO's game figures, or null. */
  SummaryDoc.Vm entry(Double policyShare, List<Integer> slots, SummaryDoc.GameFigures game) {
    long program = threads.programNanos();
    return new SummaryDoc.Vm(setup(policyShare), frames(), gpuUse(), cpuUse(), memory(slots),
        program >= 0 ? round(program / 1e9, 3) : null, game);
  }

  private SummaryDoc.VmSetup setup(Double policyShare) {
    double configured = vm.share();
    return new SummaryDoc.VmSetup(vm.workload(), vm.weight(), vm.slaFps(), policyShare != null
        ? Double.valueOf(round(policyShare, 4)) : Double.isNaN(configured) ? null : Double.valueOf(configured));
  }

  private SummaryDoc.VmFrames frames() {
    MetricsHub.VmMetrics m = metrics;
    List<Double> cdf = new ArrayList<>();
    for (long us : m.latencyCdfUs()) cdf.add(round(us / 1e3, 3));
    SummaryDoc.Latency latency = new SummaryDoc.Latency(round(m.latencyP50Us() / 1e3, 3),
        round(m.latencyP99Us() / 1e3, 3), round(m.latencyMaxUs() / 1e3, 3), cdf);
    double fps = m.frames() / ranSeconds;
    boolean range = !Double.isNaN(m.fpsMin());
    return new SummaryDoc.VmFrames(round(fps, 2), latency, m.frames(), m.framesOverSla(),
        round(m.frames() == 0 ? 0 : 100.0 * m.framesOverSla() / m.frames(), 2),
        range ? round(m.fpsMin(), 2) : null, range ? round(m.fpsMax(), 2) : null,
        // vmcg.txt's "fluctuates" against "smoother": the period-to-period range relative to the run's frame rate
        range && fps > 0 ? round((m.fpsMax() - m.fpsMin()) / fps, 4) : null, present(m.present()));
  }

  private static SummaryDoc.Present present(PresentFigures p) {
    if (p == null) return null;
    SummaryDoc.PresentCost cost = new SummaryDoc.PresentCost(round(p.costMeanNanos() / 1e6, 3),
        round(p.costMaxNanos() / 1e6, 3));
    SummaryDoc.PresentError error = new SummaryDoc.PresentError(round(p.errorMeanAbsNanos() / 1e6, 3),
        round(Math.max(-p.errorMinNanos(), p.errorMaxNanos()) / 1e6, 3), round(p.errorMinNanos() / 1e6, 3),
        round(p.errorMaxNanos() / 1e6, 3));
    return new SummaryDoc.Present(p.calls(), cost, error,
        round(p.predicted() == 0 ? 0 : 100.0 * p.failures() / p.predicted(), 2));
  }

  private SummaryDoc.VmGpu gpuUse() {
    // FairGV Figure 11's normalized run time: run time beside the others over run time alone (2.0 for a fair
    // half), i.e. solo throughput over measured throughput
    Double runTime = bySolo && measured > 0 ? round(solo / measured, 4) : null;
    return new SummaryDoc.VmGpu(round(vgpu.gpuBusyInRunNanos() / 1e6, 3), round(share, 4),
        round(vgpu.gpuBusyInRunNanos() / 1e9 / ranSeconds, 4), vgpu.kernelsCompleted(), completed(), failed(),
        round(measured, 2), round(normalized, 4), runTime,
        metrics.gpuUsageRangePct() == null ? null : round(metrics.gpuUsageRangePct(), 2));
  }

  private SummaryDoc.VmCpu cpuUse() {
    return new SummaryDoc.VmCpu(round(threads.ran() / 1e6, 3), round(threads.steal() / 1e6, 3),
        round(threads.maxStall() / 1e6, 3));
  }

  private SummaryDoc.VmMemory memory(List<Integer> slots) {
    boolean refusals = threads.memoryRefused() > 0 || threads.objectReturns() > 0;
    return new SummaryDoc.VmMemory(round(metrics.maxMemoryBytes() / 1048576.0, 1),
        slots == null ? null : new SummaryDoc.MemorySlots(slots.get(0), slots.get(1)),
        refusals ? threads.memoryRefused() : null, refusals ? threads.objectReturns() : null);
  }
}
