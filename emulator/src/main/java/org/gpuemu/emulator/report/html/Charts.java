package org.gpuemu.emulator.report.html;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;

/**
 * ECharts options as Jackson trees: a line chart over emulated time and grouped bars. No JavaScript functions
 * (formatters are ECharts' string templates), so an option is plain JSON and the page only hands it to
 * {@code setOption} (the live dashboard starts its time charts from the same options). Animation is off: the page is read, not watched, and a screenshot shows the final state.
 */
public final class Charts {
  static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private Charts() {}

  /** One line per series over emulated seconds; points are {@code [t_s, value]}. */
  public static ObjectNode lines(String yName, Map<String, List<double[]>> series) {
    return xy("emulated s", yName, series);
  }

  /** One line per series over a value axis named {@code xName}; points are {@code [x, y]}. */
  static ObjectNode xy(String xName, String yName, Map<String, List<double[]>> series) {
    ObjectNode option = base(true);
    ObjectNode x = option.putObject("xAxis");
    x.put("type", "value").put("name", xName).put("nameLocation", "middle").put("nameGap", 26);
    x.put("min", "dataMin").put("max", "dataMax");
    option.putObject("yAxis").put("type", "value").put("name", yName);
    ArrayNode out = option.putArray("series");
    for (Map.Entry<String, List<double[]>> e : series.entrySet()) {
      ObjectNode s = out.addObject();
      s.put("name", e.getKey()).put("type", "line").put("showSymbol", e.getValue().size() <= 60);
      ArrayNode data = s.putArray("data");
      for (double[] p : e.getValue()) {
        if (Double.isFinite(p[0]) && Double.isFinite(p[1])) data.addArray().add(p[0]).add(p[1]);
      }
    }
    ArrayNode zoom = option.putArray("dataZoom");
    zoom.addObject().put("type", "inside");
    return option;
  }

  /** Grouped bars: one group per category, one bar per series; a null value is a missing bar. */
  static ObjectNode bars(String yName, List<String> categories, Map<String, List<Double>> series) {
    ObjectNode option = base(series.size() > 1);
    ObjectNode x = option.putObject("xAxis");
    x.put("type", "category");
    ArrayNode cats = x.putArray("data");
    categories.forEach(cats::add);
    x.putObject("axisLabel").put("interval", 0);
    option.putObject("yAxis").put("type", "value").put("name", yName);
    ArrayNode out = option.putArray("series");
    for (Map.Entry<String, List<Double>> e : series.entrySet()) {
      ObjectNode s = out.addObject();
      s.put("name", e.getKey()).put("type", "bar");
      s.putObject("label").put("show", categories.size() * series.size() <= 16).put("position", "top")
          .put("fontSize", 10);
      ArrayNode data = s.putArray("data");
      for (Double v : e.getValue()) {
        if (v == null || !Double.isFinite(v)) data.add("-"); // ECharts' empty value: no bar
        else data.add(v);
      }
    }
    return option;
  }

  /** Vertical dashed lines at {@code xs} with their labels, on the option's first series. */
  static void markVertical(ObjectNode option, List<Double> xs, List<String> labels) {
    if (xs.isEmpty() || option.withArrayProperty("series").isEmpty()) return;
    ObjectNode mark = markLine(option);
    for (int i = 0; i < xs.size(); i++) {
      ObjectNode d = mark.withArrayProperty("data").addObject();
      d.put("xAxis", xs.get(i));
      d.putObject("label").put("formatter", labels.get(i)).put("position", "insideEndTop");
    }
  }

  /** A horizontal dashed line at {@code y} with its label, on the option's first series. */
  static void markHorizontal(ObjectNode option, double y, String label) {
    if (option.withArrayProperty("series").isEmpty() || !Double.isFinite(y)) return;
    ObjectNode d = markLine(option).withArrayProperty("data").addObject();
    d.put("yAxis", y);
    d.putObject("label").put("formatter", label).put("position", "insideEndTop");
  }

  private static ObjectNode markLine(ObjectNode option) {
    ObjectNode first = (ObjectNode) option.withArrayProperty("series").get(0);
    if (first.has("markLine")) return (ObjectNode) first.get("markLine");
    ObjectNode mark = first.putObject("markLine");
    mark.put("silent", true);
    mark.putArray("symbol").add("none").add("none");
    mark.putObject("lineStyle").put("type", "dashed").put("color", "#555");
    mark.putArray("data");
    return mark;
  }

  private static ObjectNode base(boolean legend) {
    ObjectNode option = NODES.objectNode();
    option.put("animation", false);
    option.putObject("tooltip").put("trigger", "axis");
    if (legend) option.putObject("legend").put("type", "scroll").put("top", 0);
    option.putObject("grid").put("left", 56).put("right", 24).put("top", legend ? 36 : 24).put("bottom", 40)
        .put("containLabel", true);
    return option;
  }
}
