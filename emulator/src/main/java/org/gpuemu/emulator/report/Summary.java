package org.gpuemu.emulator.report;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.gpuemu.emulator.clock.Causality;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.faults.Checker;
import org.gpuemu.emulator.faults.RequestHistory;
import org.gpuemu.emulator.gpu.SmGroup;
import org.gpuemu.emulator.cpu.CpuScheduler;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.run.RunResult;
import org.gpuemu.emulator.run.FidelityVerdict;
import org.gpuemu.emulator.vm.VGpu;
import org.gpuemu.emulator.vm.VcpuReport;
import org.gpuemu.policies.vgris.AlgorithmSwitch;
import org.gpuemu.workloads.BenchmarkRun;

/**
 * Turns a {@link RunResult} into the output contract (docs/guides/output-files.md): the {@code summary.json} document,
 * the invariant checks of docs/guides/output-files.md and the fidelity verdict, and the table printed at the end of a
 * run.
 */
public final class Summary {
  /** Relative tolerance of the GPU-time conservation check (docs/guides/output-files.md). */
  static final double CONSERVATION_TOLERANCE = 0.01;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final RunResult r;
  private final List<String> broken = new ArrayList<>();
  private List<FairnessFigures.Row> fairnessRows;
  private final SummaryDoc doc;
  private Map<String, Object> document;
  private boolean faithful;
  /** The fidelity rule that failed ("causality", "lag"), null when faithful. */
  private String rule;
  private String reason;

  public Summary(RunResult result) {
    this.r = result;
    this.doc = build();
  }

  /** The summary.json document, typed. */
  public SummaryDoc doc() {
    return doc;
  }

  /** Each VM's rates the fairness block was computed from, unrounded, in the scenario's order. */
  public List<FairnessFigures.Row> fairnessRows() {
    return fairnessRows;
  }

  /** The summary.json document as the maps and lists Jackson reads it into. */
  public Map<String, Object> document() {
    if (document == null) document = JSON.convertValue(doc, new TypeReference<LinkedHashMap<String, Object>>() { });
    return document;
  }

  /** Invariants the run broke (empty when none): exit status 1. */
  public List<String> brokenInvariants() {
    return broken;
  }

  public boolean faithful() {
    return faithful;
  }

  /**
   * Whether the run's figures are the model's: it is faithful, or it is unfaithful only by lag under the
   * conservative order, which delays the model without changing what it computes (docs/concepts/time-and-order.md; a
   * run in fast forward always lags). False when an event was handled out of model-time order.
   */
  public boolean figuresExact() {
    return faithful || ("lag".equals(rule) && r.order().order() == Causality.Order.CONSERVATIVE);
  }

  /** Why the run is unfaithful; null when it is faithful. */
  public String reason() {
    return reason;
  }

  public void write(Path file) throws IOException {
    JSON.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), doc);
  }

  private SummaryDoc build() {
    VmTally.Totals totals = VmTally.Totals.of(r);
    List<VmTally> tallies = new ArrayList<>();
    for (Settings.Vm vm : r.scenario().vms()) tallies.add(VmTally.of(r, vm, totals));
    fairnessRows = tallies.stream().map(VmTally::fairnessRow).toList();
    boolean many = r.scenario().manyGpus();
    // a run of one GPU has its policies' figures at the top, as before many hosts; several GPUs have them per GPU
    Map<String, Object> figures = many ? new LinkedHashMap<>() : new LinkedHashMap<>(r.scheduler().figures());
    Space space = Space.take(figures, r.scenario());
    Map<String, SummaryDoc.Vm> vms = new LinkedHashMap<>();
    for (VmTally t : tallies) {
      RunResult.GpuResult g = r.gpuOf(t.vm());
      vms.put(t.vm().name(), t.entry(g.scheduler().shares().get(t.vm().index()),
          g.memory().slots().get(t.vm().index()), t.vm().name().equals(space.gameVm()) ? space.game() : null));
      checkLiveness(t);
    }
    GpuTally gpu = GpuTally.of(r.allGpus(), r.emulatedNanos());
    Checker.Outcome checked = Checker.check(r.history(), r.faults(), r.drained());
    List<SummaryDoc.Fault> faults = FaultTally.entries(r.faults(), checked, r.metrics().recoveries());
    SummaryDoc.Invariants invariants = invariants(tallies, gpu, checked);
    return new SummaryDoc(header(), vms, many ? List.of() : switches(r.scheduler()), space.top(),
        many ? figures : policyFigures(figures, r.allGpus().get(0)), gpu.figures(), cpu(), hosts(many),
        placement(many), FairnessFigures.of(fairnessRows, totals.bySolo()), fidelity(gpu.medianKernelNanos()), invariants,
        new SummaryDoc.CheckerVerdict(checked.verdict().result(), checked.verdict().reasons()), faults,
        ControlTally.entries(r.controls()), benchmarks(), null);
  }

  /** Each host: its cores, its VMs and each of its GPUs ({@code many}: with its policies' figures). */
  private Map<String, SummaryDoc.HostEntry> hosts(boolean many) {
    Map<String, SummaryDoc.HostEntry> hosts = new LinkedHashMap<>();
    double seconds = r.emulatedNanos() / 1e9;
    for (int h = 0; h < r.hosts().size(); h++) {
      RunResult.HostResult host = r.hosts().get(h);
      int index = h;
      List<String> names = r.scenario().vms().stream().filter(vm -> vm.host() == index).map(Settings.Vm::name).toList();
      List<SummaryDoc.GpuEntry> gpus = new ArrayList<>();
      for (int g = 0; g < host.gpus().size(); g++) {
        int gi = g;
        RunResult.GpuResult gr = host.gpus().get(g);
        GpuTally t = GpuTally.of(List.of(gr), r.emulatedNanos());
        List<String> onGpu = r.scenario().vms().stream().filter(vm -> vm.host() == index && vm.gpu() == gi)
            .map(Settings.Vm::name).toList();
        Map<String, Object> figures = new LinkedHashMap<>(gr.scheduler().figures());
        gpus.add(new SummaryDoc.GpuEntry(onGpu, t.figures().utilization(), t.figures().busyMs(),
            t.figures().contextSwitches(), many ? policyFigures(figures, gr) : Map.of(),
            many ? switches(gr.scheduler()) : List.of()));
      }
      long busy = 0;
      for (CpuScheduler.CoreReport c : host.cores()) busy += c.busyNanos();
      hosts.put(host.name(), new SummaryDoc.HostEntry(host.cores().size(),
          round(seconds > 0 ? busy / 1e9 / seconds / host.cores().size() : 0, 4), names, gpus));
    }
    return hosts;
  }

  /** The placement policy and the VMs it rejected, for a scenario of several hosts or GPUs. */
  private SummaryDoc.Placement placement(boolean many) {
    if (!many) return null;
    List<SummaryDoc.Rejected> rejected = new ArrayList<>();
    for (Settings.Rejection x : r.scenario().rejected()) {
      rejected.add(new SummaryDoc.Rejected(x.vm(), round(x.atNanos() / 1e9, 3), x.reason()));
    }
    return new SummaryDoc.Placement(r.scenario().placement().name(), rejected);
  }

  /** Every named benchmark the VMs' programs ran, in the order first met (VM by VM), with its performance. */
  private Map<String, SummaryDoc.Benchmark> benchmarks() {
    Map<String, List<BenchmarkRun>> byName = new LinkedHashMap<>();
    for (List<VcpuReport> vm : r.vcpus()) {
      for (VcpuReport thread : vm) {
        for (BenchmarkRun b : thread.benchmarks()) {
          byName.computeIfAbsent(b.name(), k -> new ArrayList<>()).add(b);
        }
      }
    }
    Map<String, SummaryDoc.Benchmark> out = new LinkedHashMap<>();
    byName.forEach((name, runs) -> {
      double sum = 0;
      int ended = 0;
      for (BenchmarkRun b : runs) {
        sum += b.rate(r.emulatedNanos());
        if (b.endNanos() >= 0) ended++;
      }
      out.put(name, new SummaryDoc.Benchmark(runs.get(0).byFrames() ? "fps" : "ops_per_s", runs.size(), ended,
          round(sum / runs.size(), 4)));
    });
    return out;
  }

  private SummaryDoc.Header header() {
    Settings.Scenario s = r.scenario();
    return new SummaryDoc.Header(s.name(), s.file(), s.gpuPolicy().name(), s.cpuPolicy().name(),
        s.memoryPolicy().name(), s.timeScale(), round(r.emulatedNanos() / 1e9, 3), round(r.wallSeconds(), 3),
        s.seed());
  }

  private void checkLiveness(VmTally t) {
    long maxStall = t.threads().maxStall();
    if (maxStall > r.scenario().fidelity().livenessTimeoutNanos()) {
      broken.add("liveness: vm '" + t.vm().name() + "' made no progress for " + round(maxStall / 1e9, 3) + " s");
    }
  }

  private static List<SummaryDoc.PolicySwitch> switches(org.gpuemu.emulator.gpu.Scheduling.SchedulerReport scheduler) {
    List<SummaryDoc.PolicySwitch> switches = new ArrayList<>();
    for (AlgorithmSwitch sw : scheduler.switches()) {
      switches.add(new SummaryDoc.PolicySwitch(round(sw.nanos() / 1e9, 3), sw.from().label(), sw.to().label()));
    }
    return switches;
  }

  /**
   * A space-sharing run (combo.txt §6): Eq. 6's BE throughput and the QoS violations at the top, the game VM's
   * 99th-percentile and average FPS and its QoS headroom distribution (Figure 15) in its entry; the rest stays under
   * the policy's name.
   */
  private record Space(SummaryDoc.SpaceSharing top, String gameVm, SummaryDoc.GameFigures game) {
    /** Takes the space-sharing figures out of the policy's; none when the run did not share space. */
    static Space take(Map<String, Object> figures, Settings.Scenario s) {
      if (!figures.containsKey("be_throughput")) return new Space(null, null, null);
      Map<String, Object> perFrame = new LinkedHashMap<>();
      Object byVgpu = figures.remove("be_kernels_per_frame");
      if (byVgpu instanceof Map<?, ?> m) {
        m.forEach((vgpu, n) -> perFrame.put(s.vms().get(Integer.parseInt((String) vgpu)).name(), n));
      }
      SummaryDoc.SpaceSharing top = new SummaryDoc.SpaceSharing(figures.remove("be_throughput"),
          figures.remove("qos_violations"), perFrame);
      int game = ((Number) figures.remove("game_vm")).intValue();
      SummaryDoc.GameFigures figuresOfGame = new SummaryDoc.GameFigures(figures.remove("fps_avg"),
          figures.remove("fps_p99"), figures.remove("frames_rendered"), figures.remove("headroom_ms"),
          top.qosViolations(), figures.remove("gpu_idle"), figures.remove("render_sm_share"),
          figures.remove("render_error"), figures.remove("online_overhead_ms"));
      return new Space(top, s.vms().get(game).name(), figuresOfGame);
    }
  }

  /** Each policy's own figures under its name: the GPU policy's (less the space-sharing ones), the memory's. */
  private Map<String, Object> policyFigures(Map<String, Object> gpuFigures, RunResult.GpuResult gpu) {
    Map<String, Object> byPolicy = new LinkedHashMap<>();
    if (!gpuFigures.isEmpty()) byPolicy.put(r.scenario().gpuPolicy().name(), gpuFigures);
    if (!gpu.memory().figures().isEmpty()) byPolicy.put(r.scenario().memoryPolicy().name(), gpu.memory().figures());
    return byPolicy;
  }

  /** SM groups summed: one GPU's, or every GPU's ({@code gpus} of them, all of one SM count). */
  private record GpuTally(long spanNanos, long kernelBusyNanos, double smBusyNanos, int totalSms, long switchNanos,
      long contextSwitches, long medianKernelNanos) {
    static GpuTally of(List<RunResult.GpuResult> gpus, long emulatedNanos) {
      long kernelBusy = 0, switchTime = 0, switches = 0, median = Long.MAX_VALUE, span = emulatedNanos;
      double smBusy = 0;
      int totalSms = gpus.isEmpty() ? 1 : 0;
      int partitioned = 0;
      for (RunResult.GpuResult gpu : gpus) {
        // every group of a GPU spans the GPU's SMs (space-shared groups own changing shares of them); the units of
        // a partitioned GPU (MIG instances, capped MPS clients: config/SharingModes) own parts of one GPU's SMs
        if (gpu.smGroups().isEmpty()) {
          totalSms += 1;
        } else if (gpus.size() > 1 && gpu.smGroups().size() == 1
            && gpu.smGroups().get(0).sms() < gpu.smGroups().get(0).totalSms()) {
          partitioned = Math.max(partitioned, gpu.smGroups().get(0).totalSms());
        } else {
          totalSms += gpu.smGroups().get(0).totalSms();
        }
      }
      totalSms += partitioned;
      for (SmGroup.GroupReport g : gpus.stream().flatMap(x -> x.smGroups().stream()).toList()) {
        span = Math.max(span, g.lastEventNanos());
        kernelBusy += g.kernelBusyNanos();
        smBusy += g.smBusyNanos() + (double) g.sms() * g.switchNanos();
        switchTime += g.switchNanos();
        switches += g.contextSwitches();
        if (g.medianKernelNanos() > 0) median = Math.min(median, g.medianKernelNanos());
      }
      return new GpuTally(span, kernelBusy, smBusy, totalSms, switchTime, switches, median);
    }

    // over the run and the drain after it, when the GPU finished what the guests had queued: the share of SM time
    // spent running kernels or switching contexts (space-shared groups own changing shares of the SMs)
    SummaryDoc.Gpu figures() {
      return new SummaryDoc.Gpu(round(spanNanos > 0 ? smBusyNanos / spanNanos / totalSms : 0, 4),
          round(kernelBusyNanos / 1e6, 3), contextSwitches, round(switchNanos / 1e6, 3),
          round(medianKernelNanos == Long.MAX_VALUE ? 0 : medianKernelNanos / 1e6, 4));
    }
  }

  private SummaryDoc.Cpu cpu() {
    double seconds = r.emulatedNanos() / 1e9;
    long busy = 0;
    long switches = 0;
    List<CpuScheduler.CoreReport> cores = r.allCores();
    for (CpuScheduler.CoreReport c : cores) {
      busy += c.busyNanos();
      switches += c.switches();
    }
    return new SummaryDoc.Cpu(cores.size(), round(seconds > 0 ? busy / 1e9 / seconds / cores.size() : 0, 4),
        switches);
  }

  /**
   * The verdict on the unit the run emulated: frames when its guests present (what they measure is frame latency;
   * a late kernel timer only delays when the guest hears of the kernel's end, since the SM group chains kernel ends
   * from their due times and accounts model durations), kernels otherwise.
   */
  private SummaryDoc.Fidelity fidelity(long medianKernelNanos) {
    Settings.Scenario s = r.scenario();
    long frameMedian = r.metrics().medianFrameNanos();
    boolean byFrames = frameMedian > 0;
    long reference = byFrames ? frameMedian : medianKernelNanos;
    boolean known = reference != Long.MAX_VALUE;
    String unit = byFrames ? "median frame" : "GPU-time median kernel";
    FidelityVerdict verdict = FidelityVerdict.of(r.order(), reference, unit, s.fidelity(), s.timeScale());
    faithful = verdict.faithful();
    rule = verdict.rule();
    reason = verdict.reason();
    return new SummaryDoc.Fidelity(faithful, reason, known ? unit : null, known ? round(reference / 1e6, 3) : null,
        causality(known ? OptionalLong.of(reference) : OptionalLong.empty()),
        r.runningWallSeconds() > 0 ? round(r.emulatedNanos() / 1e9 / r.runningWallSeconds(), 4) : null,
        SummaryDoc.Distribution.of(r.lateness(), r.latenessHistogram()), SummaryDoc.Distribution.of(r.skew()),
        r.metrics().timelineDropped(), ControlTally.progress(r.progress()));
  }

  /** The causal order; without a reference unit, no violation limit. */
  private SummaryDoc.Causality causality(OptionalLong referenceNanos) {
    Causality.Snapshot o = r.order();
    Settings.Scenario s = r.scenario();
    boolean arrival = o.order() == Causality.Order.ARRIVAL;
    return new SummaryDoc.Causality(o.order().label(), round(s.fidelity().horizonWallNanos() / 1e6, 3), o.ordered(),
        o.held(), o.violations(), o.tieInversions(), o.observerViolations(),
        new SummaryDoc.ViolationSizes(o.violationSizes().p50(), o.violationSizes().p99(),
            round(o.largestViolationNanos() / 1e3, 1)),
        !arrival ? Double.valueOf(0) : referenceNanos.isEmpty() ? null
            : round(s.fidelity().violationThreshold() * referenceNanos.getAsLong() / 1e3, 1),
        new SummaryDoc.Lag(o.lag().p50(), o.lag().p99(), o.lag().max(), SummaryDoc.Buckets.of(r.lagHistogram())),
        round(o.lag().p50() / 1e3 / s.timeScale(), 3), round(o.lag().p99() / 1e3 / s.timeScale(), 3),
        o.beyondHorizon());
  }

  private SummaryDoc.Invariants invariants(List<VmTally> tallies, GpuTally gpu, Checker.Outcome checked) {
    long submitted = 0, completed = 0, failed = 0, open = 0, accountedBusy = 0;
    List<String> failures = new ArrayList<>();
    for (VmTally t : tallies) {
      submitted += t.submitted();
      completed += t.completed();
      failed += t.failed();
      open += t.vgpu().outstanding();
      failures.addAll(t.threads().failures());
    }
    failures.addAll(FaultTally.reasons(r.scenario(), r.vgpus(), r.history()));
    for (VGpu.VgpuReport v : r.vgpus()) accountedBusy += v.gpuBusyNanos();
    long lost = submitted - completed - failed;
    long kernelBusy = gpu.kernelBusyNanos();
    boolean conserved = Math.abs(accountedBusy - kernelBusy) <= CONSERVATION_TOLERANCE * Math.max(1, kernelBusy);
    checkRequests(lost, submitted);
    if (!conserved) {
      broken.add("gpu_time_conserved: vGPUs accounted " + round(accountedBusy / 1e6, 3) + " ms, SM groups were busy "
          + round(kernelBusy / 1e6, 3) + " ms");
    }
    checkPolicies();
    // the checker's findings on the request history: a duplicate, a failure no fault explains, a request lost
    if (checked.verdict().invalid()) checked.verdict().reasons().forEach(reason -> broken.add("checker: " + reason));
    long retried = r.history().vms().stream().mapToLong(RequestHistory.VmHistory::retried).sum();
    return new SummaryDoc.Invariants(submitted, completed, failed, lost, checked.duplicated(), retried, open, conserved,
        failures.size() > 10 ? failures.subList(0, 10) : failures, broken, broken.isEmpty());
  }

  private void checkRequests(long lost, long submitted) {
    if (lost != 0) {
      broken.add("requests_lost: " + lost + " of " + submitted + " requests neither completed nor failed"
          + (r.drained() ? "" : " (the GPU did not drain)"));
    }
  }

  private void checkPolicies() {
    boolean many = r.scenario().manyGpus();
    for (RunResult.HostResult h : r.hosts()) {
      for (int g = 0; g < h.gpus().size(); g++) {
        String at = many ? " (host " + h.name() + ", GPU " + g + ")" : "";
        for (String v : h.gpus().get(g).scheduler().violations()) broken.add("gpu policy" + at + ": " + v);
        for (String v : h.gpus().get(g).memory().violations()) broken.add("memory policy" + at + ": " + v);
      }
      for (CpuScheduler.CoreReport c : h.cores()) {
        for (String v : c.violations()) {
          broken.add("cpu policy (" + (many ? "host " + h.name() + ", " : "") + "core " + c.core() + "): " + v);
        }
      }
    }
    if (r.metrics().timelineDropped() > 0 || r.metrics().sinkFailure() != null) {
      broken.add("timeline: " + r.metrics().timelineDropped() + " rows dropped"
          + (r.metrics().sinkFailure() == null ? "" : ", sink failed: " + r.metrics().sinkFailure()));
    }
  }

  /** The table printed at the end of a run ({@link SummaryTable}). */
  public String table() {
    return SummaryTable.of(doc, faithful, broken);
  }

  /** How long the VM's program ran: from its start delay to its stop-after or the end of the run. */
  static long ranNanos(Settings.Vm vm, long endNanos) {
    return Math.max(0, vm.stopNanos(endNanos) - vm.startDelayNanos());
  }

  static double round(double v, int digits) {
    double f = Math.pow(10, digits);
    return Math.round(v * f) / f;
  }

  /**
   * Each VM's performance over the first policy's, averaged over the VMs (gballoon.txt Figures 6-7: every benchmark
   * normalised to gVirt-384, 3D by FPS and 2D by run time, then summarised): a VM that showed frames is measured by
   * its FPS, any other by its GPU operations per second (a 2D trace's fixed operations: its run time's inverse); VMs
   * with nothing under the first policy count nothing. Empty when no VM can be normalised.
   */
  public static Map<String, Double> performanceOverFirst(Map<String, Summary> results) {
    Map<String, Double> means = new LinkedHashMap<>();
    Map<String, SummaryDoc.Vm> first = null;
    for (Map.Entry<String, Summary> e : results.entrySet()) {
      Map<String, SummaryDoc.Vm> vms = e.getValue().doc().vms();
      if (first == null) first = vms;
      double sum = 0;
      int counted = 0;
      for (Map.Entry<String, SummaryDoc.Vm> vm : first.entrySet()) {
        boolean byFps = vm.getValue().frames().fps() > 0;
        double base = performance(vm.getValue(), byFps);
        SummaryDoc.Vm here = vms.get(vm.getKey());
        if (base <= 0 || here == null) continue;
        sum += performance(here, byFps) / base;
        counted++;
      }
      if (counted > 0) means.put(e.getKey(), sum / counted);
    }
    return means;
  }

  private static double performance(SummaryDoc.Vm vm, boolean byFps) {
    return byFps ? vm.frames().fps() : vm.gpu().throughputPerS();
  }
}
