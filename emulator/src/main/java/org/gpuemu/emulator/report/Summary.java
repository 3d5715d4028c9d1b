package org.gpuemu.emulator.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.clock.Causality;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.gpu.SmGroup;
import org.gpuemu.emulator.cpu.CpuScheduler;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.run.RunResult;
import org.gpuemu.emulator.run.Verdict;
import org.gpuemu.emulator.vm.VCpu;
import org.gpuemu.emulator.vm.VGpu;
import org.gpuemu.policies.vgris.AlgorithmSwitch;
import org.gpuemu.policies.vmcg.Fairness;
import org.gpuemu.workloads.WorkloadCatalog;

/**
 * Turns a {@link RunResult} into the output contract (DESIGN.md §5): the {@code summary.json} document, the
 * invariant checks of DESIGN.md §6 and the fidelity verdict, and the table printed at the end of a run.
 */
public final class Summary {
  /** Relative tolerance of the GPU-time conservation check (DESIGN.md §6). */
  static final double CONSERVATION_TOLERANCE = 0.01;

  private final RunResult r;
  private final Map<String, Object> doc = new LinkedHashMap<>();
  private final List<String> broken = new ArrayList<>();
  private boolean faithful;
  private String reason;

  public Summary(RunResult result) {
    this.r = result;
    build();
  }

  /** The summary.json document. */
  public Map<String, Object> document() {
    return doc;
  }

  /** Invariants the run broke (empty when none): exit status 1. */
  public List<String> brokenInvariants() {
    return broken;
  }

  public boolean faithful() {
    return faithful;
  }

  /** Why the run is unfaithful; null when it is faithful. */
  public String reason() {
    return reason;
  }

  public void write(Path file) throws IOException {
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), doc);
  }

  private void build() {
    Settings.Scenario s = r.scenario();
    double seconds = r.emulatedNanos() / 1e9;
    doc.put("scenario", s.name());
    doc.put("file", s.file());
    doc.put("policy", s.gpuPolicy().name());
    doc.put("cpu_policy", s.cpuPolicy().name());
    doc.put("memory_policy", s.memoryPolicy().name());
    doc.put("time_scale", s.timeScale());
    doc.put("emulated_seconds", round(seconds, 3));
    doc.put("wall_seconds", round(r.wallSeconds(), 3));
    doc.put("seed", s.seed());

    long totalBusy = 0;
    int totalWeight = 0;
    long accountedBusy = 0;
    for (VGpu.VgpuReport v : r.vgpus()) {
      totalBusy += v.gpuBusyInRunNanos();
      accountedBusy += v.gpuBusyNanos();
    }
    for (Settings.Vm vm : s.vms()) totalWeight += vm.weight();
    Map<String, Object> vms = new LinkedHashMap<>();
    double minNorm = Double.MAX_VALUE;
    double maxNorm = 0;
    // FairGV §5.4: x_i = T_i / O_i, O_i = the VM's weight share of its solo throughput; possible when every
    // workload has a fixed solo rate, otherwise x_i is the VM's GPU-time share over its weight share
    boolean bySolo = s.vms().stream()
        .allMatch(vm -> WorkloadCatalog.get(vm.workload()).soloRequestsPerSecond().isPresent());
    double idealTotal = 0;
    double measuredTotal = 0;
    Map<Integer, Integer> weights = new LinkedHashMap<>();
    Map<Integer, Double> throughputs = new LinkedHashMap<>();
    Map<Integer, Double> crbRates = new LinkedHashMap<>();
    Map<Integer, Double> runRates = new LinkedHashMap<>();
    long submitted = 0;
    long completed = 0;
    long failed = 0;
    long open = 0;
    List<String> failures = new ArrayList<>();
    for (Settings.Vm vm : s.vms()) {
      int i = vm.index();
      VGpu.VgpuReport g = r.vgpus().get(i);
      MetricsHub.VmMetrics m = r.metrics().vms().get(i);
      double ranSeconds = Math.max(1e-9, ranNanos(vm, r.emulatedNanos()) / 1e9);
      double share = totalBusy > 0 ? (double) g.gpuBusyInRunNanos() / totalBusy : 0;
      double fairShare = (double) vm.weight() / totalWeight;
      // throughputs and GPU time count what finished while the VM's program ran, not the drain after it
      double measured = g.kernelsInRun() / ranSeconds;
      double solo = bySolo ? WorkloadCatalog.get(vm.workload()).soloRequestsPerSecond().getAsDouble() : 0;
      double ideal = fairShare * solo;
      idealTotal += ideal;
      measuredTotal += measured;
      double normalized = bySolo ? measured / ideal : share / fairShare;
      minNorm = Math.min(minNorm, normalized);
      maxNorm = Math.max(maxNorm, normalized);
      long steal = 0;
      long ran = 0;
      long memSubmitted = 0;
      long memCompleted = 0;
      long memFailed = 0;
      long memRefused = 0;
      long returns = 0;
      long maxStall = 0;
      for (VCpu.VcpuReport c : r.vcpus().get(i)) {
        memRefused += c.memoryRefused();
        returns += c.objectReturns();
        steal += c.stealNanos();
        ran += c.ranNanos();
        memSubmitted += c.memorySubmitted();
        memCompleted += c.memoryCompleted();
        memFailed += c.memoryFailed();
        maxStall = Math.max(maxStall, c.maxStallNanos());
        failures.addAll(c.failures());
      }
      long vmSubmitted = g.submitted() + memSubmitted;
      long vmCompleted = g.completed() + memCompleted;
      long vmFailed = g.failed() + memFailed;
      submitted += vmSubmitted;
      completed += vmCompleted;
      failed += vmFailed;
      open += g.outstanding();
      Map<String, Object> v = new LinkedHashMap<>();
      v.put("workload", vm.workload());
      v.put("weight", vm.weight());
      v.put("sla_fps", vm.slaFps());
      Double policyShare = r.scheduler().shares().get(i);
      double configured = vm.share();
      v.put("share", policyShare != null ? Double.valueOf(round(policyShare, 4))
          : Double.isNaN(configured) ? null : Double.valueOf(configured));
      v.put("fps", round(m.frames() / ranSeconds, 2));
      v.put("frame_latency_ms", Map.of("p50", round(m.latencyP50Us() / 1e3, 3), "p99", round(m.latencyP99Us() / 1e3, 3),
          "max", round(m.latencyMaxUs() / 1e3, 3)));
      v.put("frames", m.frames());
      v.put("frames_over_sla", m.framesOverSla());
      v.put("frames_over_sla_pct", round(m.frames() == 0 ? 0 : 100.0 * m.framesOverSla() / m.frames(), 2));
      v.put("gpu_busy_ms", round(g.gpuBusyInRunNanos() / 1e6, 3));
      v.put("gpu_share", round(share, 4));
      v.put("gpu_usage", round(g.gpuBusyInRunNanos() / 1e9 / ranSeconds, 4));
      v.put("kernels_completed", g.kernelsCompleted());
      v.put("requests_completed", vmCompleted);
      v.put("requests_failed", vmFailed);
      v.put("throughput_per_s", round(measured, 2));
      weights.put(i, vm.weight());
      throughputs.put(i, m.frames() > 0 ? m.frames() / ranSeconds : measured);
      crbRates.put(i, measured);
      v.put("normalized_throughput", round(normalized, 4));
      // FairGV Figure 11's normalized run time: run time beside the others over run time alone (2.0 for a fair
      // half), i.e. solo throughput over measured throughput
      v.put("normalized_run_time", bySolo && measured > 0 ? round(solo / measured, 4) : null);
      v.put("cpu_ms", round(ran / 1e6, 3));
      v.put("steal_ms", round(steal / 1e6, 3));
      v.put("max_stall_ms", round(maxStall / 1e6, 3));
      v.put("memory_max_mb", round(m.maxMemoryBytes() / 1048576.0, 1));
      List<Integer> slots = r.memory().slots().get(i);
      if (slots != null) v.put("memory_slots", Map.of("final", slots.get(0), "max", slots.get(1)));
      if (memRefused > 0 || returns > 0) {
        v.put("memory_refusals", memRefused);
        v.put("object_returns", returns);
      }
      // a finite workload's figure (2D traces, CPU benchmarks, batch jobs, sequences): once every thread's program
      // ended (the main vCPU's and those of the other vCPUs that took steps), the longest
      long programNanos = -1;
      for (int t = 0; t < r.vcpus().get(i).size(); t++) {
        VCpu.VcpuReport thread = r.vcpus().get(i).get(t);
        if (t > 0 && thread.steps() == 0) continue;
        if (thread.programNanos() < 0) {
          programNanos = -1;
          break;
        }
        programNanos = Math.max(programNanos, thread.programNanos());
      }
      if (programNanos >= 0) v.put("run_time_s", round(programNanos / 1e9, 3));
      if (programNanos > 0) runRates.put(i, 1e9 / programNanos);
      vms.put(vm.name(), v);
      if (maxStall > s.fidelity().livenessTimeoutNanos()) {
        broken.add("liveness: vm '" + vm.name() + "' made no progress for " + round(maxStall / 1e9, 3) + " s");
      }
    }
    doc.put("vms", vms);
    List<Map<String, Object>> policySwitches = new ArrayList<>();
    for (AlgorithmSwitch sw : r.scheduler().switches()) {
      Map<String, Object> one = new LinkedHashMap<>();
      one.put("t_s", round(sw.nanos() / 1e9, 3));
      one.put("from", sw.from().label());
      one.put("to", sw.to().label());
      policySwitches.add(one);
    }
    doc.put("policy_switches", policySwitches);
    Map<String, Object> figures = new LinkedHashMap<>(r.scheduler().figures());
    if (figures.containsKey("be_throughput")) spaceSharing(figures, vms);
    if (!figures.isEmpty()) doc.put(s.gpuPolicy().name(), figures);
    if (!r.memory().figures().isEmpty()) doc.put(s.memoryPolicy().name(), r.memory().figures());

    long kernelBusy = 0;
    double smBusy = 0;
    int totalSms = 1;
    long switchTime = 0;
    long switches = 0;
    long median = Long.MAX_VALUE;
    long span = r.emulatedNanos();
    for (SmGroup.GroupReport g : r.smGroups()) {
      span = Math.max(span, g.lastEventNanos());
      kernelBusy += g.kernelBusyNanos();
      smBusy += g.smBusyNanos() + (double) g.sms() * g.switchNanos();
      totalSms = g.totalSms();
      switchTime += g.switchNanos();
      switches += g.contextSwitches();
      if (g.medianKernelNanos() > 0) median = Math.min(median, g.medianKernelNanos());
    }
    Map<String, Object> gpu = new LinkedHashMap<>();
    // over the run and the drain after it, when the GPU finished what the guests had queued: the share of SM time
    // spent running kernels or switching contexts (space-shared groups own changing shares of the SMs)
    gpu.put("utilization", round(span > 0 ? smBusy / span / totalSms : 0, 4));
    gpu.put("busy_ms", round(kernelBusy / 1e6, 3));
    gpu.put("context_switches", switches);
    gpu.put("context_switch_ms", round(switchTime / 1e6, 3));
    gpu.put("median_kernel_ms", round(median == Long.MAX_VALUE ? 0 : median / 1e6, 4));
    doc.put("gpu", gpu);

    Map<String, Object> cpu = new LinkedHashMap<>();
    long cpuBusy = 0;
    for (CpuScheduler.CoreReport c : r.cores()) cpuBusy += c.busyNanos();
    cpu.put("cores", r.cores().size());
    cpu.put("utilization", round(seconds > 0 ? cpuBusy / 1e9 / seconds / r.cores().size() : 0, 4));
    doc.put("cpu", cpu);

    Map<String, Object> fairness = new LinkedHashMap<>();
    fairness.put("mmr", round(maxNorm > 0 ? minNorm / maxNorm : 0, 4));
    fairness.put("normalized_by", bySolo ? "solo throughput" : "gpu time");
    // FairGV's aggregated overhead: ideal aggregated throughput over measured aggregated throughput
    fairness.put("aggregated_overhead", bySolo && measuredTotal > 0 ? round(idealTotal / measuredTotal, 4) : null);
    // VMCG's λ (vmcg.txt §6.3): weight shares against throughput shares, throughput being FPS for a VM that
    // presents frames and completed requests per second for one that does not
    java.util.OptionalDouble lambda = Fairness.lambda(weights, throughputs);
    fairness.put("lambda", lambda.isPresent() ? round(lambda.getAsDouble(), 4) : null);
    // The same on one basis for every VM: completed requests (CRBs) per second, §6.3's "GPU command request blocks
    // capacity processed by the vGPU" -- the basis for VMs whose frames cost different GPU time (Figures 16-17)
    java.util.OptionalDouble lambdaCrbs = Fairness.lambda(weights, crbRates);
    fairness.put("lambda_crbs", lambdaCrbs.isPresent() ? round(lambdaCrbs.getAsDouble(), 4) : null);
    // The same from run times, once every VM's finite program has ended: throughput 1/run time, as vmcg.txt
    // Table 2 computes its lambda from the DomUs' times (Rodinia) -- null while any VM still runs
    java.util.OptionalDouble lambdaRun = runRates.size() == weights.size()
        ? Fairness.lambda(weights, runRates) : java.util.OptionalDouble.empty();
    fairness.put("lambda_run_time", lambdaRun.isPresent() ? round(lambdaRun.getAsDouble(), 4) : null);
    doc.put("fairness", fairness);

    // The unit the run emulated: frames when its guests present (what they measure is frame latency; a late
    // kernel timer only delays when the guest hears of the kernel's end, since the SM group chains kernel ends
    // from their due times and accounts model durations), kernels otherwise.
    long frameMedian = r.metrics().medianFrameNanos();
    boolean byFrames = frameMedian > 0;
    long reference = byFrames ? frameMedian : median;
    String unit = byFrames ? "median frame" : "GPU-time median kernel";
    Verdict verdict = Verdict.of(r.order(), reference, unit, s.fidelity(), s.timeScale());
    faithful = verdict.faithful();
    reason = verdict.reason();
    Map<String, Object> fidelity = new LinkedHashMap<>();
    fidelity.put("faithful", faithful);
    fidelity.put("reason", verdict.reason());
    fidelity.put("reference", reference == Long.MAX_VALUE ? null : unit);
    fidelity.put("reference_ms", reference == Long.MAX_VALUE ? null : round(reference / 1e6, 3));
    Causality.Snapshot o = r.order();
    Map<String, Object> causality = new LinkedHashMap<>();
    causality.put("horizon_us", round(o.horizonNanos() / 1e3, 1));
    causality.put("hop_us", round(o.hopNanos() / 1e3, 1));
    causality.put("events_ordered", o.ordered());
    causality.put("events_held", o.held());
    causality.put("events_late", o.late());
    causality.put("violations", o.violations());
    causality.put("tie_inversions", o.tieInversions());
    causality.put("observer_violations", o.observerViolations());
    causality.put("violation_us", Map.of("p50", o.violationSizes().p50(), "p99", o.violationSizes().p99(),
        "max", round(o.largestViolationNanos() / 1e3, 1)));
    causality.put("violation_limit_us", reference == Long.MAX_VALUE ? null
        : round(s.fidelity().violationThreshold() * reference / 1e3, 1));
    causality.put("lag_us", Map.of("p50", o.lag().p50(), "p99", o.lag().p99(), "max", o.lag().max()));
    causality.put("lag_wall_ms_p50", round(o.lag().p50() / 1e3 / s.timeScale(), 3));
    fidelity.put("causality", causality);
    fidelity.put("real_time_factor", r.wallSeconds() > 0 ? round(r.emulatedNanos() / 1e9 / r.wallSeconds(), 4) : null);
    fidelity.put("timer_lateness_us", Map.of("p50", r.lateness().p50(), "p99", r.lateness().p99(),
        "p999", r.lateness().p999(), "max", r.lateness().max(), "count", r.lateness().count()));
    fidelity.put("message_skew_us", Map.of("p50", r.skew().p50(), "p99", r.skew().p99(), "p999", r.skew().p999(),
        "max", r.skew().max(), "count", r.skew().count()));
    fidelity.put("timeline_rows_dropped", r.metrics().timelineDropped());
    doc.put("fidelity", fidelity);

    long lost = submitted - completed - failed;
    boolean conserved = Math.abs(accountedBusy - kernelBusy) <= CONSERVATION_TOLERANCE * Math.max(1, kernelBusy);
    if (lost != 0) {
      broken.add("requests_lost: " + lost + " of " + submitted + " requests neither completed nor failed"
          + (r.drained() ? "" : " (the GPU did not drain)"));
    }
    if (!conserved) {
      broken.add("gpu_time_conserved: vGPUs accounted " + round(accountedBusy / 1e6, 3) + " ms, SM groups were busy "
          + round(kernelBusy / 1e6, 3) + " ms");
    }
    for (String v : r.scheduler().violations()) broken.add("gpu policy: " + v);
    for (String v : r.memory().violations()) broken.add("memory policy: " + v);
    for (CpuScheduler.CoreReport c : r.cores()) {
      for (String v : c.violations()) broken.add("cpu policy (core " + c.core() + "): " + v);
    }
    if (r.metrics().timelineDropped() > 0 || r.metrics().sinkFailure() != null) {
      broken.add("timeline: " + r.metrics().timelineDropped() + " rows dropped"
          + (r.metrics().sinkFailure() == null ? "" : ", sink failed: " + r.metrics().sinkFailure()));
    }
    Map<String, Object> inv = new LinkedHashMap<>();
    inv.put("requests_submitted", submitted);
    inv.put("requests_completed", completed);
    inv.put("requests_failed", failed);
    inv.put("requests_lost", lost);
    inv.put("requests_open_at_end", open);
    inv.put("gpu_time_conserved", conserved);
    inv.put("failure_reasons", failures.size() > 10 ? failures.subList(0, 10) : failures);
    inv.put("broken", broken);
    inv.put("ok", broken.isEmpty());
    doc.put("invariants", inv);
  }

  /**
   * A space-sharing run (combo.txt §6): Eq. 6's BE throughput and the QoS violations at the top, the game VM's
   * 99th-percentile and average FPS and its QoS headroom distribution (Figure 15) in its entry; the rest stays under
   * the policy's name.
   */
  @SuppressWarnings("unchecked")
  private void spaceSharing(Map<String, Object> figures, Map<String, Object> vms) {
    doc.put("be_throughput", figures.remove("be_throughput"));
    doc.put("qos_violations", figures.remove("qos_violations"));
    int game = ((Number) figures.remove("game_vm")).intValue();
    Map<String, Object> v = (Map<String, Object>) vms.get(r.scenario().vms().get(game).name());
    v.put("fps_avg", figures.remove("fps_avg"));
    v.put("fps_p99", figures.remove("fps_p99"));
    v.put("frames_rendered", figures.remove("frames_rendered"));
    v.put("headroom_ms", figures.remove("headroom_ms"));
    v.put("qos_violations", doc.get("qos_violations"));
  }

  /** The table printed at the end of a run. */
  public String table() {
    StringBuilder b = new StringBuilder();
    b.append(String.format("%-14s %-14s %7s %9s %9s %9s %8s %8s %9s%n", "vm", "workload", "fps", "p50 ms", "p99 ms",
        "max ms", ">sla %", "gpu %", "share %"));
    @SuppressWarnings("unchecked")
    Map<String, Map<String, Object>> vms = (Map<String, Map<String, Object>>) doc.get("vms");
    for (Map.Entry<String, Map<String, Object>> e : vms.entrySet()) {
      Map<String, Object> v = e.getValue();
      @SuppressWarnings("unchecked")
      Map<String, Object> lat = (Map<String, Object>) v.get("frame_latency_ms");
      b.append(String.format("%-14s %-14s %7.2f %9.2f %9.2f %9.2f %8.2f %8.1f %9.1f%n", e.getKey(), v.get("workload"),
          (double) v.get("fps"), (double) lat.get("p50"), (double) lat.get("p99"), (double) lat.get("max"),
          (double) v.get("frames_over_sla_pct"), 100 * (double) v.get("gpu_usage"), 100 * (double) v.get("gpu_share")));
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> fid = (Map<String, Object>) doc.get("fidelity");
    @SuppressWarnings("unchecked")
    Map<String, Object> lat = (Map<String, Object>) fid.get("timer_lateness_us");
    @SuppressWarnings("unchecked")
    Map<String, Object> fair = (Map<String, Object>) doc.get("fairness");
    @SuppressWarnings("unchecked")
    Map<String, Object> gpu = (Map<String, Object>) doc.get("gpu");
    b.append(String.format("gpu utilization %.1f %%, fairness mmr %.3f lambda %.3f%n",
        100 * (double) gpu.get("utilization"), (double) fair.get("mmr"),
        fair.get("lambda") == null ? Double.NaN : (double) fair.get("lambda")));
    if (doc.containsKey("be_throughput")) {
      b.append(String.format("be throughput (Eq. 6, ms of solo kernel time per s) %s, qos violations %s%n",
          doc.get("be_throughput"), doc.get("qos_violations")));
    }
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> switches = (List<Map<String, Object>>) doc.get("policy_switches");
    if (!switches.isEmpty()) {
      StringBuilder list = new StringBuilder();
      for (Map<String, Object> sw : switches) {
        list.append(String.format(" %ss %s->%s", sw.get("t_s"), sw.get("from"), sw.get("to")));
      }
      b.append("policy switches:").append(list).append(String.format("%n"));
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> order = (Map<String, Object>) fid.get("causality");
    @SuppressWarnings("unchecked")
    Map<String, Object> vio = (Map<String, Object>) order.get("violation_us");
    b.append(String.format("causal order: %s events in order (horizon %s us, hop %s us), %s violations (max %s us, "
        + "limit %s us), %s tie inversions, median lag %s ms wall%n", order.get("events_ordered"),
        order.get("horizon_us"), order.get("hop_us"), order.get("violations"), vio.get("max"),
        order.get("violation_limit_us"), order.get("tie_inversions"), order.get("lag_wall_ms_p50")));
    b.append(String.format("timer lateness p50 %s us, p99 %s us, max %s us (reported, not judged)%n", lat.get("p50"),
        lat.get("p99"), lat.get("max")));
    b.append(faithful ? "fidelity: faithful" : "fidelity: NOT FAITHFUL: " + fid.get("reason")).append(String.format("%n"));
    @SuppressWarnings("unchecked")
    Map<String, Object> skew = (Map<String, Object>) fid.get("message_skew_us");
    b.append(String.format("message skew p99 %s us, max %s us (messages handled after a later-stamped event)%n",
        skew.get("p99"), skew.get("max")));
    b.append(broken.isEmpty() ? "invariants: ok" : "invariants BROKEN: " + String.join("; ", broken));
    return b.toString();
  }

  /** How long the VM's program ran: from its start delay to its stop-after or the end of the run. */
  static long ranNanos(Settings.Vm vm, long endNanos) {
    return Math.max(0, vm.stopNanos(endNanos) - vm.startDelayNanos());
  }

  private static double round(double v, int digits) {
    double f = Math.pow(10, digits);
    return Math.round(v * f) / f;
  }

  /**
   * Each VM's performance over the first policy's, averaged over the VMs (gballoon.txt Figures 6-7: every benchmark
   * normalised to gVirt-384, 3D by FPS and 2D by run time, then summarised): a VM that showed frames is measured by
   * its FPS, any other by its GPU operations per second (a 2D trace's fixed operations: its run time's inverse); VMs
   * with nothing under the first policy count nothing. Empty when no VM can be normalised.
   */
  @SuppressWarnings("unchecked")
  public static Map<String, Double> performanceOverFirst(Map<String, Summary> results) {
    Map<String, Double> means = new LinkedHashMap<>();
    Map<String, Map<String, Object>> first = null;
    for (Map.Entry<String, Summary> e : results.entrySet()) {
      Map<String, Map<String, Object>> vms = (Map<String, Map<String, Object>>) e.getValue().document().get("vms");
      if (first == null) first = vms;
      double sum = 0;
      int counted = 0;
      for (Map.Entry<String, Map<String, Object>> vm : first.entrySet()) {
        String key = ((Number) vm.getValue().get("fps")).doubleValue() > 0 ? "fps" : "throughput_per_s";
        double base = ((Number) vm.getValue().get(key)).doubleValue();
        Map<String, Object> here = vms.get(vm.getKey());
        if (base <= 0 || here == null) continue;
        sum += ((Number) here.get(key)).doubleValue() / base;
        counted++;
      }
      if (counted > 0) means.put(e.getKey(), sum / counted);
    }
    return means;
  }
}
