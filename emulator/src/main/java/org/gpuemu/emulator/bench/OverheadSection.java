package org.gpuemu.emulator.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.gpuemu.workloads.WorkloadCatalog;

/**
 * Emulation overhead, FairGV's "aggregated overhead" applied to the emulator itself: one VM alone runs a workload
 * whose throughput has an analytic {@link Ideal}, and the overhead is ideal / measured (1 = the emulator costs
 * nothing; 1.05 = 5 % of the work lost to timer lateness and message latency), at several time scales. Lateness
 * turns into overhead because each step of a guest starts when the previous one's message arrives; it grows with
 * the scale, since a wall microsecond is more emulated time in fast forward. The rate is measured through the GPU's
 * busy time in steady state (see {@link SteadyUsage}): continuous, and free of start-up and drain.
 */
final class OverheadSection {
  // Short periods, so that even a short run has a steady state between its first and last period.
  static final String METRICS_PERIOD = "100ms";

  private OverheadSection() {}

  /**
   * One workload at one scale.
   *
   * @param unit "kernels/s" or "fps", per emulated second
   * @param idealGpuUsage the GPU's busy fraction at the ideal rate
   * @param gpuUsage the measured busy fraction in steady state (without the first and last metrics period)
   * @param measured the rate that usage stands for: ideal × gpuUsage / idealGpuUsage
   * @param overhead ideal / measured
   */
  record Row(String workload, double timeScale, double emulatedSeconds, String unit, double ideal, double measured,
      double idealGpuUsage, double gpuUsage, double overhead, long latenessP50Us, long latenessP99Us) {}

  record Report(List<Row> rows) {
    /** The largest overhead at the given scale, over the workloads; NaN when none ran there. */
    double worstAt(double scale) {
      return rows.stream().filter(r -> r.timeScale() == scale).mapToDouble(Row::overhead).max().orElse(Double.NaN);
    }
  }

  static Report run(BenchPlan plan, Runs runs, Consumer<String> progress) throws Exception {
    List<Row> rows = new ArrayList<>();
    for (String workload : plan.overheadWorkloads()) {
      Ideal ideal = Ideal.of(WorkloadCatalog.get(workload));
      for (double scale : plan.overheadScales()) {
        double seconds = plan.overheadSeconds(scale);
        ScenarioText text = new ScenarioText("overhead-" + workload + "-x" + RequestPathSection.fmt(scale),
            "one VM of " + workload + " alone: measured against its analytic ideal")
            .scale(scale).durationSeconds(seconds)
            .set("metrics.period", METRICS_PERIOD)
            .vm("vm", "workload = " + workload + ", vcpus = 1, sync-wait = poll");
        Runs.Measured m = runs.run(text, 0, null);
        double usage = SteadyUsage.of(SteadyUsage.read(m.dir().resolve("timeline.jsonl"), "vm"));
        if (Double.isNaN(usage)) usage = m.meanOverVms("gpu_usage"); // too short for a steady state
        double overhead = usage > 0 ? ideal.gpuUsage() / usage : Double.POSITIVE_INFINITY;
        Row row = new Row(workload, scale, seconds, ideal.unit(), ideal.perSecond(), ideal.perSecond() / overhead,
            ideal.gpuUsage(), usage, overhead, m.lateness().p50(), m.lateness().p99());
        rows.add(row);
        progress.accept(String.format(Locale.ROOT,
            "overhead: %s at scale %s: %.2f %s against an ideal %.2f (GPU %.2f %% of %.2f %%) -> overhead %.4f"
                + " (lateness p99 %,d us)",
            workload, RequestPathSection.fmt(scale), row.measured(), ideal.unit(), ideal.perSecond(), 100 * usage,
            100 * ideal.gpuUsage(), overhead, row.latenessP99Us()));
      }
    }
    return new Report(rows);
  }
}
