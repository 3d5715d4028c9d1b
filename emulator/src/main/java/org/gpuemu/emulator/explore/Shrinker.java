package org.gpuemu.emulator.explore;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.ExploreBlock;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.policies.spi.PolicyCatalog;

/**
 * Reduces a failing run to a small one that still fails the same way (a finding of the same kind): delta debugging
 * over its fault list (Zeller and Hildebrandt, "Simplifying and Isolating Failure-Inducing Input", IEEE TSE 28(2),
 * 2002: {@code ddmin}), then a shorter duration (halving the part after the last fault while it still fails), then
 * fewer VMs (each the scenario lets go, one at a time), then the default tie order. Every candidate is run from the
 * scenario text its {@link Plan} writes, so the file the shrinker hands back is the one it tested.
 */
public final class Shrinker {
  /** The shortest duration tried: a metric period's worth of run after the last fault, and never under 1 s. */
  private static final long MIN_TAIL_NANOS = 1_000_000_000L;

  /** Runs a candidate and says what it broke. */
  public interface Tester {
    List<Judge.Finding> run(Plan plan) throws Exception;
  }

  /**
   * What shrinking gave: the plan it started from and the one it ended with, the kind it kept, the last run's
   * findings, how many runs it took, and one line per step.
   */
  public record Outcome(Plan original, Plan shrunk, String kind, List<Judge.Finding> findings, int runs,
      List<String> steps, boolean replayed) {}

  private final Tester tester;
  private final String kind;
  private final List<String> steps = new ArrayList<>();
  private List<Judge.Finding> lastFailing = List.of();
  private int runs;

  private Shrinker(Tester tester, String kind) {
    this.tester = tester;
    this.kind = kind;
  }

  /**
   * Shrinks {@code failing}, which broke {@code kind}; {@code fixedVms}: the VMs it may not remove (the scenario's
   * keep-vms and those its properties name). When the plan does not fail again as it stands (it should: the run
   * depends on it alone), nothing is shrunk and {@code replayed} is false.
   */
  public static Outcome shrink(Plan failing, String kind, List<String> removableVms, Tester tester) throws Exception {
    Shrinker s = new Shrinker(tester, kind);
    if (!s.fails(failing)) {
      s.steps.add("the failing run's plan, written out, did not fail again: not shrunk");
      return new Outcome(failing, failing, kind, List.of(), s.runs, s.steps, false);
    }
    s.steps.add("replayed from its plan: fails (" + failing.faults().size() + " faults)");
    Plan p = s.faults(failing);
    p = s.duration(p);
    p = s.vms(p, removableVms);
    if (p.orderSeed() != 0) {
      Plan d = p.withOrderSeed(0);
      if (s.fails(d)) {
        p = d;
        s.steps.add("the default tie order: still fails");
      } else {
        s.steps.add("the default tie order: passes; keeping tie order " + p.orderSeed());
      }
    }
    return new Outcome(failing, p, kind, s.lastFailing, s.runs, s.steps, true);
  }

  private boolean fails(Plan p) throws Exception {
    runs++;
    List<Judge.Finding> found = tester.run(p);
    boolean same = found.stream().anyMatch(f -> f.kind().equals(kind));
    if (same) lastFailing = found;
    return same;
  }

  /** ddmin over the faults: the smallest list found that still fails (1-minimal: no single fault can go). */
  private Plan faults(Plan p) throws Exception {
    List<FaultPlan.Fault> faults = p.faults();
    if (faults.isEmpty()) return p;
    if (fails(p.withFaults(List.of()))) {
      steps.add("without any fault: still fails");
      return p.withFaults(List.of());
    }
    int n = 2;
    while (faults.size() >= 2) {
      List<List<FaultPlan.Fault>> chunks = split(faults, n);
      boolean reduced = false;
      for (List<FaultPlan.Fault> chunk : chunks) {
        if (fails(p.withFaults(chunk))) {
          faults = chunk;
          n = 2;
          reduced = true;
          break;
        }
      }
      if (!reduced && n > 2) {
        for (List<FaultPlan.Fault> chunk : chunks) {
          List<FaultPlan.Fault> complement = new ArrayList<>(faults);
          complement.removeAll(chunk);
          if (fails(p.withFaults(complement))) {
            faults = complement;
            n = Math.max(n - 1, 2);
            reduced = true;
            break;
          }
        }
      }
      if (!reduced) {
        if (n >= faults.size()) break;
        n = Math.min(faults.size(), 2 * n);
      }
    }
    steps.add("delta debugging over the faults: " + p.faults().size() + " -> " + faults.size() + " "
        + describe(faults));
    return p.withFaults(faults);
  }

  private static List<List<FaultPlan.Fault>> split(List<FaultPlan.Fault> faults, int n) {
    List<List<FaultPlan.Fault>> chunks = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < n; i++) {
      int end = start + (faults.size() - start) / (n - i);
      if (end > start) chunks.add(List.copyOf(faults.subList(start, end)));
      start = end;
    }
    return chunks;
  }

  /** Halves the run after the last fault's heal while it still fails (at most a few steps, to the nearest 100 ms). */
  private Plan duration(Plan p) throws Exception {
    long lastEnd = 0;
    for (FaultPlan.Fault f : p.faults()) lastEnd = Math.max(lastEnd, f.atNanos() + f.healAfterNanos());
    long low = Math.min(p.durationNanos(), lastEnd + MIN_TAIL_NANOS);
    long high = p.durationNanos();
    long best = high;
    while (high - low > 100_000_000L) {
      long mid = round100ms((low + high) / 2);
      if (mid <= low || mid >= high) break;
      if (fails(p.withDuration(mid))) {
        best = mid;
        high = mid;
      } else {
        low = mid;
      }
    }
    steps.add(String.format(Locale.ROOT, "duration: %.1f s -> %.1f s", p.durationNanos() / 1e9, best / 1e9));
    return p.withDuration(best);
  }

  private static long round100ms(long nanos) {
    return (nanos + 99_999_999L) / 100_000_000L * 100_000_000L;
  }

  /** Removes each VM it may, one at a time, keeping the removal while the run still fails. */
  private Plan vms(Plan p, List<String> removable) throws Exception {
    List<String> all = Plan.fileVms(p.file());
    if (all.isEmpty() || removable.isEmpty()) {
      steps.add("VMs: kept (" + (all.isEmpty() ? "the scenario places its VMs on hosts or a trace"
          : "none the scenario lets go") + ")");
      return p;
    }
    List<String> kept = new ArrayList<>(all);
    for (String vm : removable) {
      if (kept.size() <= 1 || !kept.contains(vm)) continue;
      List<String> fewer = new ArrayList<>(kept);
      fewer.remove(vm);
      if (fails(p.withVms(fewer))) {
        kept = fewer;
        p = p.withVms(fewer);
      }
    }
    steps.add("VMs: " + all.size() + " -> " + kept.size() + " " + kept);
    return kept.size() == all.size() ? p : p.withVms(kept);
  }

  /** The faults as the summary lists them: kind@time:target. */
  static String describe(List<FaultPlan.Fault> faults) {
    List<String> out = new ArrayList<>();
    for (FaultPlan.Fault f : faults) {
      out.add(String.format(Locale.ROOT, "%s@%.3fs:%s", f.kind().label(), f.atNanos() / 1e9, f.target()));
    }
    return out.toString();
  }

  /** The VMs a shrink may remove: the file's, but those the block keeps or a property names. */
  public static List<String> removableVms(Path file, ExploreBlock block) {
    List<String> out = new ArrayList<>();
    for (String vm : Plan.fileVms(file)) {
      if (block.keepVms().contains(vm)) continue;
      if (block.properties().stream().anyMatch(p -> vm.equals(p.vm()))) continue;
      out.add(vm);
    }
    return out;
  }

  /**
   * The tester every shrink uses: the plan's scenario text written to {@code work}, loaded as {@code run} loads a
   * file, run in fast forward and judged.
   */
  public static Tester tester(Path work, PolicyCatalog catalog, ExploreBlock block) {
    int[] n = {0};
    return plan -> {
      Path file = work.resolve(String.format("candidate-%03d.conf", ++n[0]));
      Files.createDirectories(work);
      Files.writeString(file, plan.text(List.of("a candidate of explore's shrinker")));
      Settings.Scenario scenario;
      try {
        scenario = ScenarioLoader.load(file, ScenarioLoader.Overrides.none(), catalog);
      } catch (ConfigProblems p) {
        return List.of(); // a candidate the scenario does not allow (e.g. a VM others need): not a failure
      }
      Path dir = work.resolve(String.format("candidate-%03d", n[0]));
      Explorer.Outcome o = Explorer.run(scenario, dir, block, false);
      Explorer.delete(dir);
      Files.deleteIfExists(file);
      return o.findings();
    };
  }
}
