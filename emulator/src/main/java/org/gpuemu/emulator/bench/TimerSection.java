package org.gpuemu.emulator.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.gpuemu.emulator.clock.OsFloor;
import org.gpuemu.emulator.clock.TimerLateness;
import org.gpuemu.emulator.clock.TimerProbe;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.run.Runner;

/**
 * Timer lateness, due to actor receipt, of the emulator's timer path ({@code HighResScheduler}) against Pekko's
 * default scheduler and its 1 ms tick, in the same JVM and the same run, with {@link TimerProbe}: 1,000 and 10,000
 * concurrent timers of 0.1-10 ms, first on an idle machine, then while an 8-VM scenario runs in the same JVM (its
 * own actor system, on the emulator's timer path). The probe's schedulers are measured in their own actor system,
 * so under load there are two timer threads; the load scenario's own timers are reported too.
 */
final class TimerSection {
  static final long MIN_DELAY_NANOS = TimeUnit.MICROSECONDS.toNanos(100);
  static final long MAX_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  private static final long SEED = 42;

  private TimerSection() {}

  /**
   * One scheduler's lateness in one condition: the median of its trials, column by column, µs.
   *
   * @param scheduler the mechanism's name
   * @param timers timers that fired (per trial)
   */
  record Row(String scheduler, long timers, long p50, long p99, long p999, long max) {
    static Row of(String scheduler, TimerProbe.Result r) {
      return new Row(scheduler, r.count(), r.p50(), r.p99(), r.p999(), r.max());
    }
  }

  /**
   * How many times later than the emulator's path the other mechanisms fire (the headline), from the medians.
   *
   * @param defaultP50 Pekko default p50 / emulator p50
   * @param defaultP99 Pekko default p99 / emulator p99
   * @param tickP50 1 ms tick p50 / emulator p50
   * @param tickP99 1 ms tick p99 / emulator p99
   */
  record Ratios(double defaultP50, double defaultP99, double tickP50, double tickP99) {
    /** Ratios of the rows in {@link TimerProbe#schedulers()} order: default, 1 ms tick, emulator. */
    static Ratios of(List<Row> rows) {
      Row def = rows.get(0);
      Row tick = rows.get(1);
      Row emu = rows.get(2);
      return new Ratios(ratio(def.p50(), emu.p50()), ratio(def.p99(), emu.p99()), ratio(tick.p50(), emu.p50()),
          ratio(tick.p99(), emu.p99()));
    }

    // The histogram's resolution is 1 µs: a 0 µs figure counts as 1 so that ratios stay finite.
    static double ratio(long other, long emulator) {
      return (double) other / Math.max(1, emulator);
    }
  }

  /**
   * One condition: a timer count, idle or loaded, every scheduler.
   *
   * @param load "idle" or "loaded"
   * @param rounds successive timers per probe actor
   */
  record Condition(int timers, int rounds, String load, List<Row> rows, Ratios ratios) {}

  /**
   * The section's figures.
   *
   * @param minDelayMicros shortest timer delay
   * @param maxDelayMicros longest timer delay
   * @param loadScenario what ran as load
 * @param floors the operating system's floor, idle and loaded
   * @param loadLateness the load scenario's own timers while the probes ran (the emulator's path, under its own
   *     load), or null when the load failed
   * @param loadError why the load could not run, or null
   */
  record Report(long minDelayMicros, long maxDelayMicros, int trials, int warmUps, String loadScenario,
      List<Condition> conditions, List<Floor> floors, TimerLateness.Snapshot loadLateness, String loadError) {}

  /**
   * The operating system's floor in one condition ({@link OsFloor}), µs: what a parked thread's timed wake-up
   * ({@code parkNanos} of 0.1-1 ms) and a wake-up by another thread ({@code unpark}) cost, without any actor.
   *
   * @param load "idle" or "loaded"
   */
  record Floor(String load, Row park, Row wakeUp) {}

  static Report run(BenchPlan plan, Path dir, Consumer<String> progress) throws Exception {
    List<Condition> conditions = new ArrayList<>();
    List<Floor> floors = new ArrayList<>();
    floors.add(floor(plan, "idle", progress));
    boolean first = true;
    for (int timers : plan.timerCounts()) {
      conditions.add(measure(plan, timers, "idle", first ? plan.timerWarmUps() : 0, progress));
      first = false;
    }
    ScenarioText load = loadScenario();
    Settings.Scenario scenario = load.load(dir.resolve("scenarios"));
    Path runDir = dir.resolve("runs").resolve(load.name());
    Files.createDirectories(runDir);
    CompletableFuture<Void> stop = new CompletableFuture<>();
    CompletableFuture<Void> loadDone = new CompletableFuture<>();
    AtomicReference<RunContext> context = new AtomicReference<>();
    Thread loader = new Thread(() -> {
      try {
        Runner.runAsLoad(scenario, runDir, context::set, stop);
        loadDone.complete(null);
      } catch (Exception | Error e) {
        loadDone.completeExceptionally(e);
      }
    }, "bench-load");
    loader.setDaemon(true);
    progress.accept(String.format(Locale.ROOT, "timers: starting the load (%d VMs, %s) and letting it warm up %.1f s",
        scenario.vms().size(), load.name(), plan.loadWarmUpWallSeconds()));
    loader.start();
    TimerLateness.Snapshot loadLateness = null;
    String loadError = null;
    try {
      Thread.sleep(Math.round(plan.loadWarmUpWallSeconds() * 1_000));
      if (loadDone.isDone() || context.get() == null) {
        loadError = "the load scenario ended before the probes started";
        try {
          loadDone.get();
        } catch (java.util.concurrent.ExecutionException e) {
          loadError = "the load scenario failed: " + e.getCause();
        }
      } else {
        try (TimerLateness.Window window = context.get().lateness().window()) {
          floors.add(floor(plan, "loaded", progress));
          for (int timers : plan.timerCounts()) {
            conditions.add(measure(plan, timers, "loaded", 0, progress));
          }
          loadLateness = window.snapshot();
        }
      }
    } finally {
      stop.complete(null);
      try {
        loadDone.get(60, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException e) {
        if (loadError == null) loadError = "the load scenario failed: " + e.getCause();
      }
    }
    return new Report(MIN_DELAY_NANOS / 1_000, MAX_DELAY_NANOS / 1_000, plan.timerTrials(), plan.timerWarmUps(),
        load.name() + " (" + scenario.vms().size() + " VMs)", conditions, floors, loadLateness, loadError);
  }

  private static Floor floor(BenchPlan plan, String load, Consumer<String> progress) throws InterruptedException {
    long min = TimeUnit.MICROSECONDS.toNanos(100);
    long max = TimeUnit.MILLISECONDS.toNanos(1);
    Row park = Row.of("OS floor: parkNanos", OsFloor.parkOvershoot(plan.floorSamples(), min, max, SEED));
    Row wake = Row.of("OS floor: unpark to running", OsFloor.wakeUp(plan.floorSamples(), min, max, SEED));
    for (Row r : List.of(park, wake)) {
      progress.accept(String.format(Locale.ROOT, "timers: %s, %-28s p50 %,9d  p99 %,9d  max %,9d us", load,
          r.scheduler(), r.p50(), r.p99(), r.max()));
    }
    return new Floor(load, park, wake);
  }

  private static Condition measure(BenchPlan plan, int timers, String load, int warmUps, Consumer<String> progress) {
    int rounds = plan.timerRounds(timers);
    TimerProbe.Setup setup = new TimerProbe.Setup(timers, MIN_DELAY_NANOS, MAX_DELAY_NANOS, rounds);
    List<TimerProbe.Variant> variants = TimerProbe.schedulers();
    if (warmUps > 0) {
      progress.accept(String.format(Locale.ROOT, "timers: %d warm-up round(s) of every scheduler", warmUps));
    }
    List<List<TimerProbe.Result>> results = TimerProbe.interleaved(variants, setup, warmUps, plan.timerTrials(),
        SEED, (variant, r) -> progress.accept(String.format(Locale.ROOT,
            "timers: %,d %s, %-28s p50 %,9d  p99 %,9d  max %,9d us", timers, load, variant.name(), r.p50(), r.p99(),
            r.max())));
    List<Row> rows = new ArrayList<>();
    for (int v = 0; v < variants.size(); v++) {
      rows.add(Row.of(variants.get(v).name(), TimerProbe.Result.median(results.get(v))));
    }
    return new Condition(timers, rounds, load, rows, Ratios.of(rows));
  }

  /**
   * The load: eight VMs of the catalog's games and DirectX samples under FCFS on the default 4-core host, so that
   * the GPU, the CPU scheduler and every actor kind are busy as in a real contention scenario.
   */
  static ScenarioText loadScenario() {
    ScenarioText text = new ScenarioText("timer-load-8vm",
        "8 VMs (vgris games and DirectX samples) under FCFS: the load of the timer lateness section")
        .durationSeconds(3_600).set("scheduler.gpu.policy", "fcfs");
    for (String w : List.of("dirt3", "portal2", "shogun2", "cod7", "nba2012", "3dmark05-gt2", "postprocess",
        "shadowvolume")) {
      text.vm(w.replace('-', '_'), "workload = " + w);
    }
    return text;
  }
}
