package org.gpuemu.emulator.cli;

import static org.gpuemu.emulator.cli.Main.BAD_INPUT;
import static org.gpuemu.emulator.cli.Main.OK;

import java.util.concurrent.Callable;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.Settings;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code validate}: loads a scenario as run would and reports every problem, without running it. */
@Command(name = "validate", mixinStandardHelpOptions = true, description = "Check a scenario without running it.")
public final class ValidateCommand implements Callable<Integer> {
  @CommandLine.Mixin ScenarioOptions.Mixin options;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override public Integer call() {
    try {
      Settings.Scenario s = options.opts.load();
      spec.commandLine().getOut().printf("%s: ok (%d VMs, gpu policy %s, cpu policy %s, %.1f s at scale %s)%n",
          s.file(), s.vms().size(), s.gpuPolicy().name(), s.cpuPolicy().name(), s.durationNanos() / 1e9,
          s.timeScale());
      return OK;
    } catch (ConfigProblems p) {
      p.problems().forEach(spec.commandLine().getErr()::println);
      return BAD_INPUT;
    }
  }
}
