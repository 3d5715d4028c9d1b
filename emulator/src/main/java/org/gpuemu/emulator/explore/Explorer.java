package org.gpuemu.emulator.explore;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.ExploreBlock;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.emulator.run.RunResult;
import org.gpuemu.emulator.run.Runner;
import org.gpuemu.policies.spi.PolicyCatalog;

/**
 * {@code explore}: many short runs of one scenario in fast forward, each with its own seed (the workloads' noise and
 * the random faults), optionally under several tie orders per seed, each judged by {@link Judge}; several runs at a
 * time in one JVM ({@code jobs}), each in its own actor system. Under the conservative order a run's figures depend
 * on its seed, faults, duration and tie order alone, not on the time scale or on what else the machine does, so a
 * failing run is replayed exactly from its {@link Plan} (docs/guides/explore.md).
 */
public final class Explorer {
  /** The time scale of every run: as fast as the machine goes (every timer is due before the model reaches it). */
  public static final double FAST_FORWARD = 1000;

  /**
   * What to explore.
   *
   * @param faultRate {@code N/DURATION} of the random faults, null for none (the file's own faults only)
   * @param orders tie orders per seed: the default one, then {@code orders - 1} drawn from the seed
   * @param stopOnFailure stop starting runs once one failed
   */
  public record Options(Path file, PolicyCatalog catalog, int runs, long durationNanos, String faultRate, int jobs,
      long baseSeed, int orders, Path out, boolean stopOnFailure) {}

  /**
   * One run: its place, seed, tie order, the faults it injected, what it broke, its wall time, its figures (kept
   * only when several tie orders are compared) and its plan (to shrink or replay it).
   */
  public record RunRecord(int index, long seed, long orderSeed, int faults, List<Judge.Finding> findings,
      double wallSeconds, Map<String, Object> figures, Plan plan) {
    public boolean failed() {
      return !findings.isEmpty();
    }

    /** The kinds of what it broke, in order, each once. */
    public Set<String> kinds() {
      Set<String> kinds = new LinkedHashSet<>();
      findings.forEach(f -> kinds.add(f.kind()));
      return kinds;
    }
  }

  /** A seed whose runs under different tie orders did not agree: on what it broke, or only on its figures. */
  public record OrderDependence(long seed, boolean verdictChanged, String difference) {}

  /** Everything explored: the runs in order, the seeds whose outcome hung on the tie order, the wall time. */
  public record Result(List<RunRecord> runs, List<OrderDependence> orderDependent, double wallSeconds) {
    public long failed() {
      return runs.stream().filter(RunRecord::failed).count();
    }

    public RunRecord firstFailure() {
      return runs.stream().filter(RunRecord::failed).findFirst().orElse(null);
    }
  }

  /** Hears each run as it ends (on the run's worker thread, one at a time). */
  public interface Listener {
    void ended(RunRecord run, int done, int failed);
  }

  private Explorer() {}

  /** The seed and tie order of run {@code index}: seeds count up from the base, {@code orders} runs per seed. */
  static long seedOf(Options o, int index) {
    return o.baseSeed() + index / o.orders();
  }

  /** The {@code k}-th tie order of {@code seed}: 0 (the default) for the first, then a nonzero draw. */
  static long orderSeedOf(long seed, int k) {
    if (k == 0) return 0;
    long z = new java.util.SplittableRandom(seed * 31 + k).nextLong();
    return z == 0 ? 1 : z;
  }

  /** Runs {@code o.runs()} runs, {@code o.jobs()} at a time; problems of the scenario are bad input. */
  public static Result explore(Options o, ExploreBlock block, Listener listener) throws Exception {
    load(o, 0); // the first run's scenario: bad input before anything runs
    long start = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(o.jobs(), r -> {
      Thread t = new Thread(r, "explore-run");
      t.setDaemon(true);
      return t;
    });
    AtomicInteger done = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    AtomicBoolean stop = new AtomicBoolean();
    List<Future<RunRecord>> futures = new ArrayList<>();
    try {
      for (int i = 0; i < o.runs(); i++) {
        int index = i;
        futures.add(pool.submit(() -> {
          if (stop.get()) return null;
          RunRecord r = runOne(o, block, index);
          if (r.failed() && o.stopOnFailure()) stop.set(true);
          synchronized (listener) {
            int f = r.failed() ? failed.incrementAndGet() : failed.get();
            listener.ended(r, done.incrementAndGet(), f);
          }
          return r;
        }));
      }
      List<RunRecord> runs = new ArrayList<>();
      for (Future<RunRecord> f : futures) {
        RunRecord r = f.get();
        if (r != null) runs.add(r);
      }
      if (o.stopOnFailure()) runs = cutAtFirstFailure(runs);
      return new Result(runs, orderDependence(runs, o.orders()), (System.nanoTime() - start) / 1e9);
    } finally {
      pool.shutdownNow();
    }
  }

  /** With stop-on-failure, the runs up to the first failure in index order (later ones may have ended first). */
  private static List<RunRecord> cutAtFirstFailure(List<RunRecord> runs) {
    List<RunRecord> kept = new ArrayList<>();
    for (RunRecord r : runs) {
      kept.add(r);
      if (r.failed()) break;
    }
    return kept;
  }

  /** The scenario of run {@code index}: the file in fast forward at the run's seed, duration, tie order and faults. */
  static Settings.Scenario load(Options o, int index) throws ConfigProblems {
    long seed = seedOf(o, index);
    Map<String, String> sets = new LinkedHashMap<>();
    sets.put("fidelity.order-seed", Long.toString(orderSeedOf(seed, index % o.orders())));
    FaultPlan.Cli faults = o.faultRate() == null ? FaultPlan.Cli.NONE
        : new FaultPlan.Cli(List.of(), "random", o.faultRate());
    return ScenarioLoader.load(o.file(), new ScenarioLoader.Overrides(FAST_FORWARD, o.durationNanos(), seed, sets,
        faults), o.catalog());
  }

  private static RunRecord runOne(Options o, ExploreBlock block, int index) throws Exception {
    Settings.Scenario scenario = load(o, index);
    Path dir = o.out().resolve("runs").resolve(String.format("%06d", index));
    Outcome outcome = run(scenario, dir, block, o.orders() > 1);
    Plan plan = new Plan(o.file(), scenario.seed(), scenario.durationNanos(), scenario.fidelity().orderSeed(),
        scenario.faults().faults(), null);
    if (outcome.findings().isEmpty()) delete(dir);
    return new RunRecord(index, scenario.seed(), scenario.fidelity().orderSeed(), scenario.faults().faults().size(),
        outcome.findings(), outcome.wallSeconds(), outcome.figures(), plan);
  }

  /** What one run broke, its wall time and (when asked for) its figures. */
  public record Outcome(List<Judge.Finding> findings, double wallSeconds, Map<String, Object> figures, Summary summary) {}

  /** Runs {@code scenario} into {@code dir} (summary.json and timeline.jsonl) and judges it. */
  public static Outcome run(Settings.Scenario scenario, Path dir, ExploreBlock block, boolean keepFigures) throws Exception {
    Files.createDirectories(dir);
    long start = System.nanoTime();
    List<Judge.Finding> findings;
    Summary summary = null;
    try {
      RunResult result = Runner.run(scenario, dir, Runner.Options.every(1000));
      summary = new Summary(result);
      summary.write(dir.resolve("summary.json"));
      findings = Judge.judge(scenario, summary, dir.resolve("timeline.jsonl"), block);
    } catch (Runner.Stuck stuck) {
      findings = List.of(new Judge.Finding("causal order", "the run's order stopped moving: " + stuck.getMessage()));
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) { // an actor the run asks at its end had stopped: a finding of this run, not of the sweep
      Throwable root = e;
      while (root.getCause() != null) root = root.getCause();
      findings = List.of(new Judge.Finding("run ends", "the run failed: " + root));
    }
    return new Outcome(findings, (System.nanoTime() - start) / 1e9,
        keepFigures && summary != null ? Judge.figures(summary) : null, summary);
  }

  /** The seeds whose runs under different tie orders disagreed: on their findings' kinds, or on their figures. */
  static List<OrderDependence> orderDependence(List<RunRecord> runs, int orders) {
    List<OrderDependence> found = new ArrayList<>();
    if (orders < 2) return found;
    Map<Long, List<RunRecord>> bySeed = new LinkedHashMap<>();
    for (RunRecord r : runs) bySeed.computeIfAbsent(r.seed(), s -> new ArrayList<>()).add(r);
    for (Map.Entry<Long, List<RunRecord>> e : bySeed.entrySet()) {
      List<RunRecord> group = e.getValue();
      RunRecord first = group.get(0);
      for (RunRecord other : group.subList(1, group.size())) {
        if (!first.kinds().equals(other.kinds())) {
          found.add(new OrderDependence(e.getKey(), true, "tie order " + first.orderSeed() + " broke "
              + first.kinds() + ", tie order " + other.orderSeed() + " broke " + other.kinds()));
          break;
        }
        String diff = difference("", first.figures(), other.figures());
        if (diff != null) {
          found.add(new OrderDependence(e.getKey(), false, "tie orders " + first.orderSeed() + " and "
              + other.orderSeed() + ": " + diff));
          break;
        }
      }
    }
    return found;
  }

  /** The first path where two summaries' figures differ, with both values; null when they are the same. */
  @SuppressWarnings("unchecked")
  static String difference(String path, Object a, Object b) {
    if (a instanceof Map<?, ?> ma && b instanceof Map<?, ?> mb) {
      for (Object key : ma.keySet()) {
        String d = difference(path.isEmpty() ? key.toString() : path + "." + key, ma.get(key), mb.get(key));
        if (d != null) return d;
      }
      return ma.keySet().equals(mb.keySet()) ? null : path + ": keys " + ma.keySet() + " vs " + mb.keySet();
    }
    if (a instanceof List<?> la && b instanceof List<?> lb) {
      for (int i = 0; i < Math.min(la.size(), lb.size()); i++) {
        String d = difference(path + "." + i, la.get(i), lb.get(i));
        if (d != null) return d;
      }
      return la.size() == lb.size() ? null : path + ": " + la.size() + " vs " + lb.size() + " entries";
    }
    return Objects.equals(a, b) ? null : path + " = " + a + " vs " + b;
  }

  static void delete(Path dir) throws IOException {
    if (!Files.exists(dir)) return;
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
    }
  }
}
