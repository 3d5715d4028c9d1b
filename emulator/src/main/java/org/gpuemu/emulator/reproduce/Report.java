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
  private static final List<ClaimVerdict> ORDER = List.of(ClaimVerdict.REPRODUCED, ClaimVerdict.SAME_DIRECTION,
      ClaimVerdict.CONTRADICTS, ClaimVerdict.UNSTABLE, ClaimVerdict.UNFAITHFUL, ClaimVerdict.NOT_RUN, ClaimVerdict.NOT_JUDGED,
      ClaimVerdict.CALIBRATED, ClaimVerdict.BY_CONSTRUCTION, ClaimVerdict.INPUT_DIFFERS, ClaimVerdict.INPUT, ClaimVerdict.NO_NUMBER,
      ClaimVerdict.NOT_MODELLED);

  private Report() {}

  /**
   * One row of reproduction.json; {@code groupValues}: for a row over groups, each group's value (the median of its
   * seeds), by group label (empty otherwise); {@code why}: the measured reason the emulator differs (null: none
   * given).
   */
  public record Row(String paper, String figure, String scenario, String policy, String metric, String claim,
      Object paperValue, Double tolerance, Judge.Judged judged, List<Double> seedValues, boolean faithful,
      String source, Map<String, Double> groupValues, String why, Expectations.Basis basis) {
    public Row {
      basis = basis == null ? Expectations.Basis.JUDGED : basis;
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
      if (basis.restsOn() != null) m.put("rests_on", basis.restsOn());
      if (basis.toleranceFrom() != null) m.put("tolerance_from", basis.toleranceFrom());
      if (basis.headline() != null) m.put("headline", basis.headline());
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
      if (bound.tolerance() > 0) b.append(" ± ").append(number(bound.tolerance()));
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
    for (ClaimVerdict v : ORDER) c.put(v.label(), 0);
    return c;
  }

  /** Writes reproduction.json and reproduction.md (rendered from the JSON) into {@code dir}. */
  public static void write(Path dir, Map<String, Object> doc) throws IOException {
    write(dir, doc, "reproduction");
  }

  /** Writes {@code <name>.json} and {@code <name>.md}, its page rendered from the JSON, into {@code dir}. */
  public static void write(Path dir, Map<String, Object> doc, String name) throws IOException {
    ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    Path json = dir.resolve(name + ".json");
    mapper.writeValue(json.toFile(), doc);
    Map<String, Object> back = read(json);
    Files.writeString(dir.resolve(name + ".md"), Boolean.TRUE.equals(back.get("headline")) ? headlineMarkdown(back)
        : markdown(back));
  }

  /** Reads a reproduction.json. */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> read(Path json) throws IOException {
    return new ObjectMapper().readValue(json.toFile(), LinkedHashMap.class);
  }

  /**
   * A docs page of a reproduction.json or headline.json document: a "generated, do not edit" header naming the
   * command that renders it ({@code reproduce --render <json>}), a title, then its tables.
   */
  public static String page(Map<String, Object> doc, String json) {
    boolean headline = Boolean.TRUE.equals(doc.get("headline"));
    return "<!-- generated by `java -jar emulator/target/emulator.jar reproduce --render " + json
        + "`, do not edit -->\n\n# " + (headline ? "The papers' headline claims" : "The reproduction, row by row")
        + "\n\n" + (headline ? headlineMarkdown(doc) : markdown(doc));
  }

  /**
   * The headline table: each abstract claim with the paper's value, the tolerance and where it comes from, the
   * median and range of the seeds, the verdict and why.
   */
  @SuppressWarnings("unchecked")
  public static String headlineMarkdown(Map<String, Object> doc) {
    StringBuilder b = new StringBuilder();
    List<Map<String, Object>> rows = (List<Map<String, Object>>) doc.get("rows");
    int seeds = ((Number) doc.get("seeds")).intValue();
    long reproduced = rows.stream().filter(r -> ClaimVerdict.REPRODUCED.label().equals(r.get("verdict"))).count();
    b.append("Generated by `").append(doc.get("command")).append("` (").append(seeds)
        .append(seeds == 1 ? " seed" : " seeds").append(" per run; ")
        .append(Boolean.TRUE.equals(doc.get("quick")) ? "--quick: runs cut short, not judged; " : "")
        .append(doc.get("wall_seconds")).append(" s wall). **").append(reproduced).append(" of ").append(rows.size())
        .append(" claims reproduced.** Emulator: median of the seeds").append(seeds > 1 ? " (range)" : "")
        .append(".\n\n");
    b.append("| paper | claim (abstract) | figure | run | metric | paper | tolerance from | emulator | verdict | why |\n");
    b.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (Map<String, Object> r : rows) {
      String why = r.get("why") != null ? cell(r.get("why")) : r.get("rests_on") != null ? cell(r.get("rests_on"))
          : r.get("metric") == null ? cell(r.get("source")) : "";
      b.append("| ").append(r.get("paper"))
          .append(" | ").append(cell(r.get("headline")))
          .append(" | ").append(cell(r.get("figure")))
          .append(" | ").append(r.get("metric") == null ? "–" : "`" + r.get("scenario") + "` " + cell(r.get("policy")))
          .append(" | ").append(r.get("metric") == null ? "–" : "`" + r.get("metric") + "`")
          .append(" | ").append(cell(r.get("claim")))
          .append(" | ").append(r.get("tolerance_from") == null ? "–" : cell(r.get("tolerance_from")))
          .append(" | ").append(emulator(r, seeds))
          .append(" | ").append(verdict(r))
          .append(" | ").append(why)
          .append(" |\n");
    }
    return b.toString();
  }

  /**
   * The README's status line of a headline.json document: how many of the abstracts' claims the full runs
   * reproduce, overall and per paper, and where the table is.
   */
  @SuppressWarnings("unchecked")
  public static String headlineStatus(Map<String, Object> doc) {
    List<Map<String, Object>> rows = (List<Map<String, Object>>) doc.get("rows");
    Map<String, long[]> perPaper = new LinkedHashMap<>();
    for (Map<String, Object> r : rows) {
      long[] n = perPaper.computeIfAbsent((String) r.get("paper"), p -> new long[2]);
      n[1]++;
      if (ClaimVerdict.REPRODUCED.label().equals(r.get("verdict"))) n[0]++;
    }
    long reproduced = perPaper.values().stream().mapToLong(n -> n[0]).sum();
    StringBuilder b = new StringBuilder("**").append(reproduced).append(" of ").append(rows.size())
        .append("** of the five abstracts' headline claims are reproduced by the full runs (");
    String sep = "";
    for (Map.Entry<String, long[]> e : perPaper.entrySet()) {
      b.append(sep).append(e.getKey()).append(' ').append(e.getValue()[0]).append(" of ").append(e.getValue()[1]);
      sep = ", ";
    }
    return b.append("): the claims, the measured values and why each one misses are in ")
        .append("[docs/validation/headline.md](docs/validation/headline.md), generated by `reproduce headline`.")
        .toString();
  }

  /** The Markdown tables of a reproduction.json document: a heading, the counts and a table per paper. */
  @SuppressWarnings("unchecked")
  public static String markdown(Map<String, Object> doc) {
    StringBuilder b = new StringBuilder();
    List<Map<String, Object>> rows = (List<Map<String, Object>>) doc.get("rows");
    int seeds = ((Number) doc.get("seeds")).intValue();
    b.append("Generated by `").append(doc.get("command")).append("` (").append(seeds)
        .append(seeds == 1 ? " seed" : " seeds").append(" per run; ")
        .append(Boolean.TRUE.equals(doc.get("quick")) ? "--quick: runs cut short, measured rows not judged; " : "")
        .append(doc.get("wall_seconds")).append(" s wall). Emulator: median of the seeds")
        .append(seeds > 1 ? " (range)" : "").append(".\n");
    Map<String, Map<String, Object>> counts = (Map<String, Map<String, Object>>) doc.get("counts");
    for (Map.Entry<String, Map<String, Object>> paper : counts.entrySet()) {
      b.append("\n#### ").append(paper.getKey()).append("\n\n");
      List<String> parts = new ArrayList<>();
      paper.getValue().forEach((verdict, n) -> parts.add(n + " " + verdict));
      b.append(String.join(", ", parts)).append(".\n\n");
      b.append("| figure | scenario | run | metric | paper | tolerance from | emulator | verdict | faithful |\n");
      b.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
      for (Map<String, Object> r : rows) {
        if (!paper.getKey().equals(r.get("paper"))) continue;
        b.append("| ").append(cell(r.get("figure")))
            .append(" | `").append(r.get("scenario")).append('`')
            .append(" | ").append(cell(r.get("policy")))
            .append(" | ").append(r.get("metric") == null ? "–" : "`" + r.get("metric") + "`")
            .append(" | ").append(cell(r.get("claim")))
            .append(" | ").append(r.get("tolerance_from") == null ? "–" : cell(r.get("tolerance_from")))
            .append(" | ").append(emulator(r, seeds))
            .append(" | ").append(verdict(r))
            .append(" | ").append(Boolean.TRUE.equals(r.get("faithful")) ? "yes" : "no")
            .append(" |\n");
      }
      List<String> rests = new ArrayList<>();
      for (Map<String, Object> r : rows) {
        if (paper.getKey().equals(r.get("paper")) && r.get("rests_on") != null) {
          rests.add("- " + r.get("figure") + ", " + r.get("policy") + ", `" + r.get("metric") + "`, paper "
              + r.get("claim") + ", " + r.get("verdict") + ": " + r.get("rests_on"));
        }
      }
      if (!rests.isEmpty()) {
        b.append("\nWhat the rows that could not have failed rest on:\n\n").append(String.join("\n", rests))
            .append('\n');
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

  /**
   * The verdict; an unfaithful row says what it would have been ("unfaithful (would be reproduced)"), a row that
   * rests on a constant or an input whether the run matches the paper ("calibrated (matches)"), an unstable one each
   * seed's verdict.
   */
  private static String verdict(Map<String, Object> r) {
    Object note = r.get("note");
    String label = String.valueOf(r.get("verdict"));
    if ((label.equals(ClaimVerdict.CALIBRATED.label()) || label.equals(ClaimVerdict.BY_CONSTRUCTION.label())
        || label.equals(ClaimVerdict.INPUT_DIFFERS.label())) && note instanceof String n) {
      return label + (n.startsWith("the run matches") ? " (matches)" : n.startsWith("the run misses") ? " (misses)"
          : "");
    }
    if (label.equals(ClaimVerdict.UNSTABLE.label()) && note instanceof String n && n.startsWith("seeds: ")) {
      return "unstable (" + n.substring("seeds: ".length(), n.indexOf(';') < 0 ? n.length() : n.indexOf(';')) + ")";
    }
    if (ClaimVerdict.INPUT.label().equals(r.get("verdict")) && note instanceof String n) {
      if (n.startsWith("a constant of the model")) return "input";
      return n.startsWith("calibration input: the run matches") ? "input (matches)" : "input (misses)";
    }
    if (ClaimVerdict.UNFAITHFUL.label().equals(r.get("verdict")) && note instanceof String n && n.startsWith("would be ")) {
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
