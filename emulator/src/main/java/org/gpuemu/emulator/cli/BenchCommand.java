package org.gpuemu.emulator.cli;

import static org.gpuemu.emulator.cli.Main.BAD_INPUT;
import static org.gpuemu.emulator.cli.Main.BROKEN;
import static org.gpuemu.emulator.cli.Main.OK;
import static org.gpuemu.emulator.cli.Main.configureLogging;
import static org.gpuemu.emulator.cli.Main.createFolder;
import static org.gpuemu.emulator.cli.Main.timestamped;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.PatternSyntaxException;
import org.gpuemu.emulator.bench.Bench;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.ScenarioLoader;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Measure the emulator on this machine (timer lateness against Pekko's schedulers, request path "
        + "throughput, scale, fast forward, emulation overhead, hosts in parallel; on request, the runs' fidelity verdicts): a table "
        + "and bench.json. Figures are reported, never asserted.")
public final class BenchCommand implements Callable<Integer> {
  static final Path DEFAULT_REFERENCE = Paths.get("conf", "scenarios", "baseline", "default-contention.conf");
  static final Path SCENARIOS = Paths.get("conf", "scenarios");

  @Option(names = "--quick", description = "short runs, fewer points and trials (about 2 minutes on 2 cores; CI)")
  boolean quick;

  @Option(names = "--out", description = "output folder (default: out/bench-<timestamp>)")
  Path out;

  @Option(names = "--reference", paramLabel = "SCENARIO.conf",
      description = "fast forward's reference scenario (default: conf/scenarios/baseline/default-contention.conf,"
          + " from the project folder or, run elsewhere, the copy inside the jar)")
  Path reference;

  @Option(names = "--only", split = ",", paramLabel = "SECTION",
      description = "run only these sections: timers, path, scale, fast-forward, overhead, hosts, host-scale, "
          + "fidelity (default: all but host-scale, the scale search with 1, 2 and 4 hosts run apart: three times "
          + "the scale section's time; and fidelity, which runs every scenario under conf/scenarios at its own scale "
          + "and 5x slower and compares their figures: about 18 minutes, 10 with --quick)")
  List<String> only = new ArrayList<>();

  @Option(names = "--scenarios", paramLabel = "GLOB",
      description = "fidelity section only: the scenario files under conf/scenarios whose path there matches this "
          + "glob, with or without .conf, e.g. 'vmcg/*', 'combo/qos', '{combo,gballoon}/*', '**/*-3vms'")
  String scenarios;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    Set<Bench.Section> sections = EnumSet.noneOf(Bench.Section.class);
    for (String name : only) {
      try {
        sections.add(Bench.Section.byKey(name.trim()));
      } catch (IllegalArgumentException e) {
        err.println("--only " + name + ": " + e.getMessage());
        return BAD_INPUT;
      }
    }
    if (scenarios != null) {
      if (!sections.contains(Bench.Section.FIDELITY)) {
        err.println("--scenarios " + scenarios + ": only the fidelity section takes it; add --only fidelity");
        return BAD_INPUT;
      }
      try {
        if (Files.isDirectory(SCENARIOS) && Bench.fidelityScenarios(SCENARIOS, scenarios).isEmpty()) {
          err.println("--scenarios " + scenarios + ": no scenario file under " + SCENARIOS + " matches");
          return BAD_INPUT;
        }
      } catch (PatternSyntaxException e) {
        err.println("--scenarios " + scenarios + ": not a glob: " + e.getMessage());
        return BAD_INPUT;
      }
    }
    Path ref = reference;
    if (ref != null) {
      try {
        ScenarioLoader.load(ref, ScenarioLoader.Overrides.none());
      } catch (ConfigProblems p) {
        p.problems().forEach(err::println);
        return BAD_INPUT;
      }
    } else if (Files.isRegularFile(DEFAULT_REFERENCE)) {
      ref = DEFAULT_REFERENCE;
    }
    Path dir = out != null ? out : timestamped("bench-");
    if (!createFolder(dir, err)) return BAD_INPUT;
    if (ref == null) ref = Bench.packagedReference(dir);
    configureLogging(dir, false);
    Path folder = Files.isDirectory(SCENARIOS) ? SCENARIOS : null;
    boolean measured = Bench.run(new Bench.Options(quick, dir, ref, sections, folder, scenarios),
        spec.commandLine().getOut());
    return measured ? OK : BROKEN;
  }
}
