package org.gpuemu.emulator.cli;

import static org.gpuemu.emulator.cli.Main.BAD_INPUT;
import static org.gpuemu.emulator.cli.Main.BROKEN;
import static org.gpuemu.emulator.cli.Main.OK;
import static org.gpuemu.emulator.cli.Main.configureLogging;
import static org.gpuemu.emulator.cli.Main.createFolder;
import static org.gpuemu.emulator.cli.Main.oneJvm;
import static org.gpuemu.emulator.cli.Main.timestamped;
import static org.gpuemu.emulator.cli.Main.unfaithfulWarning;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.dashboard.DashboardOptions;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.emulator.run.RunResult;
import org.gpuemu.emulator.run.Runner;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code run}: one scenario in this JVM, or over a cluster's nodes ({@link ClusterCli}), and its reports. */
@Command(name = "run", mixinStandardHelpOptions = true, description = "Run a scenario and write its reports.")
public final class RunCommand implements Callable<Integer> {
  @CommandLine.Mixin ScenarioOptions.Mixin options;

  @Option(names = "--out", description = "output folder (default: out/<scenario>-<timestamp>)")
  Path out;

  @Option(names = "--verbose", description = "log actor events on the console")
  boolean verbose;

  @CommandLine.Mixin WarmUpOption warmUp;

  @Option(names = "--no-report", description = "do not write report.html")
  boolean noReport;

  @CommandLine.Mixin DashboardOptions dashboard;

  @CommandLine.Mixin ClusterCli.Options clusterOptions;

  @CommandLine.Mixin TlsOptions tls;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    PrintWriter stdout = spec.commandLine().getOut();
    Settings.Scenario scenario;
    try {
      scenario = options.opts.load();
      ClusterCli.Plan plan = clusterOptions.plan(tls, options.opts.plugins, options.opts.policies());
      if (plan != null) {
        dashboard.openForCluster(scenario, stdout);
        Path dir = out != null ? out : timestamped(scenario.name() + "-");
        if (!createFolder(dir, err)) return BAD_INPUT;
        configureLogging(dir, verbose);
        return ClusterCli.run(scenario, ClusterCli.source(options.opts.file, options.opts.overrides()), plan,
            new ClusterCli.Output(dir, noReport, dashboard, stdout, err));
      }
      oneJvm(scenario);
      warmUp.nanos();
      if (dashboard.enabled() && scenario.fidelity().hostThreads() > 0) {
        // a control from outside applies just after the model's present, which hosts running apart do not share
        throw ConfigProblems.of("--dashboard: no live dashboard with fidelity.host-threads = "
            + scenario.fidelity().hostThreads() + " yet (set it to 0)");
      }
      dashboard.open(scenario, stdout);
    } catch (ConfigProblems p) {
      p.problems().forEach(err::println);
      return BAD_INPUT;
    }
    Path dir = out != null ? out : timestamped(scenario.name() + "-");
    if (!createFolder(dir, err)) return BAD_INPUT;
    configureLogging(dir, verbose);
    stdout.printf("running %s: %d VMs, policy %s, %.1f emulated s at time scale %s -> %s%n", scenario.name(),
        scenario.vms().size(), scenario.gpuPolicy().name(), scenario.durationNanos() / 1e9, scenario.timeScale(), dir);
    String unplaced = placementNote(scenario);
    if (unplaced != null) err.println(unplaced);
    stdout.flush();
    warmUp.warmUp(scenario);
    RunResult result;
    try (ProgressLine progress = new ProgressLine(scenario, stdout)) {
      result = dashboard.run(scenario, dir, progress::update, stdout);
    } catch (Runner.Stuck stuck) {
      err.println("error: " + stuck.getMessage());
      return BROKEN;
    }
    Summary summary = new Summary(result);
    summary.write(dir.resolve("summary.json"));
    stdout.println(summary.table());
    if (!summary.faithful()) {
      err.println(unfaithfulWarning(summary.reason(),
          "conservative".equals(summary.doc().fidelity().causality().order())));
    }
    stdout.println("wrote " + dir.resolve("summary.json") + " and " + dir.resolve("timeline.jsonl"));
    ReportCommand.afterRun(dir, noReport, stdout, err);
    return summary.brokenInvariants().isEmpty() ? OK : BROKEN;
  }

  /**
   * The VMs placement turned away (they do not run), said before the run rather than only in summary.json: a run
   * of fewer VMs than its file names, with no word why, looks like a run of all of them. Null when every VM runs.
   */
  static String placementNote(Settings.Scenario scenario) {
    List<Settings.Rejection> rejected = scenario.rejected();
    if (rejected.isEmpty()) return null;
    Settings.Rejection first = rejected.get(0);
    return String.format(Locale.ROOT, "warning: %d of %d VMs fit no host and do not run (first: %s at %.3f s: %s);"
        + " summary.json's placement.rejected lists them all", rejected.size(),
        rejected.size() + scenario.vms().size(), first.vm(), first.atNanos() / 1e9, first.reason());
  }
}
