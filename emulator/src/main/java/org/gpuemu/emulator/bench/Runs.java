package org.gpuemu.emulator.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.gpuemu.emulator.clock.TimerLateness;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.run.RunResult;
import org.gpuemu.emulator.run.Runner;

/**
 * Runs scenarios for the bench like the {@code run} command does (same runner, same summary), into
 * {@code <out>/runs/<name>/}, and adds what the bench needs beyond the summary: the steady-state timer lateness,
 * recorded after a warm-up so that JIT compilation and actor start-up do not dominate a short run's tail.
 */
final class Runs {
  private static final long LIVE_EVERY_MILLIS = 100;

  private final Path dir;

  Runs(Path dir) {
    this.dir = dir;
  }

  /** Writes the generated scenario under {@code scenarios/} and runs it. */
  Measured run(ScenarioText text, double warmUpSeconds, Runnable atWarmUp) throws Exception {
    return run(text.load(dir.resolve("scenarios")), text.name(), warmUpSeconds, atWarmUp);
  }

  /**
   * Runs a scenario.
   *
   * @param name the run's folder under {@code runs/}
   * @param warmUpSeconds emulated time after which the steady-state lateness window opens
   * @param atWarmUp called once when the window opens (on an actor thread; may block briefly), or null
   */
  Measured run(Settings.Scenario scenario, String name, double warmUpSeconds, Runnable atWarmUp) throws Exception {
    Path runDir = dir.resolve("runs").resolve(name);
    Files.createDirectories(runDir);
    long warmUpNanos = Math.round(warmUpSeconds * 1e9);
    AtomicReference<RunContext> context = new AtomicReference<>();
    AtomicReference<TimerLateness.Window> steady = new AtomicReference<>();
    RunResult result = Runner.run(scenario, runDir, Runner.Options.every(LIVE_EVERY_MILLIS,
        view -> openAfterWarmUp(view, warmUpNanos, context.get(), steady, atWarmUp)).withStarted(context::set));
    Summary summary = new Summary(result);
    summary.write(runDir.resolve("summary.json"));
    TimerLateness.Window window = steady.get();
    TimerLateness.Snapshot steadyLateness = window == null ? result.lateness() : window.snapshot();
    if (window != null) window.close();
    return new Measured(scenario, runDir, summary.document(), summary.faithful(), summary.brokenInvariants(),
        result.lateness(), steadyLateness, window != null, result.wallSeconds());
  }

  private static void openAfterWarmUp(MetricsHub.LiveView view, long warmUpNanos, RunContext context,
      AtomicReference<TimerLateness.Window> steady, Runnable atWarmUp) {
    if (context == null || view.emulatedNanos() < warmUpNanos || steady.get() != null) return;
    TimerLateness.Window window = context.lateness().window();
    if (!steady.compareAndSet(null, window)) {
      window.close(); // another view got there first
      return;
    }
    if (atWarmUp != null) atWarmUp.run();
  }

  /**
   * One bench run.
   *
   * @param dir the run's folder (summary.json, timeline.jsonl)
   * @param summary the run's {@code summary.json} document
   * @param faithful the run's own fidelity verdict (p99 against a tenth of its median kernel or frame)
   * @param broken invariants the run broke (reported, never fatal to the bench)
   * @param lateness timer lateness of the whole run
   * @param steady timer lateness after the warm-up (the whole run's when the run ended first)
   * @param warmedUp whether the warm-up ended before the run did
   * @param wallSeconds wall time of the run, start-up and drain included
   */
  record Measured(Settings.Scenario scenario, Path dir, Map<String, Object> summary, boolean faithful,
      List<String> broken, TimerLateness.Snapshot lateness, TimerLateness.Snapshot steady, boolean warmedUp,
      double wallSeconds) {

    /** A number of the summary by its path, e.g. {@code number("gpu", "utilization")}. */
    @SuppressWarnings("unchecked")
    double number(String... path) {
      Object node = summary;
      for (String key : path) {
        node = ((Map<String, Object>) node).get(key);
      }
      return ((Number) node).doubleValue();
    }

    /** The mean of a number over the run's VMs, e.g. {@code meanOverVms("fps")}. */
    @SuppressWarnings("unchecked")
    double meanOverVms(String key) {
      Map<String, Map<String, Object>> vms = (Map<String, Map<String, Object>>) summary.get("vms");
      return vms.values().stream().mapToDouble(v -> ((Number) v.get(key)).doubleValue()).average().orElse(0);
    }

    /**
     * Wall seconds the emulated time took (from time zero to the end, start-up excluded): the emulated length over
     * the run's real-time factor; at least the emulated length at the run's time scale.
     */
    double runningWallSeconds() {
      double paced = scenario.durationNanos() / 1e9 / scenario.timeScale();
      Object rtf = ((java.util.Map<?, ?>) summary.get("fidelity")).get("real_time_factor");
      double emulated = number("emulated_seconds");
      return rtf instanceof Number n && n.doubleValue() > 0 ? Math.max(paced, emulated / n.doubleValue()) : paced;
    }
  }
}
