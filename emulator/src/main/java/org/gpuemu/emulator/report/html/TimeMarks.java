package org.gpuemu.emulator.report.html;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * What the report marks on every chart over emulated time: each fault's window shaded, from when it struck to when
 * it healed (summary.json {@code faults}: {@code at_s}, {@code healed_at_s}; to the run's end when it did not heal
 * within it), labelled with its kind, target and recovery time; and each control from outside the run (summary.json
 * {@code controls}: a fault, a weight or a share changed from the dashboard, a pause) as a dashed line.
 */
final class TimeMarks {
  private record Window(double from, double to, String label) {}

  private record Line(double at, String label) {}

  private final List<Window> windows = new ArrayList<>();
  private final List<Line> lines = new ArrayList<>();

  TimeMarks(JsonNode summary) {
    double end = summary.path("emulated_seconds").asDouble(0);
    for (JsonNode f : summary.path("faults")) {
      if (!f.path("at_s").isNumber()) continue;
      double from = f.get("at_s").asDouble();
      double to = f.path("healed_at_s").isNumber() ? f.get("healed_at_s").asDouble() : Math.max(end, from);
      String recovery = f.path("recovery_s").isNumber()
          ? "recovered in " + RunPanels.fmt(f.get("recovery_s").asDouble() * 1e3) + " ms" : "no recovery in the run";
      windows.add(new Window(from, to, f.path("kind").asText("fault") + " " + f.path("target").asText("")
          + " (" + recovery + ")"));
    }
    for (JsonNode c : summary.path("controls")) {
      String what = c.path("what").asText("");
      if (what.equals("fault") || !c.path("at_s").isNumber()) continue; // a fault's window is shaded already
      String label = what.equals("pause") ? "paused " + RunPanels.fmt(c.path("paused_wall_s").asDouble()) + " s wall"
          : what + " " + c.path("target").asText("") + " = " + c.path("value").asText("?")
              + (c.path("applied").asBoolean(true) ? "" : " (refused)");
      lines.add(new Line(c.get("at_s").asDouble(), label));
    }
  }

  boolean isEmpty() {
    return windows.isEmpty() && lines.isEmpty();
  }

  /** Shades the fault windows and draws the control lines on a chart over emulated time (its first series). */
  void on(ObjectNode option) {
    ArrayNode series = option.withArrayProperty("series");
    if (series.isEmpty() || isEmpty()) return;
    ObjectNode first = (ObjectNode) series.get(0);
    if (!windows.isEmpty()) {
      ObjectNode area = first.putObject("markArea");
      area.put("silent", true);
      area.putObject("itemStyle").put("color", "rgba(214, 39, 40, 0.12)");
      ArrayNode data = area.putArray("data");
      for (Window w : windows) {
        ArrayNode pair = data.addArray();
        ObjectNode start = pair.addObject().put("xAxis", w.from()).put("name", w.label());
        start.putObject("label").put("position", "insideTop").put("fontSize", 10).put("color", "#8b1a1a");
        pair.addObject().put("xAxis", w.to());
      }
    }
    List<Double> at = new ArrayList<>();
    List<String> labels = new ArrayList<>();
    for (Line l : lines) {
      at.add(l.at());
      labels.add(l.label());
    }
    Charts.markVertical(option, at, labels);
  }

  /** The sentence a chart's caption gets when anything is marked on it. */
  String caption() {
    if (isEmpty()) return "";
    StringBuilder b = new StringBuilder();
    if (!windows.isEmpty()) b.append(" Shaded: each fault from when it struck to when it healed (summary.json faults).");
    if (!lines.isEmpty()) b.append(" Dashed: the changes made from outside the run (summary.json controls).");
    return b.toString();
  }
}
