package org.gpuemu.emulator.report.html;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Writes {@code report.html}: one page holding the ECharts bundle, the run's data as JSON and one chart per
 * {@link Panel}. The page fetches nothing; it opens from a file:// URL with the network off.
 */
public final class ReportPage {
  public static final String FILE = "report.html";

  private ReportPage() {}

  /**
   * Writes {@code dir/report.html} for a run folder (summary.json) or a compare folder (compare.json, with each
   * policy's run in its subfolder, which gets its own report too); returns the page's path.
   */
  public static Path write(Path dir) throws ReportException {
    if (Files.isRegularFile(dir.resolve("summary.json"))) {
      return save(dir, run(RunData.read(dir, dir.getFileName() == null ? "run" : dir.getFileName().toString())));
    }
    if (Files.isRegularFile(dir.resolve("compare.json"))) {
      JsonNode compare = readCompare(dir.resolve("compare.json"));
      List<RunData> runs = new ArrayList<>();
      for (String label : policies(dir, compare)) {
        Path sub = dir.resolve(label);
        RunData run = RunData.read(sub, label);
        save(sub, run(run));
        runs.add(run);
      }
      return save(dir, compare(compare, runs));
    }
    throw new ReportException(dir + ": neither summary.json nor compare.json here (not a run or compare folder)");
  }

  /** The page of one run. */
  static String run(RunData run) {
    JsonNode s = run.summary();
    String title = "gpuemu report: " + s.path("scenario").asText("?") + " under " + s.path("policy").asText("?");
    StringBuilder head = new StringBuilder();
    head.append(banner(s));
    head.append("<table class=\"facts\">");
    fact(head, "scenario file", s.path("file").asText(""));
    fact(head, "policies", "gpu " + s.path("policy").asText("?") + ", cpu " + s.path("cpu_policy").asText("?")
        + ", memory " + s.path("memory_policy").asText("?"));
    fact(head, "time", s.path("emulated_seconds").asText("?") + " emulated s in " + s.path("wall_seconds")
        .asText("?") + " wall s at time scale " + s.path("time_scale").asText("?") + ", seed "
        + s.path("seed").asText("?"));
    JsonNode inv = s.path("invariants");
    if (inv.has("ok")) {
      fact(head, "invariants", inv.path("ok").asBoolean() ? "all held"
          : "BROKEN: " + String.join("; ", texts(inv.path("broken"))));
    }
    head.append("</table>");
    head.append(vmTable(s));
    head.append(faultsAndControls(s));
    ObjectNode data = Charts.NODES.objectNode();
    data.set("summary", s);
    ArrayNode timeline = data.putArray("timeline");
    run.timeline().forEach(timeline::add);
    return page(title, head.toString(), RunPanels.of(run), data);
  }

  /** The page of a compare folder: the policies side by side, linking each policy's own report. */
  static String compare(JsonNode compare, List<RunData> runs) {
    String title = "gpuemu compare: " + compare.path("scenario").asText("?") + " under "
        + String.join(", ", runs.stream().map(RunData::label).toList());
    StringBuilder head = new StringBuilder("<table class=\"facts\"><tr><th>policy</th><th>verdict</th>"
        + "<th>real-time factor</th><th>invariants</th><th>its own report</th></tr>");
    for (RunData run : runs) {
      JsonNode s = run.summary();
      boolean faithful = s.path("fidelity").path("faithful").asBoolean(false);
      head.append("<tr><td>").append(esc(run.label())).append("</td><td class=\"")
          .append(faithful ? "ok" : "bad").append("\">")
          .append(esc(RunPanels.verdict(s).replaceFirst("^Verdict: ", ""))).append("</td><td>")
          .append(esc(s.path("fidelity").path("real_time_factor").asText("-"))).append("</td><td>")
          .append(s.path("invariants").path("ok").asBoolean(false) ? "held" : "BROKEN").append("</td><td>")
          .append("<a href=\"").append(esc(run.label())).append("/report.html\">")
          .append(esc(run.label())).append("/report.html</a></td></tr>");
    }
    head.append("</table>");
    ObjectNode data = Charts.NODES.objectNode();
    data.set("compare", compare);
    ObjectNode summaries = data.putObject("summaries");
    for (RunData run : runs) summaries.set(run.label(), run.summary());
    return page(title, head.toString(), ComparePanels.of(runs, compare), data);
  }

  /** The whole page: style, error capture, the library, the data, the panels' places and the script that draws. */
  static String page(String title, String headHtml, List<Panel> panels, ObjectNode data) {
    ArrayNode options = data.putArray("panels");
    for (Panel p : panels) options.addObject().put("id", p.id()).set("option", p.option());
    StringBuilder body = new StringBuilder();
    String group = null;
    for (Panel p : panels) {
      if (!p.group().equals(group)) {
        if (group != null) body.append("</div>\n");
        group = p.group();
        body.append("<h2>").append(esc(group)).append("</h2>\n<div class=\"grid\">\n");
      }
      body.append("<section class=\"panel\" id=\"panel-").append(esc(p.id())).append("\"><h3>")
          .append(esc(p.title())).append("</h3><div class=\"chart\" id=\"chart-").append(esc(p.id()))
          .append("\"></div><p>").append(esc(p.caption())).append("</p></section>\n");
    }
    if (group != null) body.append("</div>\n");
    return TEMPLATE
        .replace("@TITLE@", esc(title))
        .replace("@HEAD@", headHtml)
        .replace("@PANELS@", body.toString())
        .replace("@VERSION@", esc(EChartsLibrary.version()))
        .replace("@DATA@", json(data))
        .replace("@ECHARTS@", EChartsLibrary.script());
  }

  private static Path save(Path dir, String html) throws ReportException {
    Path file = dir.resolve(FILE);
    try {
      Files.writeString(file, html);
      return file;
    } catch (IOException e) {
      throw new ReportException(file + ": cannot write: " + e.getMessage());
    }
  }

  private static JsonNode readCompare(Path file) throws ReportException {
    try {
      JsonNode doc = RunData.JSON.readTree(file.toFile());
      if (doc == null || !doc.path("rows").isObject()) throw new ReportException(file + ": no rows object");
      return doc;
    } catch (IOException e) {
      throw new ReportException(file + ": not JSON: " + e.getMessage().lines().findFirst().orElse(""));
    }
  }

  /** The policies in compare.json's column order, each with a run subfolder; else the subfolders, sorted. */
  private static List<String> policies(Path dir, JsonNode compare) throws ReportException {
    List<String> out = new ArrayList<>();
    Iterator<JsonNode> rows = compare.path("rows").elements();
    if (rows.hasNext()) rows.next().fieldNames().forEachRemaining(out::add);
    if (out.isEmpty()) {
      try (Stream<Path> subs = Files.list(dir)) {
        subs.filter(p -> Files.isRegularFile(p.resolve("summary.json"))).map(p -> p.getFileName().toString())
            .sorted().forEach(out::add);
      } catch (IOException e) {
        throw new ReportException(dir + ": cannot list: " + e.getMessage());
      }
    }
    if (out.isEmpty()) throw new ReportException(dir + ": compare.json names no policy and no subfolder has a run");
    return out;
  }

  private static String banner(JsonNode s) {
    boolean faithful = s.path("fidelity").path("faithful").asBoolean(false);
    return "<p class=\"verdict " + (faithful ? "ok" : "bad") + "\">" + esc(RunPanels.verdict(s)) + "</p>";
  }

  private static void fact(StringBuilder b, String name, String value) {
    b.append("<tr><th>").append(esc(name)).append("</th><td>").append(esc(value)).append("</td></tr>");
  }

  private static final Map<String, String> VM_COLUMNS = columns();

  private static Map<String, String> columns() {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("workload", "workload");
    c.put("weight", "weight");
    c.put("sla_fps", "SLA fps");
    c.put("fps", "fps");
    c.put("frames_over_sla_pct", "% frames over SLA");
    c.put("gpu_share", "GPU share");
    c.put("throughput_per_s", "kernels/s");
    c.put("normalized_throughput", "normalized");
    c.put("memory_max_mb", "max MiB");
    return c;
  }

  private static String vmTable(JsonNode s) {
    JsonNode vms = s.path("vms");
    if (!vms.isObject() || vms.isEmpty()) return "";
    StringBuilder b = new StringBuilder("<table class=\"vms\"><tr><th>VM</th>");
    VM_COLUMNS.values().forEach(h -> b.append("<th>").append(esc(h)).append("</th>"));
    b.append("</tr>");
    vms.fields().forEachRemaining(e -> {
      b.append("<tr><td>").append(esc(e.getKey())).append("</td>");
      for (String key : VM_COLUMNS.keySet()) {
        JsonNode v = e.getValue().get(key);
        b.append(v != null && v.isNumber() ? "<td class=\"num\">" : "<td>")
            .append(esc(v == null || v.isNull() ? "-" : v.asText())).append("</td>");
      }
      b.append("</tr>");
    });
    return b.append("</table>").toString();
  }

  /** The faults the run injected and the changes made to it from outside, in model time; empty when none. */
  private static String faultsAndControls(JsonNode s) {
    List<String[]> rows = new ArrayList<>();
    for (JsonNode f : s.path("faults")) {
      StringBuilder d = new StringBuilder("healed at ").append(f.path("healed_at_s").asText("-")).append(" s");
      d.append(f.path("recovery_s").isNumber() ? ", recovered " + RunPanels.fmt(f.get("recovery_s").asDouble() * 1e3)
          + " ms after" : ", no completed request after the heal");
      f.path("requests_failed").fields().forEachRemaining(e -> d.append(", ").append(e.getValue().asText())
          .append(" failed ").append(e.getKey()));
      rows.add(new String[] {f.path("at_s").asText("-"), "fault " + f.path("kind").asText("?"),
          f.path("target").asText(""), d.toString()});
    }
    for (JsonNode c : s.path("controls")) {
      String what = c.path("what").asText("?");
      String detail = switch (what) {
        case "pause" -> "paused for " + c.path("paused_wall_s").asText("?") + " s of wall time";
        case "fault" -> c.path("kind").asText("?") + ", heal after " + c.path("heal_after_s").asText("?") + " s";
        default -> "= " + c.path("value").asText("?");
      };
      if (c.has("applied")) detail += c.path("applied").asBoolean() ? ", applied" : ", NOT applied";
      if (c.hasNonNull("note")) detail += " (" + c.path("note").asText() + ")";
      rows.add(new String[] {c.path("at_s").asText("-"), "control: " + what, c.path("target").asText(""), detail});
    }
    if (rows.isEmpty()) return "";
    rows.sort(java.util.Comparator.comparingDouble(r -> parse(r[0])));
    StringBuilder b = new StringBuilder("<table class=\"events\"><tr><th>at, emulated s</th><th>what</th>"
        + "<th>VM</th><th></th></tr>");
    for (String[] r : rows) {
      b.append("<tr>");
      for (String cell : r) b.append("<td>").append(esc(cell)).append("</td>");
      b.append("</tr>");
    }
    return b.append("</table>").toString();
  }

  private static double parse(String s) {
    try {
      return Double.parseDouble(s);
    } catch (NumberFormatException e) {
      return Double.MAX_VALUE;
    }
  }

  private static List<String> texts(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  /** JSON for a script element: every {@code <} escaped, so no {@code </script>} or comment can end it early. */
  static String json(JsonNode node) {
    try {
      return RunData.JSON.writeValueAsString(node).replace("<", "\\u003c");
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  static String esc(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (char c : s.toCharArray()) {
      switch (c) {
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '&' -> b.append("&amp;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c);
      }
    }
    return b.toString();
  }

  private static final String TEMPLATE = """
      <!DOCTYPE html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <title>@TITLE@</title>
      <style>
      body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1400px;
             padding: 16px 24px; color: #222; background: #fafafa; }
      h1 { font-size: 22px; margin: 4px 0 12px; }
      h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
      h3 { font-size: 14px; margin: 0 0 4px; }
      table { border-collapse: collapse; margin: 8px 0 12px; background: #fff; }
      th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
      td.num { text-align: right; }
      .verdict { padding: 8px 12px; border-radius: 4px; font-weight: 600; }
      .ok { background: #e6f4ea; color: #14532d; } .bad { background: #fdecea; color: #7f1d1d; }
      .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(600px, 1fr)); gap: 14px; }
      .panel { background: #fff; border: 1px solid #e3e3e3; border-radius: 6px; padding: 10px 12px; }
      .panel p { color: #555; font-size: 12.5px; margin: 6px 0 0; }
      .chart { height: 320px; width: 100%; }
      footer { color: #777; font-size: 12px; margin: 28px 0 8px; }
      </style>
      <script>
      // what went wrong while drawing, for a reader's console and the browser test: errors, failed loads, rejections
      window.reportErrors = [];
      window.addEventListener('error', function (e) {
        window.reportErrors.push(e.message ? String(e.message) : 'failed to load ' + (e.target && e.target.src));
      }, true);
      window.addEventListener('unhandledrejection', function (e) { window.reportErrors.push(String(e.reason)); });
      (function (error) {
        console.error = function () {
          window.reportErrors.push(Array.prototype.join.call(arguments, ' '));
          return error.apply(console, arguments);
        };
      })(console.error);
      </script>
      </head>
      <body>
      <h1>@TITLE@</h1>
      @HEAD@
      @PANELS@
      <footer>Charts drawn by Apache ECharts @VERSION@, inlined into this file (Apache License 2.0); the data below
      is the run's own summary and timeline, embedded as JSON. Nothing is fetched from the network.</footer>
      <script id="report-data" type="application/json">@DATA@</script>
      <script>
      @ECHARTS@
      </script>
      <script>
      (function () {
        var data = JSON.parse(document.getElementById('report-data').textContent);
        var charts = [];
        data.panels.forEach(function (p) {
          var chart = echarts.init(document.getElementById('chart-' + p.id), null, { renderer: 'canvas' });
          chart.setOption(p.option);
          charts.push(chart);
        });
        window.addEventListener('resize', function () { charts.forEach(function (c) { c.resize(); }); });
        document.body.setAttribute('data-charts', String(charts.length));
      })();
      </script>
      </body>
      </html>
      """;
}
