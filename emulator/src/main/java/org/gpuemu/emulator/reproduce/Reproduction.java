package org.gpuemu.emulator.reproduce;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.Expectations;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.emulator.run.Runner;
import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyKind;

/**
 * Runs the scenario files that declare an {@code expect} block, each under the policies its figure compares and
 * with several seeds, in this JVM one after the other, and judges every row ({@link Judge}). Not an actor: like
 * {@code compare}, a loop over {@link Runner#run}.
 */
public final class Reproduction {
  /** The papers, in the order the table lists them. */
  public static final List<String> PAPERS = List.of("vgris", "fairgv", "vmcg", "combo", "gballoon");
  /** Wall time of the throw-away run that warms the JVM up before a paper's first figure. */
  static final long WARM_UP_WALL_NANOS = 1_000_000_000L;

  private Reproduction() {}

  /**
   * What to run.
   *
   * @param conf the folder of scenario files (conf/scenarios), searched recursively
   * @param papers the papers to reproduce, in order
   * @param seeds runs per policy; seed i is the file's seed + i
   * @param scale the time scale of every run (null: each file's own); under the conservative order a run's figures
   *     do not depend on it (DeterminismTest), so a large one runs as fast as the machine goes
   */
  public record Options(Path conf, List<String> papers, boolean quick, int seeds, Path out, PolicyCatalog catalog,
      boolean warmUp, Double scale) {
    public Options(Path conf, List<String> papers, boolean quick, int seeds, Path out, PolicyCatalog catalog,
        boolean warmUp) {
      this(conf, papers, quick, seeds, out, catalog, warmUp, null);
    }
  }

  /** One file to run: its scenario under each policy and seed, and its rows. */
  public record Figure(String paper, String name, Path file, Expectations expect,
      Map<String, List<Settings.Scenario>> runs) {
    /** The policy a row reads: its own, else the block's first, else the file's. */
    String policyOf(Expectations.Row row) {
      return row.policy() != null ? row.policy() : runs.keySet().iterator().next();
    }
  }

  /** The result: rows, whether a run broke an invariant, and metrics that named nothing in the summary. */
  public record Outcome(List<Report.Row> rows, boolean broken, List<String> badMetrics) {}

  /**
   * Reads and validates every file to run (bad input as problems, all at once, before anything runs). A file is
   * run when it has an expect block and its paper (the block's {@code paper}, else the first folder under
   * {@code conf}) is one of {@code papers}.
   */
  public static List<Figure> plan(Options o) throws ConfigProblems {
    List<String> problems = new ArrayList<>();
    List<Figure> figures = new ArrayList<>();
    List<Path> files;
    try (Stream<Path> walk = Files.walk(o.conf())) {
      files = walk.filter(p -> p.toString().endsWith(".conf") && Files.isRegularFile(p)).sorted().toList();
    } catch (IOException e) {
      throw ConfigProblems.of(o.conf() + ": cannot read the scenario folder: " + e.getMessage());
    }
    for (Path file : files) {
      Expectations expect;
      try {
        expect = Expectations.read(file, o.catalog());
      } catch (ConfigProblems p) {
        problems.addAll(p.problems());
        continue;
      }
      if (expect.isEmpty()) continue;
      Path rel = o.conf().relativize(file);
      String paper = expect.paper() != null ? expect.paper() : rel.getNameCount() > 1 ? rel.getName(0).toString() : "";
      if (!o.papers().contains(paper)) continue;
      String name = rel.toString().replaceFirst("\\.conf$", "").replace('\\', '/');
      Map<String, List<Settings.Scenario>> runs = new LinkedHashMap<>();
      List<String> policies = expect.policies().isEmpty() ? List.of("") : expect.policies();
      for (String policy : policies) {
        List<Settings.Scenario> seeded = new ArrayList<>();
        try {
          Settings.Scenario base = ScenarioLoader.load(file, overrides(o, policy, null, null), o.catalog());
          long duration = duration(expect, base, o.quick());
          for (int i = 0; i < o.seeds(); i++) {
            seeded.add(ScenarioLoader.load(file, overrides(o, policy, duration, base.seed() + i), o.catalog()));
          }
          runs.put(policy.isEmpty() ? base.gpuPolicy().name() : policy, seeded);
        } catch (ConfigProblems p) {
          p.problems().forEach(line -> problems.add(policy.isEmpty() ? line : "[" + policy + "] " + line));
        }
      }
      figures.add(new Figure(paper, name, file, expect, runs));
    }
    if (!problems.isEmpty()) throw new ConfigProblems(problems);
    figures.sort(java.util.Comparator.comparingInt((Figure f) -> o.papers().indexOf(f.paper())));
    return figures;
  }

  private static ScenarioLoader.Overrides overrides(Options o, String policy, Long duration, Long seed) {
    Map<String, String> sets = new HashMap<>();
    if (!policy.isEmpty()) {
      boolean memory = o.catalog().find(policy).filter(e -> e.spec().kind() == PolicyKind.MEMORY).isPresent();
      sets.put(memory ? "memory.policy" : "scheduler.gpu.policy", policy);
    }
    return new ScenarioLoader.Overrides(o.scale(), duration, seed, sets);
  }

  /**
   * A run's emulated length: the block's {@code duration} (else the file's); under --quick its
   * {@code quick-duration}, else that cut to {@link Expectations#QUICK_WALL_NANOS} of wall time at the time scale.
   */
  static long duration(Expectations e, Settings.Scenario s, boolean quick) {
    long full = e.durationNanos() > 0 ? e.durationNanos() : s.durationNanos();
    if (!quick) return full;
    if (e.quickDurationNanos() > 0) return e.quickDurationNanos();
    return Math.max(1_000_000L, Math.min(full, Math.round(Expectations.QUICK_WALL_NANOS * s.timeScale())));
  }

  /** Runs every figure and judges its rows; a line per figure on {@code progress}. */
  public static Outcome run(List<Figure> figures, Options o, PrintWriter progress) throws IOException {
    List<Report.Row> rows = new ArrayList<>();
    List<String> badMetrics = new ArrayList<>();
    boolean broken = false;
    String warmedPaper = null;
    int n = 0;
    for (Figure f : figures) {
      n++;
      long start = System.nanoTime();
      Map<String, List<Summary>> summaries = new LinkedHashMap<>();
      List<String> failures = new ArrayList<>();
      for (Map.Entry<String, List<Settings.Scenario>> e : f.runs().entrySet()) {
        List<Summary> seeded = new ArrayList<>();
        for (Settings.Scenario s : e.getValue()) {
          Path dir = o.out().resolve(f.name()).resolve(e.getKey())
              .resolve("seed-" + s.seed());
          Files.createDirectories(dir);
          try {
            if (o.warmUp() && !f.paper().equals(warmedPaper)) {
              Runner.warmUp(s, WARM_UP_WALL_NANOS);
              warmedPaper = f.paper();
            }
            Summary summary = new Summary(Runner.run(s, dir, v -> { }, 1000));
            summary.write(dir.resolve("summary.json"));
            if (!summary.brokenInvariants().isEmpty()) {
              broken = true;
              failures.add(e.getKey() + " seed " + s.seed() + " broke " + summary.brokenInvariants());
            }
            seeded.add(summary);
          } catch (Exception ex) {
            broken = true;
            failures.add(e.getKey() + " seed " + s.seed() + " failed: " + ex);
            seeded.add(null);
          }
        }
        summaries.put(e.getKey(), seeded);
      }
      List<Report.Row> judged = judge(f, summaries, badMetrics);
      if (!failures.isEmpty()) {
        judged = judged.stream().map(r -> withNote(r, String.join("; ", failures))).toList();
      }
      rows.addAll(judged);
      Map<String, Integer> counts = new LinkedHashMap<>();
      for (Report.Row r : judged) counts.merge(r.judged().verdict().label(), 1, Integer::sum);
      progress.printf(Locale.ROOT, "[%d/%d] %s (%s): %s x %d seed%s, %.1f s wall: %s%s%n", n, figures.size(),
          f.name(), String.join(", ", f.expect().rows().stream().map(Expectations.Row::figure).distinct()
              .toList()), String.join(", ", f.runs().keySet()), o.seeds(), o.seeds() == 1 ? "" : "s",
          (System.nanoTime() - start) / 1e9, counts, failures.isEmpty() ? "" : " -- " + String.join("; ", failures));
      progress.flush();
    }
    return new Outcome(rows, broken, badMetrics);
  }

  private static Report.Row withNote(Report.Row r, String failure) {
    Judge.Judged j = r.judged();
    String note = j.note().isEmpty() ? failure : j.note() + "; " + failure;
    return new Report.Row(r.paper(), r.figure(), r.scenario(), r.policy(), r.metric(), r.claim(), r.paperValue(),
        r.tolerance(), new Judge.Judged(j.median(), j.min(), j.max(), j.verdict(), note), r.seedValues(),
        r.faithful(), r.source());
  }

  /** Judges a figure's rows from its runs' summaries (a null summary: that run failed). */
  static List<Report.Row> judge(Figure f, Map<String, List<Summary>> summaries, List<String> badMetrics) {
    Map<String, List<Map<String, Object>>> docs = new LinkedHashMap<>();
    Map<String, Boolean> faithful = new HashMap<>();
    summaries.forEach((policy, list) -> {
      docs.put(policy, list.stream().map(s -> s == null ? null : s.document()).toList());
      faithful.put(policy, list.stream().allMatch(s -> s != null && s.figuresExact()));
    });
    List<Report.Row> rows = new ArrayList<>();
    for (Expectations.Row row : f.expect().rows()) {
      rows.add(judgeRow(f, row, docs, faithful, badMetrics));
    }
    return rows;
  }

  /** Judges one row from the summaries' documents per policy (pure; exposed for tests). */
  static Report.Row judgeRow(Figure f, Expectations.Row row, Map<String, List<Map<String, Object>>> docs,
      Map<String, Boolean> faithful, List<String> badMetrics) {
    String policy = f.policyOf(row);
    List<Double> values = values(docs.get(policy), row.metric(), f, badMetrics);
    boolean ok = faithful.getOrDefault(policy, false);
    String label = policy;
    if (row.over() != null) {
      List<Double> over = values(docs.get(row.over()), row.metric(), f, badMetrics);
      List<Double> ratios = new ArrayList<>();
      for (int i = 0; i < values.size(); i++) {
        Double a = values.get(i);
        Double b = i < over.size() ? over.get(i) : null;
        ratios.add(a == null || b == null || b == 0 ? null : a / b);
      }
      values = ratios;
      ok &= faithful.getOrDefault(row.over(), false);
      label = policy + " / " + row.over();
    }
    List<Double> baseline = List.of();
    if (row.direction() != null) {
      baseline = values(docs.get(row.direction().policy()), row.metric(), f, badMetrics);
      ok &= faithful.getOrDefault(row.direction().policy(), false);
    }
    Judge.Judged j = Judge.judge(row.target(), row.direction(), row.over() != null, values, baseline, ok);
    Double tolerance = row.target() instanceof Expectations.Value v ? v.tolerance() : null;
    return new Report.Row(f.paper(), row.figure(), f.name(), label, row.metric(), Report.claim(row),
        Report.paperValue(row.target()), tolerance, j, values, ok, row.source());
  }

  private static List<Double> values(List<Map<String, Object>> docs, String metric, Figure f,
      List<String> badMetrics) {
    List<Double> out = new ArrayList<>();
    if (docs == null) return out;
    for (Map<String, Object> doc : docs) {
      if (doc == null) {
        out.add(null);
        continue;
      }
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
   * {@code vms.*.fps}, the VMs' FPS sum; a VM without the key adds nothing).
   */
  @SuppressWarnings("unchecked")
  static Optional<Object> at(Object doc, String dotted) {
    Object cur = doc;
    String[] parts = dotted.split("\\.");
    for (int i = 0; i < parts.length; i++) {
      String part = parts[i];
      if (part.equals("*") && cur instanceof Map<?, ?> m) {
        String rest = String.join(".", java.util.Arrays.copyOfRange(parts, i + 1, parts.length));
        double sum = 0;
        boolean any = false;
        for (Object child : m.values()) {
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
