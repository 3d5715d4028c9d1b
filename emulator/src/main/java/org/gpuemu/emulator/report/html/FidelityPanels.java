package org.gpuemu.emulator.report.html;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.gpuemu.emulator.report.html.RunPanels.FIDELITY;
import static org.gpuemu.emulator.report.html.RunPanels.fmt;
import static org.gpuemu.emulator.report.html.RunPanels.number;
import static org.gpuemu.emulator.report.html.RunPanels.pick;
import static org.gpuemu.emulator.report.html.RunPanels.verdict;

/**
 * The fidelity panels of a run: the real-time factor over the run (summary.json {@code fidelity.progress}), timer
 * lateness and message skew, the timer lateness and causal-order lag histograms ({@code
 * fidelity.timer_lateness_us.histogram}, {@code fidelity.causality.lag_us.histogram}) and the causal order's counts
 * and violation sizes.
 */
final class FidelityPanels {
  private FidelityPanels() {}

  /**
   * Every fidelity panel the summary has data for, in reading order: the real-time factor over time, timer lateness
   * and message skew, their histograms, the causal order's counts and its violations' sizes.
   */
  static List<Panel> of(JsonNode summary, TimeMarks marks) {
    List<Panel> panels = new ArrayList<>();
    JsonNode f = summary.path("fidelity");
    if (!f.isObject()) return panels;
    String verdict = verdict(summary);
    String rtf = f.hasNonNull("real_time_factor") ? " Real-time factor " + fmt(f.get("real_time_factor").asDouble())
        + " (emulated seconds per wall second over the run)." : "";
    Panel overTime = realTimeFactor(summary, marks);
    if (overTime != null) panels.add(overTime);
    Panel histogram = histograms(summary);
    JsonNode late = f.path("timer_lateness_us");
    JsonNode skew = f.path("message_skew_us");
    if (late.isObject() || skew.isObject()) {
      List<String> keys = List.of("p50", "p99", "p999", "max");
      Map<String, List<Double>> series = new LinkedHashMap<>();
      if (late.isObject()) series.put("timer lateness", pick(late, keys));
      if (skew.isObject()) series.put("message skew", pick(skew, keys));
      panels.add(new Panel("lateness", FIDELITY, "Timer lateness and message skew", verdict + rtf
          + " Percentiles in emulated µs"
          + (histogram == null ? "; this summary.json keeps percentiles, not the histogram" : "")
          + ". Timers fired: " + late.path("count").asText("-") + ".", Charts.bars("µs", keys, series)));
    }
    if (histogram != null) panels.add(histogram);
    JsonNode c = f.path("causality");
    if (c.isObject()) {
      List<String> keys = new ArrayList<>();
      List<Double> counts = new ArrayList<>();
      for (String key : List.of("violations", "tie_inversions", "observer_violations", "events_late",
          "events_held")) {
        if (!c.hasNonNull(key)) continue;
        keys.add(key);
        counts.add(c.get(key).asDouble());
      }
      if (!keys.isEmpty()) {
        panels.add(new Panel("causality", FIDELITY, "Causality: counts", "Events handled after a later one "
            + "(violations), ties handled out of order, violations seen by observers, events that arrived late or were "
            + "held back, out of "
            + c.path("events_ordered").asText("-") + " ordered (summary.json fidelity.causality).",
            Charts.bars("events", keys, Map.of("count", counts))));
      }
      JsonNode sizes = c.path("violation_us");
      if (c.path("violations").asLong() > 0 && sizes.isObject()) {
        List<String> pct = List.of("p50", "p99", "max");
        ObjectNode option = Charts.bars("µs", pct, Map.of("violation size", pick(sizes, pct)));
        Double limit = number(c.get("violation_limit_us"));
        if (limit != null) Charts.markHorizontal(option, limit, "limit " + fmt(limit) + " µs");
        panels.add(new Panel("violations", FIDELITY, "Causality: violation sizes", "How much later than the "
            + "later event each violating event was handled, emulated µs; the dashed line is the verdict's limit (a "
            + "share of the "
            + f.path("reference").asText("reference") + ").", option));
      }
    }
    return panels;
  }

  /** Real-time factor over emulated time; null without progress samples. */
  static Panel realTimeFactor(JsonNode summary, TimeMarks marks) {
    JsonNode progress = summary.path("fidelity").path("progress");
    List<double[]> rtf = new ArrayList<>();
    int paused = 0;
    for (JsonNode row : progress) {
      if (row.size() < 5 || !row.get(2).isNumber()) continue;
      if (row.get(4).asInt() == 1) {
        paused++;
        continue;
      }
      rtf.add(new double[] {row.get(1).asDouble(), row.get(2).asDouble()});
    }
    if (rtf.size() < 2) return null;
    Map<String, List<double[]>> series = new LinkedHashMap<>();
    series.put("real-time factor", rtf);
    ObjectNode option = Charts.lines("emulated s per wall s", series);
    Charts.markHorizontal(option, summary.path("time_scale").asDouble(1), "time scale");
    marks.on(option);
    return new Panel("rtf", RunPanels.FIDELITY, "Real-time factor over time", "Emulated seconds the run's timers "
        + "advanced per wall second, sampled with the progress line (summary.json fidelity.progress, at the model "
        + "time reached); the dashed line is the time scale asked for, which a run that keeps real time follows."
        + (paused > 0 ? " Samples taken while the run was paused (" + paused + ") are left out." : "")
        + marks.caption(), option);
  }

  /** Timer lateness and lag, in buckets that double; null when the summary keeps neither histogram. */
  static Panel histograms(JsonNode summary) {
    JsonNode f = summary.path("fidelity");
    Map<String, JsonNode> histograms = new LinkedHashMap<>();
    JsonNode late = f.path("timer_lateness_us").path("histogram");
    JsonNode lag = f.path("causality").path("lag_us").path("histogram");
    if (late.path("counts").size() > 0) histograms.put("timer lateness", late);
    if (lag.path("counts").size() > 0) histograms.put("lag (1 event in 8)", lag);
    if (histograms.isEmpty()) return null;
    Set<Long> bounds = new java.util.TreeSet<>();
    for (JsonNode h : histograms.values()) h.path("up_to_us").forEach(b -> bounds.add(b.asLong()));
    List<String> categories = new ArrayList<>();
    for (long b : bounds) categories.add("≤ " + micros(b));
    Map<String, List<Double>> series = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> h : histograms.entrySet()) {
      Map<Long, Double> byBound = new LinkedHashMap<>();
      JsonNode up = h.getValue().path("up_to_us");
      JsonNode counts = h.getValue().path("counts");
      for (int i = 0; i < up.size() && i < counts.size(); i++) byBound.put(up.get(i).asLong(), counts.get(i).asDouble());
      List<Double> values = new ArrayList<>();
      for (long b : bounds) {
        Double v = byBound.get(b);
        values.add(v == null || v == 0 ? null : v); // no bar on a log axis for an empty bucket
      }
      series.put(h.getKey(), values);
    }
    ObjectNode option = Charts.bars("events", categories, series);
    ((ObjectNode) option.get("yAxis")).put("type", "log");
    ((ObjectNode) option.get("xAxis").get("axisLabel")).put("rotate", 40).put("fontSize", 10);
    Set<String> which = new LinkedHashSet<>(histograms.keySet());
    return new Panel("lateness-histogram", RunPanels.FIDELITY, "Timer lateness and lag: histogram",
        "How many timers fired how late after their due time, and how far behind the clock events were handed over "
        + "(" + String.join(", ", which) + "), in emulated µs, in buckets that double (summary.json "
        + "fidelity.timer_lateness_us.histogram, fidelity.causality.lag_us.histogram); counts on a log scale.",
        option);
  }

  private static String micros(long us) {
    if (us >= 1_000_000) return RunPanels.fmt(us / 1e6) + " s";
    if (us >= 1_000) return RunPanels.fmt(us / 1e3) + " ms";
    return us + " µs";
  }
}
