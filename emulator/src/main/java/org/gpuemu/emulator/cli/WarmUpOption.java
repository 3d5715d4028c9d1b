package org.gpuemu.emulator.cli;

import static org.gpuemu.emulator.cli.Main.durationNanos;

import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.run.Runner;
import picocli.CommandLine.Option;

/** The JIT warm-up before a measured run ({@link Runner#warmUp}); run and compare share it. */
final class WarmUpOption {
  @Option(names = "--warm-up", paramLabel = "WALL", defaultValue = "1s", description = "wall time a throw-away "
      + "run of the same scenario warms the JVM up for before the measured run (default: ${DEFAULT-VALUE}; 0s: none)")
  String warmUp;

  /** Runs the warm-up; bad input when the option is not a duration >= 0. */
  void warmUp(Settings.Scenario scenario) throws Exception {
    long nanos = nanos();
    if (nanos > 0) Runner.warmUp(scenario, nanos);
  }

  long nanos() throws ConfigProblems {
    long nanos = durationNanos("--warm-up", warmUp, "1s");
    if (nanos < 0) throw ConfigProblems.of("--warm-up " + warmUp + ": expected a duration >= 0");
    return nanos;
  }
}
