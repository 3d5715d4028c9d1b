package org.gpuemu.emulator.report.html;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The fidelity panels of a run that keep the distributions: the real-time factor over the run (summary.json
 * {@code fidelity.progress}) and the timer lateness and causal-order lag histograms ({@code
 * fidelity.timer_lateness_us.histogram}, {@code fidelity.causality.lag_us.histogram}).
 */
final class FidelityPanels {
  private FidelityPanels() {}

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
