package org.gpuemu.emulator.report.html;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The panels of a compare folder: per VM figures with the policies side by side (grouped bars, one bar per policy),
 * the run-level rows of {@code compare.json} grouped by scale, fidelity per policy, then each policy's FPS over time.
 * A figure that no policy has (all missing, or all zero) gets no panel.
 */
final class ComparePanels {
  static final String SIDE_BY_SIDE = "Policies side by side";
  static final String RUNS = "Run figures";
  static final String FIDELITY = "Fidelity per policy";
  static final String OVER_TIME = "FPS over time, per policy";
  static final String PAPER = "Against the paper";

  private static final List<String[]> PER_VM = List.of(
      new String[] {"fps", "FPS", "FPS per VM", "frames presented per emulated second over the run"},
      new String[] {"gpu_share", "share", "GPU share per VM", "the VM's part of all vGPU busy time"},
      new String[] {"normalized_throughput", "normalized", "Normalized throughput per VM",
          "throughput over the VM's ideal weighted share; 1 = exactly its share"},
      new String[] {"throughput_per_s", "kernels/s", "Throughput per VM", "kernels completed per emulated second"},
      new String[] {"normalized_run_time", "×", "Normalized run time per VM",
          "solo throughput over throughput (FairGV Figure 11; 2.0 = a fair half)"},
      new String[] {"fps_p99", "FPS", "fps_p99 per game VM", "1 s over the 99th-percentile frame time (COMBO)"});

  private final List<RunData> runs;
  private final JsonNode rows;
  private final List<Panel> panels = new ArrayList<>();

  private ComparePanels(List<RunData> runs, JsonNode compare) {
    this.runs = runs;
    this.rows = compare.path("rows");
  }

  static List<Panel> of(List<RunData> runs, JsonNode compare) {
    ComparePanels p = new ComparePanels(runs, compare);
    p.paper(compare.path("paper"));
    p.perVm();
    p.runRows("fairness", "Fairness", "", "compare.json's fairness rows (MMR: FairGV, λ: VMCG)",
        name -> name.startsWith("fairness "));
    p.runRows("ratios", "Utilization and relative performance", "", "GPU utilization, the sum of the VMs' FPS over "
        + "the first policy's (gBalloon Figures 5–8) and the mean performance over the first policy's",
        name -> name.equals("gpu utilization") || name.endsWith(" / first"));
    p.runRows("be", "BE throughput", "", "best-effort throughput per kernel type (COMBO Eq. 6)",
        name -> name.startsWith("be_throughput "));
    p.fidelity();
    for (RunData run : runs) p.panels.addAll(RunPanels.fpsOnly(run, OVER_TIME));
    return List.copyOf(p.panels);
  }

  /**
   * compare.json's {@code paper} rows (the scenario's {@code expect} block): for each metric, the value this compare
   * measured beside the paper's, one group per VM and policy; one panel per metric, since their scales differ.
   */
  private void paper(JsonNode paper) {
    if (!paper.isArray() || paper.isEmpty()) return;
    Map<String, List<JsonNode>> byMetric = new LinkedHashMap<>();
    for (JsonNode row : paper) {
      String metric = row.path("metric").asText("");
      String leaf = metric.substring(metric.lastIndexOf('.') + 1);
      byMetric.computeIfAbsent(row.path("figure").asText("") + "|" + leaf, k -> new ArrayList<>()).add(row);
    }
    int n = 0;
    for (Map.Entry<String, List<JsonNode>> e : byMetric.entrySet()) {
      List<String> categories = new ArrayList<>();
      List<Double> measured = new ArrayList<>();
      List<Double> stated = new ArrayList<>();
      StringBuilder notes = new StringBuilder();
      for (JsonNode row : e.getValue()) {
        String metric = row.path("metric").asText();
        int dot = metric.lastIndexOf('.');
        String owner = metric.startsWith("vms.") && dot > 4 ? metric.substring(4, dot) : metric.substring(0,
            Math.max(0, dot));
        categories.add((owner.isEmpty() ? "" : owner + " ") + "(" + row.path("policy").asText() + ")");
        measured.add(RunPanels.number(row.get("measured")));
        stated.add(RunPanels.number(row.get("paper")));
        if (row.has("bound")) notes.append(' ').append(row.path("policy").asText()).append(": the paper says ")
            .append(row.path("bound").asText()).append(' ').append(RunPanels.fmt(row.path("paper").asDouble()))
            .append('.');
        if (row.has("low")) notes.append(' ').append(row.path("policy").asText()).append(": the paper's range ")
            .append(RunPanels.fmt(row.path("low").asDouble())).append("–")
            .append(RunPanels.fmt(row.path("high").asDouble())).append(", drawn at its middle.");
      }
      Map<String, List<Double>> series = new LinkedHashMap<>();
      series.put("measured here", measured);
      series.put("paper", stated);
      String[] key = e.getKey().split("\\|", 2);
      panels.add(new Panel("cmp-paper-" + n++, PAPER, key[0] + ": " + key[1], "This compare's value beside the "
          + "paper's, for each row of the scenario's expect block that gives a number (compare.json paper; "
          + "docs/guides/reproducing.md says how `reproduce` judges them, over its own durations and seeds)." + notes,
          Charts.bars(key[1], categories, series)));
    }
  }

  private void perVm() {
    Set<String> vms = new LinkedHashSet<>();
    for (RunData run : runs) run.summary().path("vms").fieldNames().forEachRemaining(vms::add);
    for (String[] figure : PER_VM) {
      Map<String, List<Double>> series = new LinkedHashMap<>();
      boolean any = false;
      for (RunData run : runs) {
        List<Double> values = new ArrayList<>();
        for (String vm : vms) {
          Double v = RunPanels.number(run.summary().path("vms").path(vm).get(figure[0]));
          values.add(v);
          any |= v != null && v != 0;
        }
        series.put(run.label(), values);
      }
      if (!any) continue;
      panels.add(new Panel("cmp-" + figure[0], SIDE_BY_SIDE, figure[2], "One bar per policy: " + figure[3]
          + " (each policy's summary.json vms." + figure[0] + ").", Charts.bars(figure[1], List.copyOf(vms), series)));
    }
  }

  /** The numeric compare.json rows whose names {@code pick} accepts, one group per row, one bar per policy. */
  private void runRows(String id, String title, String unit, String what, Predicate<String> pick) {
    List<String> names = new ArrayList<>();
    rows.fieldNames().forEachRemaining(n -> {
      if (pick.test(n) && numeric(rows.get(n))) names.add(n);
    });
    if (names.isEmpty()) return;
    Map<String, List<Double>> series = new LinkedHashMap<>();
    for (RunData run : runs) {
      List<Double> values = new ArrayList<>();
      for (String n : names) values.add(RunPanels.number(rows.get(n).get(run.label())));
      series.put(run.label(), values);
    }
    panels.add(new Panel("cmp-" + id, RUNS, title, "One bar per policy: " + what + " (compare.json rows).",
        Charts.bars(unit, names, series)));
  }

  private static boolean numeric(JsonNode row) {
    for (JsonNode v : row) if (v.isNumber()) return true;
    return false;
  }

  private void fidelity() {
    List<String> keys = List.of("timer lateness p99", "causality violation p99", "message skew p99");
    Map<String, List<Double>> series = new LinkedHashMap<>();
    boolean any = false;
    for (RunData run : runs) {
      JsonNode f = run.summary().path("fidelity");
      List<Double> values = List.of(RunPanels.number(f.path("timer_lateness_us").get("p99")),
          RunPanels.number(f.path("causality").path("violation_us").get("p99")), RunPanels.number(f.path("message_skew_us").get("p99")));
      any |= values.stream().anyMatch(v -> v != null);
      series.put(run.label(), new ArrayList<>(values));
    }
    if (!any) return;
    StringBuilder verdicts = new StringBuilder();
    for (RunData run : runs) verdicts.append(' ').append(run.label()).append(": ")
        .append(RunPanels.verdict(run.summary()).replaceFirst("^Verdict: ", ""));
    panels.add(new Panel("cmp-fidelity", FIDELITY, "Timer lateness and causality per policy",
        "Emulated µs (summary.json fidelity)." + verdicts, Charts.bars("µs", keys, series)));
  }
}
