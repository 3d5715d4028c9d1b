package org.gpuemu.emulator.soak;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.gpuemu.emulator.clock.Causality;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.faults.RequestHistory;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.emulator.report.SummaryDoc;
import org.gpuemu.emulator.run.RunResult;
import org.gpuemu.emulator.run.Runner;
import org.gpuemu.emulator.vm.VGpu;

/**
 * A soak: one long run of a scenario (not a loop of short ones: a leak or a slow drift shows only in state that
 * lives as long as the run, the actors' queues, ledgers and histograms, which a fresh actor system per seed would
 * reset), sampled every check period through {@link Runner}'s live loop, then judged by {@link SoakRules}. Writes
 * the run's usual {@code summary.json} and {@code timeline.jsonl} and {@code soak.json}: the samples, the rules'
 * limits, the summary and the verdict.
 */
public final class Soak {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What a soak produced. */
  public record Result(List<SoakSample> samples, Summary summary, SoakRules.SoakVerdict verdict, double wallSeconds) {}

  private Soak() {}

  /**
   * Runs {@code scenario} into {@code out}, sampling every {@code checkEveryNanos} of emulated time; {@code progress}
   * gets the live views, as a run's progress line does.
   */
  public static Result run(Settings.Scenario scenario, long checkEveryNanos, Path out,
      Consumer<MetricsHub.LiveView> progress) throws Exception {
    Recorder recorder = new Recorder(scenario, checkEveryNanos);
    // poll at least twice per check period (in wall time), at most every second, never more often than 20 times a second
    long liveEvery = Math.max(50, Math.min(1000, Math.round(checkEveryNanos / scenario.timeScale() / 2e6)));
    RunResult result = Runner.run(scenario, out, Runner.Options.every(liveEvery, progress)
        .withStarted(recorder::started).withSampler(recorder));
    Summary summary = new Summary(result);
    summary.write(out.resolve("summary.json"));
    recorder.finalSample(result, summary);
    SummaryDoc.Invariants inv = summary.doc().invariants();
    SoakRules.Limits limits = limits(scenario);
    SoakRules.SoakVerdict verdict = SoakRules.judge(recorder.samples, new SoakRules.End(inv.requestsLost(),
        inv.requestsOpenAtEnd(), inv.requestsDuplicated(), summary.brokenInvariants()), limits);
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("scenario", scenario.name());
    doc.put("time_scale", scenario.timeScale());
    doc.put("emulated_seconds", result.emulatedNanos() / 1e9);
    doc.put("wall_seconds", result.wallSeconds());
    doc.put("check_every_s", checkEveryNanos / 1e9);
    doc.put("live_actors", "not sampled: Pekko keeps no cheap count");
    Map<String, Object> rules = new LinkedHashMap<>();
    rules.put("heap_skip_s", limits.heapSkipNanos() / 1e9);
    rules.put("heap_floor_window_s", limits.floorWindowNanos() / 1e9);
    rules.put("heap_slope_mib_per_hour", limits.heapSlopeBytesPerHour() / 1048576.0);
    rules.put("heap_growth_fraction", limits.heapGrowthFraction());
    rules.put("heap_growth_mib", limits.heapGrowthBytes() >> 20);
    rules.put("liveness_timeout_s", limits.livenessTimeoutNanos() / 1e9);
    rules.put("lag_share", limits.lagShare());
    rules.put("unfaithful_stretch_s", limits.unfaithfulNanos() / 1e9);
    doc.put("rules", rules);
    doc.put("samples", recorder.samples);
    Map<String, Object> judged = new LinkedHashMap<>();
    judged.put("ok", verdict.ok());
    judged.put("problems", verdict.problems());
    judged.put("heap_floor_slope_mib_per_hour", Double.isNaN(verdict.heapSlopeMibPerHour()) ? null
        : verdict.heapSlopeMibPerHour());
    judged.put("faults_injected", summary.doc().faults().size());
    judged.put("checker", summary.doc().verdict());
    doc.put("verdict", judged);
    doc.put("summary", summary.doc());
    JSON.writerWithDefaultPrettyPrinter().writeValue(out.resolve("soak.json").toFile(), doc);
    return new Result(List.copyOf(recorder.samples), summary, verdict, result.wallSeconds());
  }

  /** The rules' limits for this scenario: each VM's active window, the scenario's liveness timeout. */
  static SoakRules.Limits limits(Settings.Scenario scenario) {
    Map<String, long[]> active = new LinkedHashMap<>();
    for (Settings.Vm vm : scenario.vms()) {
      long stop = vm.stopAfterNanos() > 0 ? vm.stopAfterNanos() : Long.MAX_VALUE;
      active.put(vm.name(), new long[] {vm.startDelayNanos(), stop});
    }
    return SoakRules.Limits.of(scenario.fidelity().livenessTimeoutNanos(), active, scenario.fidelity().lagShare());
  }

  /** Takes the samples on the runner's thread. */
  private static final class Recorder implements Runner.Sampler {
    private final long every;
    private final long wallStart = System.nanoTime();
    final List<SoakSample> samples = new ArrayList<>();
    private long next;
    /** The heap floor's window (emulated ns) and the last window a full collection was requested in (-1: none). */
    private final long floorWindow;
    private long collectedWindow = -1;
    /** The run's context, for its causal order's counts (set before any actor exists). */
    private volatile RunContext context;

    void started(RunContext context) {
      this.context = context;
    }

    Recorder(Settings.Scenario scenario, long every) {
      this.every = every;
      this.next = every;
      this.floorWindow = limits(scenario).floorWindowNanos();
    }

    /** Due at each check time, once the run has begun (before time zero the view's time is the clock's, not the model's). */
    @Override public boolean due(long emulatedNanos) {
      return emulatedNanos >= next && context != null && context.causality().snapshot().ordered() > 0;
    }

    /** The guests' counts come from the run's request history (channel failures included), not the vGPUs'. */
    @Override public void sample(MetricsHub.LiveView view, List<VGpu.VgpuReport> vgpus,
        RequestHistory.Totals requests) {
      while (next <= view.emulatedNanos()) next += every;
      add(view.emulatedNanos(), requests, view.verdict() == null ? "unknown" : view.verdict(),
          context.causality().snapshot(), view.latenessP99Us());
    }

    void finalSample(RunResult result, Summary summary) {
      add(result.emulatedNanos(), result.history().totals(),
          summary.faithful() ? "faithful" : "UNFAITHFUL " + summary.reason(), result.order(), -1);
    }

    private void add(long emulatedNanos, RequestHistory.Totals requests, String fidelity, Causality.Snapshot order,
        long latenessP99Us) {
      // The first sample of each heap-floor window follows a full collection the soak requests: young collections
      // never empty the old generation, and with G1's heap sized from the machine's memory no mixed one comes in an
      // hour, so without it the floor counts promoted garbage and rises with run length (1.30 MiB per hour in a 1-hour
      // soak whose live set, by jcmd GC.class_histogram, grew 0.3 MiB per hour). One stop-the-world pause of tens
      // of ms every 5 emulated minutes, below the lag rule's 100 ms.
      long window = emulatedNanos / floorWindow;
      if (window != collectedWindow) {
        collectedWindow = window;
        System.gc();
      }
      HeapAfterGc heap = HeapAfterGc.read();
      samples.add(new SoakSample(emulatedNanos / 1e9, (System.nanoTime() - wallStart) / 1e9, heap.bytes(), heap.gcs(),
          ManagementFactory.getThreadMXBean().getThreadCount(), requests.submitted(), requests.completed(),
          requests.failed(), requests.open(), requests.completedByVm(), order.ordered(), order.beyondHorizon(),
          order.violations(), latenessP99Us, fidelity));
    }
  }
}
