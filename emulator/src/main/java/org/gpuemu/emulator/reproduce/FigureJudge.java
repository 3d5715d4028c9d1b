package org.gpuemu.emulator.reproduce;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.gpuemu.emulator.config.Expectations;
import org.gpuemu.emulator.reproduce.Reproduction.Figure;
import org.gpuemu.emulator.reproduce.Reproduction.Run;

/**
 * Judges a figure's rows from its runs' summary documents (pure: no run, no file): each row's metric read by seed in
 * every group it covers, as a ratio to another policy's where it has one, aggregated over the groups, and judged
 * against the paper's number or ordering ({@link Judge}).
 */
final class FigureJudge {
  private FigureJudge() {}

  /** Judges a figure's rows from its full runs (by group, then policy; a null run failed). */
  static List<Report.Row> judge(Figure f, Map<String, Map<String, List<Run>>> runs, List<String> badMetrics) {
    return judge(f, runs, badMetrics, false);
  }

  /** Judges a figure's rows from its runs; {@code quick}: the runs were cut short, and no row is judged. */
  static List<Report.Row> judge(Figure f, Map<String, Map<String, List<Run>>> runs, List<String> badMetrics,
      boolean quick) {
    List<Report.Row> rows = new ArrayList<>();
    for (Expectations.Row row : f.expect().rows()) {
      // under --quick a row over groups none of which ran is left out (not "not run": nothing failed)
      boolean grouped = !f.expect().groups().isEmpty();
      if (grouped && f.expect().groups().all().stream().noneMatch(g -> runs.containsKey(g.label())
          && g.matches(row.where()))) {
        continue;
      }
      rows.add(row.unmeasured() != Expectations.Unmeasured.NONE
          ? new Report.Row(f.paper(), row.figure(), f.name(), "", null, "no run: see source", null, null,
              Judge.unmeasured(row.unmeasured()), List.of(), true, row.source(), Map.of(), null, row.basis())
          : judgeRow(f, row, runs, badMetrics, quick));
    }
    return rows;
  }

  /** Judges one row from the documents of full runs by group and policy (pure; exposed for tests). */
  static Report.Row judgeRow(Figure f, Expectations.Row row, Map<String, Map<String, List<Run>>> runs,
      List<String> badMetrics) {
    return judgeRow(f, row, runs, badMetrics, false);
  }

  static Report.Row judgeRow(Figure f, Expectations.Row row, Map<String, Map<String, List<Run>>> runs,
      List<String> badMetrics, boolean quick) {
    String policy = f.policyOf(row);
    List<String> groups = new ArrayList<>();
    for (Expectations.Group g : f.expect().groups().all()) {
      if (runs.containsKey(g.label()) && g.matches(row.where())) groups.add(g.label());
    }
    if (groups.isEmpty() && runs.containsKey("")) groups.add("");
    Gathered read = gather(f, row, runs, groups, badMetrics);
    boolean ok = read.ok();
    List<Double> values = aggregate(read.perGroup(), row.aggregate());
    List<Double> baseline = row.direction() == null ? List.of() : aggregate(read.baselines(), row.aggregate());
    if (row.direction() != null && !row.direction().groups().isEmpty()) {
      // the same value over the other groups: the row as it would read with their where, judged on its own
      Expectations.Row other = new Expectations.Row(row.figure(), row.metric(), row.policy(), row.over(),
          Expectations.OrderingOnly.INSTANCE, null, row.source(), row.aggregate(), row.direction().groups(),
          row.input(), row.perKey(), Expectations.Unmeasured.NONE, null, null);
      Report.Row judged = judgeRow(f, other, runs, badMetrics);
      baseline = judged.seedValues();
      ok &= judged.faithful();
    }
    Judge.Judged j = row.input() ? Judge.input(row.target(), values, ok)
        : Judge.judge(Judge.Claim.of(row), values, baseline, ok, quick);
    if (read.zeroBase() && j.verdict() == ClaimVerdict.NOT_RUN) {
      // the base run measured the metric as 0 (e.g. gVirt's λ when every VM is perfectly fair): the paper's ratio
      // presumes a base to improve on, and the run has none — a result, not a missing one
      j = new Judge.Judged(null, null, null, quick ? ClaimVerdict.NOT_JUDGED : ClaimVerdict.CONTRADICTS, row.over() + "'s "
          + row.metric() + " is 0 in a run: no base for the paper's ratio");
    }
    Double tolerance = row.target() instanceof Expectations.Value v ? v.tolerance() : null;
    if (row.target() instanceof Expectations.Bound b && b.tolerance() > 0) tolerance = b.tolerance();
    return new Report.Row(f.paper(), row.figure(), f.name(), label(row, policy, groups), row.metric(),
        Report.claim(row), Report.paperValue(row.target()), tolerance, j, values, ok, row.source(),
        read.groupMedians(), row.why(), row.basis());
  }

  /**
   * What a row reads in its groups: per group its policy's values by seed (ratios to {@code over}'s for a ratio
   * row), its ordering's baseline values, the group's median; whether every run read is trusted, and whether a
   * ratio's base was 0.
   */
  private record Gathered(List<List<Double>> perGroup, List<List<Double>> baselines,
      Map<String, Double> groupMedians, boolean ok, boolean zeroBase) {}

  private static Gathered gather(Figure f, Expectations.Row row, Map<String, Map<String, List<Run>>> runs,
      List<String> groups, List<String> badMetrics) {
    String policy = f.policyOf(row);
    boolean ok = true;
    boolean zeroBase = false;
    List<List<Double>> perGroup = new ArrayList<>();
    List<List<Double>> baselines = new ArrayList<>();
    Map<String, Double> groupMedians = new LinkedHashMap<>();
    for (String g : groups) {
      Map<String, List<Run>> byPolicy = runs.get(g);
      List<Double> values = row.perKey()
          ? perKey(byPolicy.get(policy), row.over() == null ? null : byPolicy.get(row.over()), row.metric(), f,
              badMetrics)
          : values(byPolicy.get(policy), row.metric(), f, badMetrics);
      ok &= trusted(byPolicy.get(policy));
      if (row.over() != null && row.perKey()) {
        ok &= trusted(byPolicy.get(row.over()));
      } else if (row.over() != null) {
        List<Double> over = values(byPolicy.get(row.over()), row.metric(), f, badMetrics);
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
          Double a = values.get(i);
          Double b = i < over.size() ? over.get(i) : null;
          zeroBase |= a != null && b != null && b == 0;
          ratios.add(a == null || b == null || b == 0 ? null : a / b);
        }
        values = ratios;
        ok &= trusted(byPolicy.get(row.over()));
      }
      if (row.direction() != null && row.direction().groups().isEmpty()) {
        baselines.add(values(byPolicy.get(row.direction().policy()), row.metric(), f, badMetrics));
        ok &= trusted(byPolicy.get(row.direction().policy()));
      }
      perGroup.add(values);
      if (!g.isEmpty() && !values.isEmpty() && values.stream().allMatch(java.util.Objects::nonNull)) {
        groupMedians.put(g, Report.round(Judge.median(values)));
      }
    }
    return new Gathered(perGroup, baselines, groupMedians, ok, zeroBase);
  }

  /** The row's label: its policy (over the base's), and the aggregate over how many groups, and which. */
  private static String label(Expectations.Row row, String policy, List<String> groups) {
    String label = row.over() != null ? policy + " / " + row.over() : policy;
    if (row.aggregate() != Expectations.Aggregate.NONE) {
      label += ", " + row.aggregate().label() + " of " + groups.size() + " group" + (groups.size() == 1 ? "" : "s");
      if (!row.where().isEmpty()) {
        List<String> parts = new ArrayList<>();
        row.where().forEach((axis, value) -> parts.add(axis + " " + value));
        label += " (" + String.join(", ", parts) + ")";
      }
    }
    return label;
  }

  /** Whether every run of a policy's seeds can be trusted (a missing policy or a failed run cannot). */
  private static boolean trusted(List<Run> seeded) {
    return seeded != null && seeded.stream().allMatch(r -> r != null && r.trusted());
  }

  /**
   * Per seed, the aggregate over the groups of the groups' values (a missing value in any group: missing); the one
   * group's values when there is no aggregate.
   */
  static List<Double> aggregate(List<List<Double>> perGroup, Expectations.Aggregate aggregate) {
    if (perGroup.isEmpty()) return List.of();
    if (aggregate == Expectations.Aggregate.NONE) return perGroup.get(0);
    int seeds = perGroup.stream().mapToInt(List::size).max().orElse(0);
    List<Double> out = new ArrayList<>();
    for (int i = 0; i < seeds; i++) {
      double acc = aggregate == Expectations.Aggregate.MAX ? Double.NEGATIVE_INFINITY
          : aggregate == Expectations.Aggregate.MIN ? Double.POSITIVE_INFINITY : 0;
      boolean missing = false;
      for (List<Double> g : perGroup) {
        Double v = i < g.size() ? g.get(i) : null;
        if (v == null) {
          missing = true;
          break;
        }
        acc = switch (aggregate) {
          case MAX -> Math.max(acc, v);
          case MIN -> Math.min(acc, v);
          default -> acc + v;
        };
      }
      out.add(missing ? null : aggregate == Expectations.Aggregate.MEAN ? acc / perGroup.size() : acc);
    }
    return out;
  }

  /**
   * A per-key row's value in each seed: the mean over the keys at the metric's {@code *} of each key's value, or,
   * with {@code over}, of each key's ratio to the other run's value there (keys in both, a base of 0 left out).
   */
  private static List<Double> perKey(List<Run> runs, List<Run> over, String metric, Figure f,
      List<String> badMetrics) {
    List<Double> out = new ArrayList<>();
    if (runs == null) return out;
    for (int i = 0; i < runs.size(); i++) {
      Run run = runs.get(i);
      Run base = over == null ? null : i < over.size() ? over.get(i) : null;
      if (run == null || (over != null && base == null)) {
        out.add(null);
        continue;
      }
      Map<String, Double> a = keyed(run.document(), metric);
      Map<String, Double> b = base == null ? null : keyed(base.document(), metric);
      if (a.isEmpty()) {
        String bad = f.file() + ": scenario.expect: metric '" + metric + "' names nothing in summary.json";
        if (!badMetrics.contains(bad)) badMetrics.add(bad);
      }
      double sum = 0;
      int n = 0;
      for (Map.Entry<String, Double> e : a.entrySet()) {
        if (b == null) {
          sum += e.getValue();
          n++;
        } else if (b.get(e.getKey()) != null && b.get(e.getKey()) != 0) {
          sum += e.getValue() / b.get(e.getKey());
          n++;
        }
      }
      out.add(n == 0 ? null : sum / n);
    }
    return out;
  }

  /** The numbers at a metric with one {@code *} segment, by the key it stands for. */
  static Map<String, Double> keyed(Map<String, Object> doc, String metric) {
    String[] parts = metric.split("\\.");
    int star = java.util.Arrays.asList(parts).indexOf("*");
    String head = String.join(".", java.util.Arrays.copyOfRange(parts, 0, star));
    String rest = String.join(".", java.util.Arrays.copyOfRange(parts, star + 1, parts.length));
    Map<String, Double> out = new LinkedHashMap<>();
    Optional<Object> at = head.isEmpty() ? Optional.of(doc) : at(doc, head);
    if (at.isPresent() && at.get() instanceof Map<?, ?> m) {
      m.forEach((k, child) -> {
        Optional<Object> v = rest.isEmpty() ? Optional.of(child) : at(child, rest);
        if (v.isPresent() && v.get() instanceof Number n) out.put(String.valueOf(k), n.doubleValue());
      });
    }
    return out;
  }

  private static List<Double> values(List<Run> runs, String metric, Figure f, List<String> badMetrics) {
    List<Double> out = new ArrayList<>();
    if (runs == null) return out;
    for (Run run : runs) {
      if (run == null) {
        out.add(null);
        continue;
      }
      Map<String, Object> doc = run.document();
      Optional<Object> v = at(doc, metric);
      if (v.isEmpty()) {
        String bad = f.file() + ": scenario.expect: metric '" + metric + "' names nothing in summary.json";
        if (!badMetrics.contains(bad)) badMetrics.add(bad);
        out.add(null);
      } else {
        out.add(v.get() instanceof Number num ? num.doubleValue() : v.get() instanceof Boolean b ? (b ? 1.0 : 0.0)
            : null);
      }
    }
    return out;
  }

  /**
   * The value at a dotted path of a summary document: empty when the path names nothing; a present null is
   * {@code Optional.of(NULL)}. A number segment indexes a list (past its end: a present null, e.g. a policy
   * switch that did not happen); a {@code *} segment sums the rest of the path over every key there (e.g.
   * {@code vms.*.fps}, the VMs' FPS sum; a VM without the key adds nothing), and a segment with a {@code *} in it
   * over the keys it matches ({@code vms.c*.cpu_ms}: the VMs whose names start with c).
   */
  @SuppressWarnings("unchecked")
  static Optional<Object> at(Object doc, String dotted) {
    Object cur = doc;
    String[] parts = dotted.split("\\.");
    for (int i = 0; i < parts.length; i++) {
      String part = parts[i];
      if (part.contains("*") && cur instanceof Map<?, ?> m) {
        String rest = String.join(".", java.util.Arrays.copyOfRange(parts, i + 1, parts.length));
        String glob = "\\Q" + part.replace("*", "\\E.*\\Q") + "\\E";
        double sum = 0;
        boolean any = false;
        for (Map.Entry<?, ?> e : m.entrySet()) {
          if (!String.valueOf(e.getKey()).matches(glob)) continue;
          Object child = e.getValue();
          Optional<Object> v = rest.isEmpty() ? Optional.of(child) : at(child, rest);
          if (v.isPresent() && v.get() instanceof Number n) {
            sum += n.doubleValue();
            any = true;
          }
        }
        return any ? Optional.of(sum) : Optional.empty();
      }
      if (cur instanceof List<?> list && part.matches("\\d+")) {
        int index = Integer.parseInt(part);
        if (index >= list.size()) return Optional.of(NULL);
        cur = list.get(index);
        continue;
      }
      if (!(cur instanceof Map<?, ?> m) || !m.containsKey(part)) return Optional.empty();
      cur = ((Map<String, Object>) m).get(part);
      if (cur == null) return Optional.of(NULL);
    }
    return Optional.of(cur);
  }

  /** A present JSON null. */
  static final Object NULL = new Object();
}
