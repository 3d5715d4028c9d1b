package org.gpuemu.emulator.report.html;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * The panels of one run, each only when the run has its data: FPS per VM over time with the policy's mode
 * switches (VGRIS Figure 11), GPU share per VM over time, frame-latency percentiles, λ over time and normalized
 * throughput (FairGV, VMCG), COMBO's BE throughput, FPS percentiles and QoS headroom histogram, memory and
 * gBalloon's slots over time, and the fidelity panels. {@code prefix} keeps ids unique when a compare page holds
 * several runs.
 */
final class RunPanels {
  static final String FRAMES = "Frames and GPU share";
  static final String FAIRNESS = "Fairness";
  static final String SPACE = "Space sharing (COMBO)";
  static final String MEMORY = "Memory";
  static final String FIDELITY = "Fidelity";

  private final RunData run;
  private final String prefix;
  private final List<JsonNode> rows;
  private final String tail;
  private final TimeMarks marks;
  private final List<Panel> panels = new ArrayList<>();

  private RunPanels(RunData run, String prefix) {
    this.run = run;
    this.prefix = prefix;
    this.marks = new TimeMarks(run.summary());
    List<Double> times = run.timeline().stream().map(r -> r.get("t_s").asDouble()).distinct().sorted().toList();
    double last = times.isEmpty() ? 0 : times.get(times.size() - 1);
    if (times.size() >= 3 && last - times.get(times.size() - 2) < (times.get(1) - times.get(0)) / 2) {
      // the run's end cuts the last metrics period short (often a few ms of drain): its rates would be noise
      rows = run.timeline().stream().filter(r -> r.get("t_s").asDouble() != last).toList();
      tail = " The last, shortened period (" + fmt(times.get(times.size() - 2)) + "–" + fmt(last) + " s) is left out.";
    } else {
      rows = run.timeline();
      tail = "";
    }
  }

  /** Every panel the run has data for, in reading order. */
  static List<Panel> of(RunData run) {
    RunPanels p = new RunPanels(run, "");
    p.fps();
    p.share();
    p.latency();
    p.fairness();
    p.normalizedThroughput();
    p.space();
    p.memory();
    p.fidelity();
    return List.copyOf(p.panels);
  }

  /** The FPS-over-time panel alone, titled with the run's label (compare pages); empty when there are no frames. */
  static List<Panel> fpsOnly(RunData run, String group) {
    RunPanels p = new RunPanels(run, run.label() + "-");
    p.fps();
    return p.panels.stream()
        .map(x -> new Panel(x.id(), group, x.title() + " — " + run.label(), x.caption(), x.option())).toList();
  }

  private void add(String id, String group, String title, String caption, ObjectNode option) {
    panels.add(new Panel(prefix + id, group, title, caption, option));
  }

  private void fps() {
    Map<String, List<double[]>> series = perVm(row -> row.path("fps").asDouble(), true);
    if (series.isEmpty()) return;
    ObjectNode option = Charts.lines("FPS", series);
    StringBuilder caption = new StringBuilder("Frames presented per emulated second in each metrics period "
        + "(timeline.jsonl).");
    Set<Double> slas = new LinkedHashSet<>();
    for (String vm : series.keySet()) {
      double sla = run.summary().path("vms").path(vm).path("sla_fps").asDouble(0);
      if (sla > 0) slas.add(sla);
    }
    for (double sla : slas) Charts.markHorizontal(option, sla, "SLA " + fmt(sla) + " fps");
    List<Double> at = new ArrayList<>();
    List<String> labels = new ArrayList<>();
    JsonNode switches = run.summary().path("policy_switches");
    if (switches.isArray() && !switches.isEmpty()) {
      for (JsonNode s : switches) {
        at.add(s.path("t_s").asDouble());
        labels.add(s.path("from").asText() + " → " + s.path("to").asText());
      }
      caption.append(" Dashed vertical lines: the policy's switches (summary.json policy_switches).");
    } else {
      modeChanges(at, labels);
      if (!at.isEmpty()) {
        caption.append(" Dashed vertical lines: the policy's mode changed within the metrics period starting there.");
      }
    }
    Charts.markVertical(option, at, labels);
    String mode = firstMode();
    if (at.isEmpty() && !mode.isEmpty()) caption.append(" Policy mode: ").append(mode).append(" throughout.");
    if (!slas.isEmpty()) caption.append(" Dashed horizontal line: the SLA.");
    marks.on(option);
    caption.append(marks.caption()).append(tail);
    add("fps", FRAMES, "FPS per VM over time", caption.toString(), option);
  }

  /** The timeline's mode column: where it differs from the previous period's, at that period's start. */
  private void modeChanges(List<Double> at, List<String> labels) {
    String last = null;
    double lastT = 0;
    for (JsonNode row : rows) {
      String mode = row.path("mode").asText("");
      double t = row.path("t_s").asDouble();
      if (last != null && t != lastT && !mode.equals(last)) {
        at.add(lastT);
        labels.add("→ " + mode);
      }
      if (last == null || t != lastT) {
        last = mode;
        lastT = t;
      }
    }
  }

  private String firstMode() {
    return rows.isEmpty() ? "" : rows.get(0).path("mode").asText("");
  }

  private void share() {
    Map<String, List<double[]>> series = perVm(row -> row.path("gpu_share").asDouble(), true);
    if (series.isEmpty()) return;
    ObjectNode option = Charts.lines("share", series);
    ((ObjectNode) option.get("yAxis")).put("max", 1);
    marks.on(option);
    add("share", FRAMES, "GPU share per VM over time",
        "Each VM's part of the GPU time the vGPUs used in each metrics period (timeline.jsonl gpu_share)."
        + marks.caption() + tail, option);
  }

  private void latency() {
    Map<String, List<double[]>> cdf = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> vm : vms()) {
      JsonNode points = vm.getValue().path("frame_latency_ms").path("cdf");
      if (vm.getValue().path("frames").asLong() <= 0 || points.size() < 2) continue;
      List<double[]> line = new ArrayList<>();
      for (int i = 0; i < points.size(); i++) line.add(new double[] {points.get(i).asDouble(), i / (points.size() - 1.0)});
      cdf.put(vm.getKey(), line);
    }
    if (!cdf.isEmpty()) {
      ObjectNode option = Charts.xy("frame latency, ms (log scale)", "fraction of frames", cdf);
      ((ObjectNode) option.get("yAxis")).put("max", 1);
      // a fault's or a stall's few long frames would squeeze every other frame into the left edge of a linear axis
      ((ObjectNode) option.get("xAxis")).put("type", "log").put("logBase", 10);
      add("latency-cdf", FRAMES, "Frame latency CDF per VM", "The fraction of each VM's frames whose latency (time "
          + "between two Present returns, vgris §3.2) was at most x ms, as VGRIS Figures 2 and 7 draw it "
          + "(summary.json frame_latency_ms.cdf: the latency at 0, 1, …, 100 % of the frames).", option);
      return;
    }
    List<String> vms = new ArrayList<>();
    Map<String, List<Double>> series = new LinkedHashMap<>();
    for (String key : List.of("p50", "p99", "max")) series.put(key, new ArrayList<>());
    for (Map.Entry<String, JsonNode> vm : vms()) {
      JsonNode lat = vm.getValue().path("frame_latency_ms");
      if (vm.getValue().path("frames").asLong() <= 0 || !lat.isObject()) continue;
      vms.add(vm.getKey());
      for (String key : series.keySet()) series.get(key).add(number(lat.get(key)));
    }
    if (vms.isEmpty()) return;
    add("latency", FRAMES, "Frame latency per VM", "Time between two Present returns (vgris §3.2), in ms. "
        + "This summary.json keeps only these percentiles, not the distribution (frame_latency_ms.cdf, written by "
        + "runs of later versions), so no CDF (VGRIS Figures 2, 7) is drawn.",
        Charts.bars("ms", vms, series));
  }

  private void fairness() {
    JsonNode fair = run.summary().path("fairness");
    Double mmr = number(fair.get("mmr"));
    Double lambda = number(fair.get("lambda"));
    Map<Double, Double> byTime = new LinkedHashMap<>();
    for (JsonNode row : rows) {
      if (row.hasNonNull("lambda")) byTime.putIfAbsent(row.get("t_s").asDouble(), row.get("lambda").asDouble());
    }
    String finals = (mmr == null ? "" : " MMR (min/max of normalized throughput, FairGV) over the run: " + fmt(mmr)
        + ".") + (lambda == null ? "" : " λ over the run: " + fmt(lambda) + ".");
    List<double[]> mmrOverTime = mmrOverTime();
    if (!byTime.isEmpty() || !mmrOverTime.isEmpty()) {
      Map<String, List<double[]>> series = new LinkedHashMap<>();
      if (!mmrOverTime.isEmpty()) series.put("MMR", mmrOverTime);
      if (!byTime.isEmpty()) {
        List<double[]> points = new ArrayList<>();
        byTime.forEach((t, l) -> points.add(new double[] {t, l}));
        series.put("λ", points);
      }
      ObjectNode option = Charts.lines("", series);
      marks.on(option);
      add("fairness-time", FAIRNESS, "Fairness over time", (mmrOverTime.isEmpty() ? "" : "MMR per metrics period: "
          + "the smallest over the largest of the VMs' GPU share ÷ weight share (1 = every VM got its weighted share "
          + "of the GPU time; computed from timeline.jsonl gpu_share and the VMs' weights, with the weights changed "
          + "from outside where summary.json controls says so; the run's MMR in summary.json normalizes by "
          + (run.summary().path("fairness").path("normalized_by").asText("its basis")) + "). ")
          + (byTime.isEmpty() ? "" : "VMCG's λ = Σ|wᵢ − w′ᵢ| per metrics period (vmcg §6.3; 0 = throughput exactly "
          + "in the weights' proportions; timeline.jsonl lambda).") + finals + marks.caption() + tail, option);
    } else if (mmr != null || lambda != null) {
      List<String> names = new ArrayList<>();
      List<Double> values = new ArrayList<>();
      if (mmr != null) {
        names.add("MMR");
        values.add(mmr);
      }
      if (lambda != null) {
        names.add("λ");
        values.add(lambda);
      }
      add("fairness", FAIRNESS, "Fairness over the run", "The timeline carries neither, so these are the run's "
          + "final values (summary.json fairness)." + finals, Charts.bars("", names, Map.of("value", values)));
    }
  }

  /**
   * MMR per metrics period by GPU time: min/max over the VMs of gpu_share ÷ (weight ÷ Σ weights), each VM's weight
   * the one in force at the period's end (summary.json's, changed by applied weight controls). Empty with fewer than
   * two VMs or periods where no VM used the GPU.
   */
  private List<double[]> mmrOverTime() {
    Map<String, Double> weights = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> vm : vms()) weights.put(vm.getKey(), vm.getValue().path("weight").asDouble(1));
    if (weights.size() < 2) return List.of();
    List<double[]> changes = new ArrayList<>(); // at, index into names, weight
    List<String> names = new ArrayList<>(weights.keySet());
    for (JsonNode c : run.summary().path("controls")) {
      if (c.path("what").asText().equals("weight") && c.path("applied").asBoolean(false)
          && names.contains(c.path("target").asText())) {
        changes.add(new double[] {c.path("at_s").asDouble(), names.indexOf(c.path("target").asText()),
            c.path("value").asDouble()});
      }
    }
    Map<Double, Map<String, Double>> shares = new LinkedHashMap<>();
    for (JsonNode row : rows) {
      shares.computeIfAbsent(row.get("t_s").asDouble(), t -> new LinkedHashMap<>())
          .put(row.get("vm").asText(), row.path("gpu_share").asDouble());
    }
    List<double[]> out = new ArrayList<>();
    for (Map.Entry<Double, Map<String, Double>> period : shares.entrySet()) {
      Map<String, Double> w = new LinkedHashMap<>(weights);
      for (double[] c : changes) if (c[0] <= period.getKey()) w.put(names.get((int) c[1]), c[2]);
      double total = w.values().stream().mapToDouble(Double::doubleValue).sum();
      double min = Double.MAX_VALUE, max = 0;
      for (Map.Entry<String, Double> s : period.getValue().entrySet()) {
        double normalized = s.getValue() / (w.getOrDefault(s.getKey(), 1.0) / total);
        min = Math.min(min, normalized);
        max = Math.max(max, normalized);
      }
      if (max > 0 && period.getValue().size() >= 2) out.add(new double[] {period.getKey(), min / max});
    }
    return out;
  }

  private void normalizedThroughput() {
    List<String> vms = new ArrayList<>();
    List<Double> values = new ArrayList<>();
    for (Map.Entry<String, JsonNode> vm : vms()) {
      Double v = number(vm.getValue().get("normalized_throughput"));
      if (v == null) continue;
      vms.add(vm.getKey());
      values.add(v);
    }
    if (vms.size() < 2) return;
    ObjectNode option = Charts.bars("normalized", vms, Map.of("normalized throughput", values));
    Charts.markHorizontal(option, 1, "fair share");
    add("normalized", FAIRNESS, "Normalized throughput per VM", "Throughput over the VM's ideal weighted share "
        + "(1 = exactly its share; normalized by " + run.summary().path("fairness").path("normalized_by")
        .asText("?") + "). MMR is the smallest over the largest.", option);
  }

  private void space() {
    JsonNode be = run.summary().path("be_throughput");
    if (be.isObject() && !be.isEmpty()) {
      List<String> types = new ArrayList<>();
      List<Double> values = new ArrayList<>();
      be.fields().forEachRemaining(e -> {
        types.add(e.getKey());
        values.add(number(e.getValue()));
      });
      add("be", SPACE, "BE throughput", "Best-effort throughput per kernel type (COMBO Eq. 6, summary.json "
          + "be_throughput). QoS violations: " + run.summary().path("qos_violations").asText("-") + ".",
          Charts.bars("", types, Map.of("BE throughput", values)));
    }
    List<String> games = new ArrayList<>();
    Map<String, List<Double>> fps = new LinkedHashMap<>();
    fps.put("fps_avg", new ArrayList<>());
    fps.put("fps_p99", new ArrayList<>());
    for (Map.Entry<String, JsonNode> vm : vms()) {
      if (!vm.getValue().hasNonNull("fps_p99")) continue;
      games.add(vm.getKey());
      fps.get("fps_avg").add(number(vm.getValue().get("fps_avg")));
      fps.get("fps_p99").add(number(vm.getValue().get("fps_p99")));
    }
    if (!games.isEmpty()) {
      add("fps-pct", SPACE, "FPS percentiles", "The game's average FPS and fps_p99, 1 s over the 99th "
          + "percentile of its frame times (COMBO Figures 13–14; summary.json fps_avg, fps_p99).", Charts.bars("FPS", games, fps));
    }
    headroom();
  }

  private void headroom() {
    Map<String, JsonNode> histograms = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> vm : vms()) {
      JsonNode h = vm.getValue().path("headroom_ms").path("histogram_1ms");
      if (h.isObject() && !h.isEmpty()) histograms.put(vm.getKey(), h);
    }
    if (histograms.isEmpty()) return;
    Set<String> buckets = new LinkedHashSet<>();
    histograms.values().forEach(h -> h.fieldNames().forEachRemaining(buckets::add));
    List<String> categories = new ArrayList<>();
    for (String b : buckets) categories.add(b + "–" + (parseOr(b) + 1) + " ms");
    Map<String, List<Double>> series = new LinkedHashMap<>();
    StringBuilder stats = new StringBuilder();
    for (Map.Entry<String, JsonNode> h : histograms.entrySet()) {
      List<Double> counts = new ArrayList<>();
      for (String b : buckets) counts.add(h.getValue().path(b).asDouble(0));
      series.put(h.getKey(), counts);
      JsonNode r = run.summary().path("vms").path(h.getKey()).path("headroom_ms");
      stats.append(' ').append(h.getKey()).append(": mean ").append(r.path("mean").asText("-")).append(" ms, p50 ")
          .append(r.path("p50").asText("-")).append(", p90 ").append(r.path("p90").asText("-")).append('.');
    }
    add("headroom", SPACE, "QoS headroom histogram", "Frames per 1 ms bucket of QoS headroom (COMBO Figure 15; "
        + "summary.json headroom_ms.histogram_1ms, defined in the docs/papers/combo.md)." + stats,
        Charts.bars("frames", categories, series));
  }

  private void memory() {
    Map<String, List<double[]>> slots = perVm(row -> row.has("memory_slots") ? row.get("memory_slots").asDouble()
        : Double.NaN, false);
    slots.values().removeIf(points -> points.stream().allMatch(p -> Double.isNaN(p[1])));
    if (!slots.isEmpty()) {
      add("slots", MEMORY, "Memory slots per VM over time", "High-memory slots each VM holds at the end of each "
          + "metrics period (gBalloon Figure 9; timeline.jsonl memory_slots)." + marks.caption(),
          marked(Charts.lines("slots", slots)));
    }
    Map<String, List<double[]>> mb = perVm(row -> row.path("memory_mb").asDouble(), true);
    if (!mb.isEmpty()) {
      add("memory", MEMORY, "GPU memory per VM over time", "GPU memory each VM holds at the end of each metrics "
          + "period, MiB (timeline.jsonl memory_mb)." + marks.caption(), marked(Charts.lines("MiB", mb)));
    }
    Map<String, List<double[]>> profile = new LinkedHashMap<>();
    for (String key : List.of("w", "rcopy", "f")) {
      Map<Double, Double> byTime = new LinkedHashMap<>();
      for (JsonNode row : rows) {
        if (row.hasNonNull(key)) byTime.putIfAbsent(row.get("t_s").asDouble(), row.get(key).asDouble());
      }
      if (byTime.values().stream().anyMatch(v -> v != 0)) {
        List<double[]> points = new ArrayList<>();
        byTime.forEach((t, v) -> points.add(new double[] {t, v}));
        profile.put(key, points);
      }
    }
    if (!profile.isEmpty()) {
      add("profile", MEMORY, "gBalloon's profile over time", "The last profiling period's W, Rcopy (percent) and "
          + "f(W, Rcopy) at the end of each metrics period (gballoon §3; timeline.jsonl w, rcopy, f)."
          + marks.caption(), marked(Charts.lines("", profile)));
    }
  }

  private ObjectNode marked(ObjectNode option) {
    marks.on(option);
    return option;
  }

  private void fidelity() {
    for (Panel p : FidelityPanels.of(run.summary(), marks)) add(p.id(), p.group(), p.title(), p.caption(), p.option());
  }

  /** "faithful" or "NOT FAITHFUL: reason", as the page's banner and the fidelity panel say it. */
  static String verdict(JsonNode summary) {
    JsonNode f = summary.path("fidelity");
    if (!f.has("faithful")) return "Verdict: unknown (summary.json has no fidelity.faithful).";
    String reason = f.path("reason").asText("");
    return f.path("faithful").asBoolean() ? "Verdict: faithful." + (reason.isEmpty() ? "" : " (" + reason + ")")
        : "Verdict: NOT FAITHFUL: " + (reason.isEmpty() ? "no reason given" : reason) + ".";
  }

  /** Per VM, in order of first appearance, its points; a VM whose values are all 0 is left out when asked. */
  private Map<String, List<double[]>> perVm(ToDoubleFunction<JsonNode> value, boolean dropAllZero) {
    Map<String, List<double[]>> out = new LinkedHashMap<>();
    for (JsonNode row : rows) {
      out.computeIfAbsent(row.get("vm").asText(), k -> new ArrayList<>())
          .add(new double[] {row.get("t_s").asDouble(), value.applyAsDouble(row)});
    }
    if (dropAllZero) out.values().removeIf(points -> points.stream().allMatch(p -> p[1] == 0));
    return out;
  }

  private List<Map.Entry<String, JsonNode>> vms() {
    List<Map.Entry<String, JsonNode>> out = new ArrayList<>();
    Iterator<Map.Entry<String, JsonNode>> it = run.summary().path("vms").fields();
    it.forEachRemaining(out::add);
    return out;
  }

  static List<Double> pick(JsonNode node, List<String> keys) {
    List<Double> out = new ArrayList<>();
    for (String k : keys) out.add(number(node.get(k)));
    return out;
  }

  static Double number(JsonNode n) {
    return n != null && n.isNumber() ? n.asDouble() : null;
  }

  private static int parseOr(String s) {
    try {
      return Integer.parseInt(s);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  static String fmt(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) return String.valueOf((long) v);
    return String.format(Locale.ROOT, Math.abs(v) >= 100 ? "%.1f" : "%.4g", v).replaceAll("(\\.\\d*?)0+$", "$1")
        .replaceAll("\\.$", "");
  }
}
