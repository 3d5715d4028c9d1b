package org.gpuemu.emulator.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;

/**
 * The highest time scale at which a reference scenario gives the same outcome as in slow motion (scale 0.1): every
 * VM's GPU share and the fairness MMR within 2 % (relative) of the slow-motion run's, and what that saves in wall
 * time. Scales are tried in ascending order; the first that differs ends the search, so the answer is a scale at
 * which it and every lower one agreed. Same seed everywhere: only the time scale differs.
 */
final class FastForwardSection {
  static final double REFERENCE_SCALE = 0.1;
  static final double TOLERANCE = 0.02;

  private FastForwardSection() {}

  /**
   * One scale against the reference.
   *
   * @param shareDeviation largest relative deviation of a VM's GPU share from the reference's
   * @param mmrDeviation relative deviation of the fairness MMR
   * @param same both within the tolerance
   * @param runFaithful the run's own fidelity verdict
   */
  record Trial(double timeScale, double wallSeconds, Map<String, Double> shares, double mmr, double shareDeviation,
      double mmrDeviation, boolean same, long latenessP99Us, boolean runFaithful) {}

  /**
   * The section's figures.
   *
   * @param reference the scenario file
   * @param emulatedSeconds emulated length of every run here
   * @param slowMotion the scale 0.1 run (its deviations are 0)
   * @param highestSameScale the highest scale that gave the same outcome (0: none did)
   * @param fileSeconds the file's own emulated length
   * @param fileScale the file's own time scale
   * @param fileWallAtHighest wall seconds the file takes at {@code highestSameScale}
   * @param savedVsFileScale wall seconds saved against the file's own scale (negative: it takes longer)
   * @param savedVsSlowMotion wall seconds saved against scale 0.1
   */
  record Report(String reference, double emulatedSeconds, double tolerance, Trial slowMotion, List<Trial> trials,
      double highestSameScale, double fileSeconds, double fileScale, double fileWallAtHighest,
      double savedVsFileScale, double savedVsSlowMotion) {}

  static Report run(BenchPlan plan, Path reference, Runs runs, Consumer<String> progress) throws Exception {
    Settings.Scenario declared = load(reference, null, null);
    long nanos = Math.round(plan.fastForwardSeconds() * 1e9);
    progress.accept(String.format(Locale.ROOT, "fast forward: %s, %.1f emulated s at scale 0.1 (%.0f wall s) ...",
        reference, plan.fastForwardSeconds(), plan.fastForwardSeconds() / REFERENCE_SCALE));
    Runs.Measured slow = runs.run(load(reference, REFERENCE_SCALE, nanos), "ff-x0.1", 0, null);
    Outcome ref = Outcome.of(slow.summary());
    Trial slowTrial = new Trial(REFERENCE_SCALE, slow.wallSeconds(), ref.shares(), ref.mmr(), 0, 0, true,
        slow.lateness().p99(), slow.faithful());
    progress.accept(String.format(Locale.ROOT, "fast forward: scale 0.1: shares %s, mmr %.4f", shares(ref),
        ref.mmr()));
    List<Trial> trials = new ArrayList<>();
    double highest = 0;
    for (double scale : plan.fastForwardScales()) {
      Runs.Measured m = runs.run(load(reference, scale, nanos), "ff-x" + RequestPathSection.fmt(scale), 0, null);
      Outcome o = Outcome.of(m.summary());
      Outcome.Deviation d = o.against(ref);
      boolean same = d.within(TOLERANCE);
      trials.add(new Trial(scale, m.wallSeconds(), o.shares(), o.mmr(), d.share(), d.mmr(), same, m.lateness().p99(),
          m.faithful()));
      progress.accept(String.format(Locale.ROOT,
          "fast forward: scale %s: shares %s, mmr %.4f: share off by %.1f %%, mmr by %.1f %% -> %s",
          RequestPathSection.fmt(scale), shares(o), o.mmr(), 100 * d.share(), 100 * d.mmr(),
          same ? "same" : "DIFFERENT"));
      if (!same) break;
      highest = scale;
    }
    double fileSeconds = declared.durationNanos() / 1e9;
    double atHighest = highest > 0 ? fileSeconds / highest : Double.NaN;
    return new Report(reference.toString(), plan.fastForwardSeconds(), TOLERANCE, slowTrial, trials, highest,
        fileSeconds, declared.timeScale(), atHighest, fileSeconds / declared.timeScale() - atHighest,
        fileSeconds / REFERENCE_SCALE - atHighest);
  }

  private static Settings.Scenario load(Path file, Double scale, Long nanos) throws ConfigProblems {
    return ScenarioLoader.load(file, new ScenarioLoader.Overrides(scale, nanos, null, Map.of()));
  }

  private static String shares(Outcome o) {
    StringBuilder b = new StringBuilder();
    for (Map.Entry<String, Double> e : o.shares().entrySet()) {
      if (b.length() > 0) b.append(' ');
      b.append(e.getKey()).append(String.format(Locale.ROOT, " %.3f", e.getValue()));
    }
    return b.toString();
  }
}
