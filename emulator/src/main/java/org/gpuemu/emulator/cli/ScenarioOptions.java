package org.gpuemu.emulator.cli;

import static org.gpuemu.emulator.cli.Main.durationNanos;
import static org.gpuemu.emulator.cli.Main.oneJvm;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.policies.spi.PolicyCatalog;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Options shared by run and validate. */
final class ScenarioOptions {
  @Parameters(index = "0", paramLabel = "SCENARIO.conf", description = "scenario file")
  Path file;

  @Option(names = "--scale", description = "time scale: emulated seconds per wall second (default: the file's)")
  Double scale;

  @Option(names = "--duration", description = "emulated run length, e.g. 5s (default: the file's)")
  String duration;

  @Option(names = "--seed", description = "seed of every generator (default: the file's)")
  Long seed;

  @Option(names = "--set", paramLabel = "PATH=VALUE", description = "override any scenario value, e.g. "
      + "--set scheduler.gpu.policy=round-robin (repeatable)")
  Map<String, String> sets = new LinkedHashMap<>();

  @Option(names = "--fault", paramLabel = "KIND@TIME[:TARGET[:DURATION]]", description = "inject a fault, e.g. "
      + "gpu-hang@2s:vm2 or vcpu-stall@1s:vm1:500ms (kinds: gpu-hang, vcpu-stall, vm-reboot, core-offline, "
      + "message-delay, message-duplicate, message-loss, emulator-stall, and the crashes vgpu-, vcpu-, vm-, agent-, "
      + "gpu-scheduler-, cpu-scheduler-, smgroup-, memory-, metrics-crash; "
      + "no target: the first VM; repeatable; docs/guides/faults-and-soak.md)")
  List<String> faults = new ArrayList<>();

  @Option(names = "--faults", paramLabel = "random", description = "also draw faults from the run's seed, "
      + "at --fault-rate")
  String faultsMode;

  @Option(names = "--fault-rate", paramLabel = "N/DURATION", description = "how often --faults random injects one "
      + "on average, e.g. 1/10s")
  String faultRate;

  @Option(names = "--plugins", paramLabel = "DIR", description = "load policy plugins from the jars in this folder "
      + "(docs/guides/writing-a-policy-plugin.md)")
  Path plugins;

  private PolicyCatalog policies;

  /** The built-in policies and any plugin's (loaded once). */
  PolicyCatalog policies() throws ConfigProblems {
    if (policies == null) policies = Plugins.catalog(plugins);
    return policies;
  }

  Settings.Scenario load() throws ConfigProblems {
    return ScenarioLoader.load(file, overrides(), policies());
  }

  /** The scenario for a run of one JVM: without a node-crash fault, which needs a cluster. */
  Settings.Scenario loadForOneJvm() throws ConfigProblems {
    return oneJvm(load());
  }

  /** The command line's overrides of the file. */
  ScenarioLoader.Overrides overrides() throws ConfigProblems {
    Long durationNanos = null;
    if (duration != null) {
      durationNanos = durationNanos("--duration", duration, "5s");
      if (durationNanos <= 0) throw ConfigProblems.of("--duration " + duration + ": expected a duration > 0");
    }
    if (scale != null && (!(scale > 0) || scale.isInfinite())) {
      throw ConfigProblems.of("--scale " + scale + ": expected a number > 0");
    }
    return new ScenarioLoader.Overrides(scale, durationNanos, seed, sets,
        new FaultPlan.Cli(faults, faultsMode, faultRate));
  }

  /** Picocli mixin holder so run and validate share the scenario options. */
  static final class Mixin {
    @CommandLine.ArgGroup(exclusive = false, multiplicity = "1")
    ScenarioOptions opts;
  }
}
