package org.gpuemu.emulator.reproduce;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.gpuemu.emulator.config.Expectations;

/**
 * {@code reproduction.json} and the Markdown table rendered from it. The table is always rendered from the JSON
 * document (also when a run writes both), so the docs' table, checked against a committed JSON, cannot drift.
 */
public final class Report {
  /** Verdicts in the order the counts are printed. */
  private static final List<Verdict> ORDER = List.of(Verdict.REPRODUCED, Verdict.SAME_DIRECTION,
      Verdict.CONTRADICTS, Verdict.UNFAITHFUL, Verdict.NOT_RUN, Verdict.INPUT, Verdict.NO_NUMBER,
      Verdict.NOT_MODELLED);

  private Report() {}

  /**
   * One row of reproduction.json; {@code groupValues}: for a row over groups, each group's value (the median of its
   * seeds), by group label (empty otherwise); {@code why}: the measured reason the emulator differs (null: none
   * given).
   */
  public record Row(String paper, String figure, String scenario, String policy, String metric, String claim,
      Object paperValue, Double tolerance, Judge.Judged judged, List<Double> seedValues, boolean faithful,
      String source, Map<String, Double> groupValues, String why) {
    public Row(String paper, String figure, String scenario, String policy, String metric, String claim,
        Object paperValue, Double tolerance, Judge.Judged judged, List<Double> seedValues, boolean faithful,
        String source, Map<String, Double> groupValues) {
      this(paper, figure, scenario, policy, metric, claim, paperValue, tolerance, judged, seedValues, faithful, source,
          groupValues, null);
    }

    public Row(String paper, String figure, String scenario, String policy, String metric, String claim,
        Object paperValue, Double tolerance, Judge.Judged judged, List<Double> seedValues, boolean faithful,
        String source) {
      this(paper, figure, scenario, policy, metric, claim, paperValue, tolerance, judged, seedValues, faithful, source,
          Map.of());
    }

    Map<String, Object> json() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("paper", paper);
      m.put("figure", figure);
      m.put("scenario", scenario);
      m.put("policy", policy);
      m.put("metric", metric);
      m.put("claim", claim);
      m.put("paper_value", paperValue);
      m.put("tolerance", tolerance);
      m.put("value", round(judged.median()));
      m.put("range", judged.median() == null ? null : List.of(round(judged.min()), round(judged.max())));
      m.put("seeds", seedValues.stream().map(Report::round).toList());
      m.put("verdict", judged.verdict().label());
      m.put("faithful", faithful);
      m.put("note", judged.note());
      m.put("source", source);
      if (why != null) m.put("why", why);
      if (!groupValues.isEmpty()) m.put("groups", groupValues);
      return m;
    }
  }

  /** The claim as the table prints it: "0.99 ± 0.03", "≥ 0.99", "> credit-poll", "1.14 ± 10 % of pilotfish". */
  public static String claim(Expectations.Row row) {
    StringBuilder b = new StringBuilder();
    if (row.target() instanceof Expectations.Value v) {
      b.append(v.low() == v.high() ? number(v.low()) : number(v.low()) + "–" + number(v.high()));
      b.append(" ± ").append(Double.isNaN(v.relative()) ? number(v.tolerance())
          : number(100 * v.relative()) + " %");
    } else if (row.target() instanceof Expectations.Bound bound) {
      b.append(bound.atLeast() ? "≥ " : "≤ ").append(number(bound.bound()));
    }
    if (row.over() != null) b.append(b.length() > 0 ? " (ratio to " : "(ratio to ").append(row.over()).append(')');
    if (row.direction() != null) {
      if (b.length() > 0) b.append(", ");
      b.append(row.direction().greater() ? "> " : "< ").append(row.direction().against());
    }
    return b.toString();
  }

  /** The paper's value for the JSON: a number, [low, high], the bound, or null for an ordering. */
  public static Object paperValue(Expectations.Target target) {
    if (target instanceof Expectations.Value v) return v.low() == v.high() ? v.low() : List.of(v.low(), v.high());
    if (target instanceof Expectations.Bound b) return b.bound();
    return null;
  }

  /** The reproduction.json document. */
  public static Map<String, Object> document(String command, boolean quick, int seeds, double wallSeconds,
      List<Row> rows) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("command", command);
    doc.put("quick", quick);
    doc.put("seeds", seeds);
    doc.put("wall_seconds", Math.round(wallSeconds));
    Map<String, Map<String, Integer>> counts = new LinkedHashMap<>();
    for (Row r : rows) {
      Map<String, Integer> c = counts.computeIfAbsent(r.paper(), p -> zeroCounts());
      c.merge(r.judged().verdict().label(), 1, Integer::sum);
    }
    doc.put("counts", counts);
    doc.put("rows", rows.stream().map(Row::json).toList());
    return doc;
  }

  private static Map<String, Integer> zeroCounts() {
    Map<String, Integer> c = new LinkedHashMap<>();
    for (Verdict v : ORDER) c.put(v.label(), 0);
    return c;
  }

  /** Writes reproduction.json and reproduction.md (rendered from the JSON) into {@code dir}. */
  public static void write(Path dir, Map<String, Object> doc) throws IOException {
    ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    Path json = dir.resolve("reproduction.json");
    mapper.writeValue(json.toFile(), doc);
    Files.writeString(dir.resolve("reproduction.md"), markdown(read(json)));
  }

  /** Reads a reproduction.json. */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> read(Path json) throws IOException {
    return new ObjectMapper().readValue(json.toFile(), LinkedHashMap.class);
  }

  /** The Markdown tables of a reproduction.json document: a heading, the counts and a table per paper. */
  @SuppressWarnings("unchecked")
  public static String markdown(Map<String, Object> doc) {
    StringBuilder b = new StringBuilder();
    List<Map<String, Object>> rows = (List<Map<String, Object>>) doc.get("rows");
    int seeds = ((Number) doc.get("seeds")).intValue();
    b.append("Generated by `").append(doc.get("command")).append("` (").append(seeds)
        .append(seeds == 1 ? " seed" : " seeds").append(" per run; ")
        .append(Boolean.TRUE.equals(doc.get("quick")) ? "--quick: runs cut short, see above; " : "")
        .append(doc.get("wall_seconds")).append(" s wall). Emulator: median of the seeds")
        .append(seeds > 1 ? " (range)" : "").append(".\n");
    Map<String, Map<String, Object>> counts = (Map<String, Map<String, Object>>) doc.get("counts");
    for (Map.Entry<String, Map<String, Object>> paper : counts.entrySet()) {
      b.append("\n#### ").append(paper.getKey()).append("\n\n");
      List<String> parts = new ArrayList<>();
      paper.getValue().forEach((verdict, n) -> parts.add(n + " " + verdict));
      b.append(String.join(", ", parts)).append(".\n\n");
      b.append("| figure | scenario | run | metric | paper | emulator | verdict | faithful |\n");
      b.append("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
      for (Map<String, Object> r : rows) {
        if (!paper.getKey().equals(r.get("paper"))) continue;
        b.append("| ").append(cell(r.get("figure")))
            .append(" | `").append(r.get("scenario")).append('`')
            .append(" | ").append(cell(r.get("policy")))
            .append(" | ").append(r.get("metric") == null ? "–" : "`" + r.get("metric") + "`")
            .append(" | ").append(cell(r.get("claim")))
            .append(" | ").append(emulator(r, seeds))
            .append(" | ").append(verdict(r))
            .append(" | ").append(Boolean.TRUE.equals(r.get("faithful")) ? "yes" : "no")
            .append(" |\n");
      }
      List<String> whys = new ArrayList<>();
      for (Map<String, Object> r : rows) {
        if (paper.getKey().equals(r.get("paper")) && r.get("why") != null) {
          whys.add("- " + r.get("figure") + ", " + r.get("policy") + ", `" + r.get("metric") + "`, paper "
              + r.get("claim") + ": " + r.get("why"));
        }
      }
      if (!whys.isEmpty()) b.append("\nWhy, as measured:\n\n").append(String.join("\n", whys)).append('\n');
    }
    return b.toString();
  }

  @SuppressWarnings("unchecked")
  private static String emulator(Map<String, Object> r, int seeds) {
    if (r.get("value") == null) return "–";
    String v = number(((Number) r.get("value")).doubleValue());
    List<Number> range = (List<Number>) r.get("range");
    if (seeds > 1 && range != null) {
      v += " (" + number(range.get(0).doubleValue()) + "–" + number(range.get(1).doubleValue()) + ")";
    }
    return v;
  }

  /** The verdict; an unfaithful row says what it would have been ("unfaithful (would be reproduced)"). */
  private static String verdict(Map<String, Object> r) {
    Object note = r.get("note");
    if (Verdict.INPUT.label().equals(r.get("verdict")) && note instanceof String n) {
      if (n.startsWith("a constant of the model")) return "input";
      return n.startsWith("calibration input: the run matches") ? "input (matches)" : "input (misses)";
    }
    if (Verdict.UNFAITHFUL.label().equals(r.get("verdict")) && note instanceof String n && n.startsWith("would be ")) {
      return "unfaithful (" + n.substring(0, n.indexOf(';') < 0 ? n.length() : n.indexOf(';')) + ")";
    }
    return String.valueOf(r.get("verdict"));
  }

  private static String cell(Object o) {
    return o == null ? "" : o.toString().replace("|", "\\|");
  }

  /** Three decimals below 100, one above: the precision compare prints. */
  static String number(double d) {
    String s = String.format(Locale.ROOT, Math.abs(d) >= 100 ? "%.1f" : "%.3f", d);
    return s.contains(".") ? s.replaceFirst("0+$", "").replaceFirst("\\.$", "") : s;
  }

  /** Values in the JSON keep four significant decimals. */
  static Double round(Double d) {
    return d == null ? null : Math.round(d * 10_000) / 10_000.0;
  }
}
