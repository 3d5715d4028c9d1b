package org.gpuemu.emulator.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.soak.Soak;
import org.gpuemu.emulator.soak.SoakSample;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code soak SCENARIO}: one long run, sampled every check period, ending with {@code ok} or what leaked, stalled or
 * got lost (docs/guides/faults-and-soak.md). Exit 0 ok, 1 not ok, 2 bad input.
 */
@Command(name = "soak", mixinStandardHelpOptions = true, description = "Run a scenario for a long emulated time, "
    + "sample heap, threads and requests every check period, and judge whether anything leaked, stalled or got lost "
    + "(soak.json). Unlike run, --duration defaults to 1h.")
final class SoakCommand implements Callable<Integer> {
  @CommandLine.Mixin ScenarioOptions.Mixin options;

  @Option(names = "--check-every", paramLabel = "DURATION", defaultValue = "60s",
      description = "emulated time between samples (default: ${DEFAULT-VALUE})")
  String checkEvery;

  @Option(names = "--out", description = "output folder (default: out/soak-<scenario>-<timestamp>)")
  Path out;

  @CommandLine.Mixin WarmUpOption warmUp;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    PrintWriter stdout = spec.commandLine().getOut();
    Settings.Scenario scenario;
    long every;
    try {
      if (options.opts.duration == null) options.opts.duration = "1h";
      scenario = options.opts.loadForOneJvm();
      every = Main.durationNanos("--check-every", checkEvery, "60s");
      if (every <= 0) throw ConfigProblems.of("--check-every " + checkEvery + ": expected a duration > 0");
      warmUp.nanos();
    } catch (ConfigProblems p) {
      p.problems().forEach(err::println);
      return Main.BAD_INPUT;
    }
    Path dir = out != null ? out : Main.timestamped("soak-" + scenario.name() + "-");
    if (!Main.createFolder(dir, err)) return Main.BAD_INPUT;
    Main.configureLogging(dir, false);
    stdout.printf(Locale.ROOT, "soaking %s: %d VMs, policy %s, %.0f emulated s at time scale %s (about %.0f wall s), "
        + "a sample every %.1f emulated s -> %s%n", scenario.name(), scenario.vms().size(),
        scenario.gpuPolicy().name(), scenario.durationNanos() / 1e9, scenario.timeScale(),
        scenario.durationNanos() / 1e9 / scenario.timeScale(), every / 1e9, dir);
    stdout.flush();
    warmUp.warmUp(scenario);
    Soak.Result result;
    try (ProgressLine progress = new ProgressLine(scenario, stdout, true)) {
      result = Soak.run(scenario, every, dir, progress::update);
    }
    SoakSample last = result.samples().get(result.samples().size() - 1);
    stdout.printf(Locale.ROOT, "%d samples over %.1f emulated s in %.1f wall s; at the end: heap after GC %.1f MiB, "
        + "%d threads, requests %d = %d completed + %d failed + %d open; %s%n", result.samples().size(), last.tS(),
        result.wallSeconds(), last.heapAfterGcBytes() / 1048576.0, last.threads(), last.submitted(), last.completed(),
        last.failed(), last.open(), last.fidelity());
    stdout.println("wrote " + dir.resolve("soak.json") + ", " + dir.resolve("summary.json") + " and "
        + dir.resolve("timeline.jsonl"));
    stdout.println("soak verdict: " + result.verdict());
    return result.verdict().ok() ? Main.OK : Main.BROKEN;
  }
}
