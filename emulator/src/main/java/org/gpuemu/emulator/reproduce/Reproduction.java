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
import java.util.Set;
import java.util.stream.Stream;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.Expectations;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.config.SharingModes;
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
  /**
   * The papers, in the order the table lists them, then {@code sharing}: NVIDIA's sharing modes against published
   * measurements that are not one of the five papers (conf/scenarios/sharing, docs/guides/sharing-modes.md).
   */
  public static final List<String> PAPERS = List.of("vgris", "fairgv", "vmcg", "combo", "gballoon", "sharing");
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
      boolean warmUp, Double scale) {}

  /**
   * One file to run: its scenario in each group (one unnamed group when it declares none) under each policy and
   * seed, and its rows.
   */
  public record Figure(String paper, String name, Path file, Expectations expect,
      Map<String, Map<String, List<Settings.Scenario>>> groups) {
    /** The policies each group runs, in order. */
    Set<String> policies() {
      return groups.isEmpty() ? Set.of() : groups.values().iterator().next().keySet();
    }

    /** The policy a row reads: its own, else the block's first, else the file's. */
    String policyOf(Expectations.Row row) {
      if (row.policy() != null) return row.policy();
      if (!expect.policies().isEmpty()) return expect.policies().get(0);
      return policies().iterator().next();
    }

    /** Runs in all. */
    int runCount() {
      return groups.values().stream().mapToInt(m -> m.values().stream().mapToInt(List::size).sum()).sum();
    }
  }

  /**
   * The headline plan: of each figure only its rows that stand for an abstract's claim ({@code headline}), run under
   * only the policies those rows read (a figure whose headline rows read no run runs nothing); figures without one
   * are dropped.
   */
  public static List<Figure> headline(List<Figure> figures) {
    List<Figure> out = new ArrayList<>();
    for (Figure f : figures) {
      List<Expectations.Row> rows = f.expect().rows().stream().filter(r -> r.basis().headline() != null).toList();
      if (rows.isEmpty()) continue;
      Set<String> read = new java.util.LinkedHashSet<>();
      for (Expectations.Row r : rows) {
        if (r.unmeasured() != Expectations.Unmeasured.NONE) continue;
        read.add(f.policyOf(r));
        if (r.over() != null) read.add(r.over());
        if (r.direction() != null && r.direction().policy() != null) read.add(r.direction().policy());
      }
      Map<String, Map<String, List<Settings.Scenario>>> groups = new LinkedHashMap<>();
      f.groups().forEach((label, byPolicy) -> {
        Map<String, List<Settings.Scenario>> kept = new LinkedHashMap<>();
        byPolicy.forEach((policy, runs) -> {
          if (read.contains(policy)) kept.put(policy, runs);
        });
        groups.put(label, kept);
      });
      Expectations e = f.expect();
      out.add(new Figure(f.paper(), f.name(), f.file(), new Expectations(e.paper(), e.policies(), e.durationNanos(),
          e.quickDurationNanos(), e.timeScale(), e.groups(), e.policySettings(), rows), groups));
    }
    return out;
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
      Map<String, Map<String, List<Settings.Scenario>>> groups = new LinkedHashMap<>();
      List<String> policies = expect.policies().isEmpty() ? List.of("") : expect.policies();
      for (Expectations.Group group : expect.groups().run(o.quick())) {
        Map<String, List<Settings.Scenario>> runs = new LinkedHashMap<>();
        for (String policy : policies) {
          List<Settings.Scenario> seeded = new ArrayList<>();
          String tag = (group.label().isEmpty() ? "" : "[" + group.label() + "] ")
              + (policy.isEmpty() ? "" : "[" + policy + "] ");
          try {
            Settings.Scenario base = ScenarioLoader.load(file, overrides(o, expect, group, policy, null, null),
                o.catalog());
            long duration = duration(expect, base, o.quick());
            for (int i = 0; i < o.seeds(); i++) {
              seeded.add(ScenarioLoader.load(file, overrides(o, expect, group, policy, duration, base.seed() + i),
                  o.catalog()));
            }
            runs.put(policy.isEmpty() ? base.gpuPolicy().name() : policy, seeded);
          } catch (ConfigProblems p) {
            p.problems().forEach(line -> problems.add(tag + line));
          }
        }
        groups.put(group.label(), runs);
      }
      figures.add(new Figure(paper, name, file, expect, groups));
    }
    try {
      List<Calibration.Constant> table = Calibration.near(o.conf());
      for (Figure f : figures) problems.addAll(Calibration.check(table, f));
    } catch (ConfigProblems p) {
      problems.addAll(p.problems());
    }
    if (!problems.isEmpty()) throw new ConfigProblems(problems);
    figures.sort(java.util.Comparator.comparingInt((Figure f) -> o.papers().indexOf(f.paper())));
    return figures;
  }

  private static ScenarioLoader.Overrides overrides(Options o, Expectations expect, Expectations.Group group,
      String policy, Long duration, Long seed) {
    Map<String, String> sets = new HashMap<>();
    sets.putAll(group.sets()); // HOCON text (Expectations.Axis)
    if (SharingModes.modeEntry(policy)) { // a sharing mode: the file's own policy, on a partitioned or MPS GPU
      sets.put("gpu.mode", policy);
      sets.putAll(expect.policySettings().getOrDefault(policy, Map.of()));
    } else if (!policy.isEmpty()) {
      boolean memory = o.catalog().find(policy).filter(e -> e.spec().kind() == PolicyKind.MEMORY).isPresent();
      sets.put(memory ? "memory.policy" : "scheduler.gpu.policy", policy);
      sets.putAll(expect.policySettings().getOrDefault(policy, Map.of()));
    }
    // --scale sets every file's time scale; else a file's expect.time-scale (fast forward), else its own
    Double scale = o.scale() != null ? o.scale() : expect.timeScale() > 0 ? expect.timeScale() : null;
    return new ScenarioLoader.Overrides(scale, duration, seed, sets);
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
    String[] warmedPaper = {null};
    int n = 0;
    for (Figure f : figures) {
      n++;
      long start = System.nanoTime();
      List<String> failures = new ArrayList<>();
      Map<String, Map<String, List<Run>>> summaries = collect(f, o.out(), failures, (dir, what, s) -> {
        Files.createDirectories(dir);
        try {
          if (o.warmUp() && !f.paper().equals(warmedPaper[0])) {
            Runner.warmUp(s, WARM_UP_WALL_NANOS);
            warmedPaper[0] = f.paper();
          }
          Summary summary = new Summary(Runner.run(s, dir, Runner.Options.every(1000)));
          summary.write(dir.resolve("summary.json"));
          if (!summary.brokenInvariants().isEmpty()) {
            failures.add(what + " seed " + s.seed() + " broke " + summary.brokenInvariants());
          }
          return new Run(summary.document(), summary.figuresExact());
        } catch (Exception ex) {
          failures.add(what + " seed " + s.seed() + " failed: " + ex);
          return null;
        }
      });
      broken |= !failures.isEmpty();
      List<Report.Row> judged = judgeNoting(f, summaries, failures, badMetrics, o.quick());
      rows.addAll(judged);
      Map<String, Integer> counts = new LinkedHashMap<>();
      for (Report.Row r : judged) counts.merge(r.judged().verdict().label(), 1, Integer::sum);
      progress.printf(Locale.ROOT, "[%d/%d] %s (%s): %s%s x %d seed%s, %.1f s wall: %s%s%n", n, figures.size(),
          f.name(), String.join(", ", f.expect().rows().stream().map(Expectations.Row::figure).distinct()
              .toList()), String.join(", ", f.policies()),
          f.groups().size() > 1 || !f.groups().containsKey("") ? " in " + f.groups().size() + " groups" : "",
          o.seeds(), o.seeds() == 1 ? "" : "s",
          (System.nanoTime() - start) / 1e9, counts, failures.isEmpty() ? "" : " -- " + String.join("; ", failures));
      progress.flush();
    }
    return new Outcome(rows, broken, badMetrics);
  }

  /**
   * Judges every figure again from the summaries a run of the same plan left in {@code o.out()} (its
   * {@code <file>/<group>/<policy>/seed-<n>/summary.json}), running nothing: when only the judging changed (an expect
   * row, a verdict rule), the figures are those of the runs. A missing summary is a failed run.
   */
  public static Outcome rejudge(List<Figure> figures, Options o, PrintWriter progress) throws IOException {
    List<Report.Row> rows = new ArrayList<>();
    List<String> badMetrics = new ArrayList<>();
    boolean broken = false;
    com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
    for (Figure f : figures) {
      List<String> failures = new ArrayList<>();
      Map<String, Map<String, List<Run>>> summaries = collect(f, o.out(), failures, (dir, what, s) -> {
        Path file = dir.resolve("summary.json");
        try {
          @SuppressWarnings("unchecked")
          Map<String, Object> doc = json.readValue(file.toFile(), LinkedHashMap.class);
          List<String> brokenInvariants = brokenInvariants(doc);
          if (!brokenInvariants.isEmpty()) failures.add(what + " seed " + s.seed() + " broke " + brokenInvariants);
          return new Run(doc, exact(doc));
        } catch (IOException ex) {
          failures.add(file + ": no summary (" + ex.getMessage() + ")");
          return null;
        }
      });
      broken |= !failures.isEmpty();
      rows.addAll(judgeNoting(f, summaries, failures, badMetrics, o.quick()));
    }
    progress.printf(Locale.ROOT, "judged %d figure files from the summaries in %s%n", figures.size(), o.out());
    progress.flush();
    return new Outcome(rows, broken, badMetrics);
  }

  /** One seed's run of a figure, from its folder: its summary, or null when it failed (it adds the failure). */
  private interface SeedRun {
    Run get(Path dir, String what, Settings.Scenario scenario) throws IOException;
  }

  /**
   * Every group's, policy's and seed's run of {@code f}, from {@code seedRun} in the seed's folder
   * {@code out/<file>/<group>/<policy>/seed-<n>}, by group and then policy.
   */
  private static Map<String, Map<String, List<Run>>> collect(Figure f, Path out, List<String> failures,
      SeedRun seedRun) throws IOException {
    Map<String, Map<String, List<Run>>> summaries = new LinkedHashMap<>();
    for (Map.Entry<String, Map<String, List<Settings.Scenario>>> g : f.groups().entrySet()) {
      Map<String, List<Run>> byPolicy = new LinkedHashMap<>();
      for (Map.Entry<String, List<Settings.Scenario>> e : g.getValue().entrySet()) {
        List<Run> seeded = new ArrayList<>();
        String what = (g.getKey().isEmpty() ? "" : g.getKey() + " ") + e.getKey();
        for (Settings.Scenario s : e.getValue()) {
          Path dir = out.resolve(f.name());
          if (!g.getKey().isEmpty()) dir = dir.resolve(g.getKey());
          seeded.add(seedRun.get(dir.resolve(e.getKey()).resolve("seed-" + s.seed()), what, s));
        }
        byPolicy.put(e.getKey(), seeded);
      }
      summaries.put(g.getKey(), byPolicy);
    }
    return summaries;
  }

  /** {@code f}'s rows judged on {@code summaries}, each noting the runs that failed, if any. */
  private static List<Report.Row> judgeNoting(Figure f, Map<String, Map<String, List<Run>>> summaries,
      List<String> failures, List<String> badMetrics, boolean quick) {
    List<Report.Row> judged = FigureJudge.judge(f, summaries, badMetrics, quick);
    if (failures.isEmpty()) return judged;
    return judged.stream().map(r -> withNote(r, String.join("; ", failures))).toList();
  }

  /** The invariants a summary document says its run broke ({@code invariants.broken}), as the run noted them. */
  static List<String> brokenInvariants(Map<String, Object> doc) {
    if (!(doc.get("invariants") instanceof Map<?, ?> invariants)) return List.of();
    if (!(invariants.get("broken") instanceof List<?> broken)) return List.of();
    return broken.stream().map(String::valueOf).toList();
  }

  /**
   * Whether a summary document's figures are exact ({@link Summary#figuresExact} read back): faithful, or unfaithful
   * by lag alone under the conservative order.
   */
  @SuppressWarnings("unchecked")
  static boolean exact(Map<String, Object> doc) {
    if (!(doc.get("fidelity") instanceof Map<?, ?> fidelity)) return false;
    if (Boolean.TRUE.equals(fidelity.get("faithful"))) return true;
    Object reason = fidelity.get("reason");
    Object order = fidelity.get("causality") instanceof Map<?, ?> c ? ((Map<String, Object>) c).get("order") : null;
    return reason instanceof String r && r.startsWith("lag:") && "conservative".equals(order);
  }

  private static Report.Row withNote(Report.Row r, String failure) {
    Judge.Judged j = r.judged();
    String note = j.note().isEmpty() ? failure : j.note() + "; " + failure;
    return new Report.Row(r.paper(), r.figure(), r.scenario(), r.policy(), r.metric(), r.claim(), r.paperValue(),
        r.tolerance(), new Judge.Judged(j.median(), j.min(), j.max(), j.verdict(), note), r.seedValues(),
        r.faithful(), r.source(), r.groupValues(), r.why(), r.basis());
  }

  /**
   * One run as a row reads it: its summary document, and whether its figures are exact ({@link
   * Summary#figuresExact}: faithful, or unfaithful by lag alone under the conservative order, whose figures are those
   * of a faithful run at any time scale: docs/concepts/time-and-order.md).
   */
  record Run(Map<String, Object> document, boolean trusted) {}
}
