package org.gpuemu.emulator.dashboard;

import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.emulator.run.Control;
import org.gpuemu.emulator.run.RunResult;
import org.gpuemu.emulator.run.Runner;
import picocli.CommandLine.Option;

/**
 * {@code run}'s dashboard options (a picocli mixin) and the run with or without the dashboard: {@link #open} listens
 * before the run (so a bad or busy port is bad input before anything runs), {@link #run} runs the scenario feeding
 * the dashboard and stops it at the end, after {@code --dashboard-linger} of wall time serving the final state.
 */
public final class DashboardOptions {
  static final int DEFAULT_PORT = 8080;
  static final String LOOPBACK = "127.0.0.1";
  /** How often the runner hands the live view on (the progress line's period). */
  static final long LIVE_EVERY_MILLIS = 250;

  @Option(names = "--dashboard", description = "serve a live dashboard of the run over HTTP "
      + "(docs/guides/report-and-dashboard.md)")
  boolean enabled;

  /** Whether {@code --dashboard} was given. */
  public boolean enabled() {
    return enabled;
  }

  @Option(names = "--port", description = "the dashboard's port (default: " + DEFAULT_PORT + "; 0: any free port)")
  Integer port;

  @Option(names = "--bind", paramLabel = "ADDRESS",
      description = "the address the dashboard listens on (default: " + LOOPBACK + ", this machine only)")
  String bind;

  @Option(names = "--dashboard-linger", paramLabel = "WALL", description = "wall time the dashboard keeps serving "
      + "the final state after the run ends, before the summary is written (default: 0s, it stops at the end)")
  String linger;

  @Option(names = "--controls", paramLabel = "SUMMARY", description = "replay the controls a run recorded in its "
      + "summary.json (faults, weights, shares from the dashboard) at their model times "
      + "(docs/guides/report-and-dashboard.md)")
  Path controls;

  private LiveDashboard dashboard;
  private long lingerMillis;
  private List<Control.Planned> planned = List.of();

  /**
   * With {@code --dashboard}, starts listening and prints the address on {@code out}; bad input (one line) when a
   * dashboard option comes without {@code --dashboard}, the linger is not a duration, or the port cannot be had.
   */
  public void open(Settings.Scenario scenario, PrintWriter out) throws ConfigProblems {
    if (controls != null) planned = ControlReplay.read(controls, scenario);
    if (!enabled) {
      if (port != null || bind != null || linger != null) {
        throw ConfigProblems.of("--port, --bind and --dashboard-linger go with --dashboard");
      }
      return;
    }
    lingerMillis = lingerMillis(linger == null ? "0s" : linger);
    dashboard = LiveDashboard.start(bind == null ? LOOPBACK : bind, port == null ? DEFAULT_PORT : port, scenario);
    out.println("dashboard: " + dashboard.url() + (lingerMillis == 0 ? " (live while it runs; it stops at the end)"
        : " (live while it runs; it stops " + linger + " after the end)"));
    if (dashboard.token() != null) {
      // beyond loopback anyone on the network reaches the port: reading is open, steering needs the token
      out.println("dashboard: controls need the token " + dashboard.token() + " (open " + dashboard.url() + "#token="
          + dashboard.token() + ", or send 'Authorization: Bearer " + dashboard.token() + "')");
    }
    out.flush();
  }

  /**
   * A cluster run's dashboard, listening as {@link #open} does (nothing without {@code --dashboard}); bad input with
   * {@code --controls} (a replay runs in one JVM).
   */
  public void openForCluster(Settings.Scenario scenario, PrintWriter out) throws ConfigProblems {
    if (controls != null) throw ConfigProblems.of("--controls: a replay of recorded controls runs in one JVM, not "
        + "with --cluster or --cluster-port");
    open(scenario, out);
  }

  /** The open dashboard, null when there is none. */
  public LiveDashboard live() {
    return dashboard;
  }

  /**
   * A cluster run has ended ({@code document}: its merged summary.json): the page's end, the linger, the stop; a
   * run that failed ({@code document} null) just stops the dashboard.
   */
  public void endCluster(boolean faithful, String reason, List<String> broken, Object document, PrintWriter out)
      throws InterruptedException {
    if (dashboard == null) return;
    try (LiveDashboard live = dashboard) {
      if (document != null) {
        live.end(faithful, reason, broken, document);
        linger(live, "run", out);
      }
    } finally {
      dashboard = null;
      out.println("dashboard: stopped");
      out.flush();
    }
  }

  /** The dashboard's address; null when there is none. */
  public java.net.URI url() {
    return dashboard == null ? null : dashboard.url();
  }

  /**
   * Runs the scenario as {@link Runner#run(Settings.Scenario, Path, Consumer, long)} does for the progress line;
   * with a dashboard open, it also gets the timeline rows, the live views and the end, and is stopped before this
   * returns.
   */
  public RunResult run(Settings.Scenario scenario, Path dir, Consumer<MetricsHub.LiveView> progress,
      PrintWriter out) throws Exception {
    if (dashboard == null) {
      return Runner.run(scenario, dir, Runner.Options.every(LIVE_EVERY_MILLIS, progress)
          .withAttach(new Runner.Attach(session -> { }, record -> { }, planned)));
    }
    try (LiveDashboard live = dashboard) {
      RunResult result = attached(live, scenario, dir, progress);
      live.end(new Summary(result));
      linger(live, "run", out);
      return result;
    } finally {
      dashboard = null;
      out.println("dashboard: stopped");
      out.flush();
    }
  }

  /**
   * One of a compare's runs, {@code index} (from 0) of {@code count}, under policy {@code label}: as {@link #run},
   * but the dashboard stays up for the next one (the page starts its charts afresh for each and keeps a row of each
   * one's results); {@link #endCompare} ends it.
   */
  public RunResult runOf(String label, int index, int count, Settings.Scenario scenario, Path dir,
      Consumer<MetricsHub.LiveView> progress) throws Exception {
    if (dashboard == null) return run(scenario, dir, progress, null);
    dashboard.begin(label, index, count);
    RunResult result = attached(dashboard, scenario, dir, progress);
    dashboard.runEnded(label, new Summary(result));
    return result;
  }

  /** A compare has ended (or failed: {@code results} holds the runs that ended): the page's end, linger, stop. */
  public void endCompare(java.util.Map<String, Summary> results, PrintWriter out) throws InterruptedException {
    if (dashboard == null) return;
    try (LiveDashboard live = dashboard) {
      List<String> broken = new java.util.ArrayList<>();
      results.forEach((label, s) -> s.brokenInvariants().forEach(b -> broken.add(label + ": " + b)));
      live.endCompare(results.values().stream().allMatch(Summary::faithful), broken);
      linger(live, "compare", out);
    } finally {
      dashboard = null;
      out.println("dashboard: stopped");
      out.flush();
    }
  }

  private RunResult attached(LiveDashboard live, Settings.Scenario scenario, Path dir,
      Consumer<MetricsHub.LiveView> progress) throws Exception {
    Consumer<MetricsHub.LiveView> both = view -> {
      progress.accept(view);
      live.live(view);
    };
    return Runner.run(scenario, dir, Runner.Options.every(LIVE_EVERY_MILLIS, both).withTap(live.tap())
        .withAttach(new Runner.Attach(live::attach, live::controlled, planned)));
  }

  private void linger(LiveDashboard live, String what, PrintWriter out) throws InterruptedException {
    if (lingerMillis <= 0) return;
    out.println("dashboard: the " + what + " has ended; serving its final state at " + live.url() + " for " + linger);
    out.flush();
    Thread.sleep(lingerMillis);
  }

  private static long lingerMillis(String value) throws ConfigProblems {
    try {
      // a bare number would be read as milliseconds; like every duration option, it must name its unit
      if (!value.trim().matches(".*[a-zA-Z]")) throw new ConfigException.Generic("no unit");
      long millis = ConfigFactory.parseString("d = \"" + value.replace("\"", "") + "\"").getDuration("d").toMillis();
      if (millis < 0) throw new ConfigException.Generic("negative");
      return millis;
    } catch (ConfigException e) {
      throw ConfigProblems.of("--dashboard-linger " + value + ": expected a duration >= 0 with a unit, e.g. 30s");
    }
  }
}
