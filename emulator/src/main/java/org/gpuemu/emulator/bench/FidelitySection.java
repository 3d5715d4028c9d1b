package org.gpuemu.emulator.bench;

import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.run.Runner;

/**
 * Whether a run's own fidelity verdict ({@code fidelity.faithful} of summary.json) can be trusted: every scenario
 * file of a folder ({@code conf/scenarios/**}{@code /*.conf}), with its own GPU policy and seed, runs a short while
 * at its own time scale and then as long (same seed) {@value #SLOWER} times slower; the slower run is the reference
 * the key figures of the first are compared with ({@link FidelityCheck}). A faithful run whose figures differ from
 * the reference's is a missed error; an unfaithful one whose figures agree is a false alarm. A scenario that cannot
 * be loaded or run is a row with its error, not a failure of the section.
 */
final class FidelitySection {
  /** How many times slower than the file's own scale the reference runs. */
  static final double SLOWER = 5;
  /** The estimate's allowance for a run's start-up and drain (about a second per run on 2 cores). */
  static final double START_UP_WALL_SECONDS = 1;

  private FidelitySection() {}

  /**
   * One run of a scenario.
   *
   * @param timeScale its time scale
   * @param faithful its own verdict ({@code fidelity.faithful})
   * @param reason why not ({@code fidelity.reason}); null when faithful
   * @param latenessP99Us its p99 timer lateness, the whole run's (reported beside the verdict, not judged)
   * @param violations its causality violations ({@code fidelity.causality.violations}), what the verdict judges
   * @param wallSeconds its wall time, start-up and drain included
   * @param dir where its summary.json and timeline.jsonl are
   */
  record Side(double timeScale, boolean faithful, String reason, long latenessP99Us, long violations,
      double wallSeconds, String dir) {}

  /**
   * One scenario file.
   *
   * @param scenario the file, as found from the working folder
   * @param policy its GPU policy
   * @param seed its seed
   * @param emulatedSeconds emulated length of both runs
   * @param run the run at the file's scale (null: it failed, see {@code error})
   * @param reference the run {@value #SLOWER} times slower (null: it failed or did not run)
   * @param comparison the figures of both; null unless both ran
   * @param call how the run's verdict fared; null unless compared
   * @param verdictRight faithful and within, or not faithful; null unless compared
   * @param missed faithful but not within; null unless compared
   * @param falseAlarm not faithful but within; null unless compared
   * @param error why the scenario could not be loaded or run; null when compared
   */
  record Row(String scenario, String policy, Long seed, double emulatedSeconds, Side run, Side reference,
      FidelityCheck.Comparison comparison, FidelityCheck.Call call, Boolean verdictRight, Boolean missed,
      Boolean falseAlarm, String error) {

    static Row failed(String scenario, Settings.Scenario s, double seconds, Side run, Side reference, String error) {
      return new Row(scenario, s == null ? null : s.gpuPolicy().name(), s == null ? null : s.seed(), seconds, run,
          reference, null, null, null, null, null, error);
    }
  }

  /**
   * The section's figures.
   *
   * @param folder where the scenario files were looked for
   * @param filter the glob they were filtered with (relative to {@code folder}); null: all
   * @param slower how many times slower than the file's scale the reference runs
   * @param relativeTolerance a relative difference within this is within
   * @param absoluteTolerance an absolute difference (reference below {@code absoluteBelow}) within this is within
   * @param absoluteBelow references below this are compared by the absolute difference
   * @param estimatedWallSeconds the estimate printed at the start: both runs' running time, the warm-ups and
   *     {@value #START_UP_WALL_SECONDS} s of start-up and drain per run
   * @param rows one per scenario file, in path order
   */
  record Report(String folder, String filter, double slower, double relativeTolerance, double absoluteTolerance,
      double absoluteBelow, double estimatedWallSeconds, List<Row> rows, FidelityCheck.Totals totals) {
    Report {
      rows = List.copyOf(rows);
    }
  }

  // A scenario file once loaded at its own scale (or why it could not be).
  private record Planned(Path file, String name, Settings.Scenario declared, double seconds, String error) {
    double wallSeconds(double warmUpWallSeconds) {
      if (declared == null) return 0;
      return seconds / declared.timeScale() * (1 + SLOWER) + warmUpWallSeconds + 2 * START_UP_WALL_SECONDS;
    }
  }

  static Report run(BenchPlan plan, Path folder, String filter, Runs runs, Consumer<String> progress)
      throws Exception {
    List<Path> files = files(folder, filter);
    if (files.isEmpty()) {
      throw new IllegalArgumentException("no scenario file under " + folder
          + (filter == null ? "" : " matches '" + filter + "'"));
    }
    List<Planned> planned = new ArrayList<>();
    double estimate = 0;
    for (Path file : files) {
      String name = folder.relativize(file).toString().replace('\\', '/');
      Planned p;
      try {
        Settings.Scenario declared = load(file, null, null);
        double seconds = withFaults(plan.fidelitySeconds(declared.durationNanos() / 1e9, declared.timeScale()),
            declared);
        p = new Planned(file, name, declared, seconds, null);
      } catch (ConfigProblems e) {
        p = new Planned(file, name, null, 0, "cannot load: " + String.join("; ", e.problems()));
      }
      planned.add(p);
      estimate += p.wallSeconds(plan.fidelityWarmUpWallSeconds());
    }
    progress.accept(String.format(Locale.ROOT, "fidelity: %d scenario file(s) under %s%s, each at its own scale and "
        + "%.0fx slower, same seed and length (%s plan): estimated %.0f wall s (%.1f min) for %d runs, warm-ups, "
        + "start-up and drain", files.size(), folder, filter == null ? "" : " matching '" + filter + "'", SLOWER,
        plan.name(), estimate, estimate / 60, 2 * files.size()));
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < planned.size(); i++) {
      Row row = scenario(plan, planned.get(i), runs);
      rows.add(row);
      progress.accept(String.format(Locale.ROOT, "fidelity: [%d/%d] %s", i + 1, planned.size(), line(row)));
    }
    List<FidelityCheck.Call> calls = new ArrayList<>();
    int refFaithful = 0;
    int errors = 0;
    for (Row r : rows) {
      if (r.call() == null) {
        errors++;
        continue;
      }
      calls.add(r.call());
      if (r.reference().faithful()) refFaithful++;
    }
    FidelityCheck.Totals totals = FidelityCheck.Totals.of(calls, refFaithful, errors);
    return new Report(folder.toString(), filter, SLOWER, FidelityCheck.RELATIVE_TOLERANCE,
        FidelityCheck.ABSOLUTE_TOLERANCE, FidelityCheck.ABSOLUTE_BELOW, estimate, rows, totals);
  }

  /**
   * The emulated length of a file's runs: {@code seconds}, or, for a file that plans faults, long enough to strike
   * its last one and go on a second (a fault planned past the end of a run is bad input), at most the file's own.
   */
  static double withFaults(double seconds, Settings.Scenario declared) {
    double lastFault = declared.faults().faults().stream().mapToLong(f -> f.atNanos()).max().orElse(-1) / 1e9;
    if (lastFault < 0) return seconds;
    return Math.min(declared.durationNanos() / 1e9, Math.max(seconds, lastFault + 1));
  }

  /** The scenario files under the folder, in path order; with a glob, those whose path under it matches. */
  static List<Path> files(Path folder, String filter) throws java.io.IOException {
    PathMatcher matcher = filter == null ? null : matcher(filter);
    try (Stream<Path> all = Files.walk(folder)) {
      return all.filter(p -> Files.isRegularFile(p) && p.getFileName().toString().endsWith(".conf"))
          .filter(p -> matcher == null || matches(matcher, folder.relativize(p)))
          .sorted()
          .collect(Collectors.toList());
    }
  }

  /**
   * The {@code --scenarios} glob's matcher; {@link java.util.regex.PatternSyntaxException} when it is not a glob. A
   * file matches by its path under the folder with or without {@code .conf}: {@code vmcg/*},
   * {@code vmcg/fairness-2vms}, {@code **}{@code /qos.conf}, {@code {combo,gballoon}/*}.
   */
  static PathMatcher matcher(String glob) {
    return FileSystems.getDefault().getPathMatcher("glob:" + glob);
  }

  private static boolean matches(PathMatcher matcher, Path relative) {
    String name = relative.getFileName().toString();
    Path bare = relative.resolveSibling(name.substring(0, name.length() - ".conf".length()));
    return matcher.matches(relative) || matcher.matches(bare);
  }

  private static Row scenario(BenchPlan plan, Planned p, Runs runs) {
    String file = p.file().toString();
    if (p.declared() == null) return Row.failed(file, null, 0, null, null, p.error());
    Settings.Scenario declared = p.declared();
    long nanos = Math.round(p.seconds() * 1e9);
    double scale = declared.timeScale();
    double refScale = scale / SLOWER;
    String dir = "fidelity/" + p.name().substring(0, p.name().length() - ".conf".length());
    Side run = null;
    Side ref = null;
    try {
      Settings.Scenario atScale = load(p.file(), scale, nanos);
      if (plan.fidelityWarmUpWallSeconds() > 0) {
        Runner.warmUp(atScale, Math.round(plan.fidelityWarmUpWallSeconds() * 1e9));
      }
      Runs.Measured m = runs.run(atScale, dir + "-x" + RequestPathSection.fmt(scale), 0, null);
      run = side(m);
      Runs.Measured r = runs.run(load(p.file(), refScale, nanos), dir + "-x" + RequestPathSection.fmt(refScale), 0,
          null);
      ref = side(r);
      FidelityCheck.Comparison c = FidelityCheck.compare(m.summary(), r.summary());
      FidelityCheck.Call call = FidelityCheck.Call.of(run.faithful(), c.within());
      return new Row(file, declared.gpuPolicy().name(), declared.seed(), p.seconds(), run, ref, c, call,
          call.right(), call == FidelityCheck.Call.MISSED, call == FidelityCheck.Call.FALSE_ALARM, null);
    } catch (ConfigProblems e) {
      return Row.failed(file, declared, p.seconds(), run, ref, "cannot load: " + String.join("; ", e.problems()));
    } catch (Exception e) {
      String when = run == null ? "at scale " + RequestPathSection.fmt(scale)
          : "at the reference scale " + RequestPathSection.fmt(refScale);
      return Row.failed(file, declared, p.seconds(), run, ref, "run " + when + " failed: " + e);
    }
  }

  private static Side side(Runs.Measured m) {
    Object reason = m.summary().get("fidelity") instanceof Map<?, ?> fidelity ? fidelity.get("reason") : null;
    return new Side(m.scenario().timeScale(), m.faithful(), reason == null ? null : reason.toString(),
        m.lateness().p99(), Math.round(m.number("fidelity", "causality", "violations")), m.wallSeconds(),
        m.dir().toString());
  }

  private static Settings.Scenario load(Path file, Double scale, Long nanos) throws ConfigProblems {
    return ScenarioLoader.load(file, new ScenarioLoader.Overrides(scale, nanos, null, Map.of()));
  }

  /** A row as one progress line: both verdicts and the largest difference. */
  static String line(Row r) {
    if (r.error() != null) return r.scenario() + ": ERROR: " + r.error();
    return String.format(Locale.ROOT, "%s, %s emulated s: x%s %s, x%s %s; largest %s -> %s, verdict %s",
        r.scenario(), seconds(r.emulatedSeconds()), RequestPathSection.fmt(r.run().timeScale()), verdict(r.run()),
        RequestPathSection.fmt(r.reference().timeScale()), verdict(r.reference()), largest(r.comparison()),
        r.comparison().within() ? "within" : "OUTSIDE", call(r.call()));
  }

  static String verdict(Side s) {
    return String.format(Locale.ROOT, "%s (%,d violations, p99 %,d us)", s.faithful() ? "faithful" : "NOT faithful",
        s.violations(), s.latenessP99Us());
  }

  /** The largest difference as "vms.vm1.fps 1.23 % rel" or "fairness.mmr 0.0042 abs" (and unmatched figures). */
  static String largest(FidelityCheck.Comparison c) {
    FidelityCheck.Difference d = c.largest();
    String s = d == null ? "none compared" : d.figure() + " " + difference(d);
    if (!c.unmatched().isEmpty()) s += " (unmatched: " + String.join(", ", c.unmatched()) + ")";
    return s;
  }

  static String difference(FidelityCheck.Difference d) {
    return d.kind().equals("relative") ? String.format(Locale.ROOT, "%.2f %% rel", 100 * d.difference())
        : String.format(Locale.ROOT, "%.4f abs", d.difference());
  }

  static String call(FidelityCheck.Call call) {
    return switch (call) {
      case CONFIRMED, CAUGHT -> "right";
      case MISSED -> "MISSED (faithful, figures differ)";
      case FALSE_ALARM -> "right (false alarm: unfaithful, figures agree)";
    };
  }

  private static String seconds(double s) {
    return String.format(Locale.ROOT, "%.2f", s).replaceAll("0+$", "").replaceAll("\\.$", "");
  }
}
