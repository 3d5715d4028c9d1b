package org.gpuemu.emulator.cli;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.FileAppender;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Stream;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.gpuemu.emulator.bench.Bench;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.dashboard.DashboardOptions;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.emulator.run.RunResult;
import org.gpuemu.emulator.run.Runner;
import org.gpuemu.policies.spi.Param;
import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyInput;
import org.gpuemu.policies.spi.PolicyKind;
import org.gpuemu.policies.spi.PolicySpec;
import org.gpuemu.workloads.Workload;
import org.gpuemu.workloads.WorkloadCatalog;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The command line: {@code run}, {@code validate}, {@code list}, {@code compare}, {@code bench}, {@code report}, {@code soak}. Exit 0 ok, 1 an
 * invariant broke (or, for bench, a section could not be measured), 2 bad input.
 */
@Command(name = "emulator", mixinStandardHelpOptions = true, version = "gpuemu 0.1.0",
    description = "Actor-based emulator of GPU sharing between virtual machines.",
    subcommands = {Main.Run.class, Main.Validate.class, Main.ListCommand.class, Compare.class,
        Main.BenchCommand.class, ReportCommand.class, Reproduce.class, SoakCommand.class, ExploreCommand.class,
        NodeCommand.class, DocsCommand.class})
public final class Main implements Callable<Integer> {
  static final int OK = 0;
  static final int BROKEN = 1;
  static final int BAD_INPUT = 2;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /** Runs the command line and returns the exit status (tests call this). */
  public static int execute(String... args) {
    // initialise logging before Pekko logs from its own threads, or SLF4J replays those calls with a warning
    LoggerFactory.getILoggerFactory();
    CommandLine cli = new CommandLine(new Main());
    cli.setParameterExceptionHandler((ex, a) -> {
      ex.getCommandLine().getErr().println("error: " + ex.getMessage() + " (try --help)");
      return BAD_INPUT;
    });
    cli.setExecutionExceptionHandler((ex, line, parsed) -> {
      line.getErr().println("internal error: " + ex + " (the run's emulator.log has details)");
      LoggerFactory.getLogger(Main.class).error("internal error", ex);
      return BROKEN;
    });
    return cli.execute(args);
  }

  @Override public Integer call() {
    spec.commandLine().usage(spec.commandLine().getOut());
    return BAD_INPUT;
  }

  /** Options shared by run and validate. */
  static final class ScenarioOptions {
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
  }

  @Command(name = "run", mixinStandardHelpOptions = true, description = "Run a scenario and write its reports.")
  static final class Run implements Callable<Integer> {
    @CommandLine.Mixin ScenarioOptionsMixin options;

    @Option(names = "--out", description = "output folder (default: out/<scenario>-<timestamp>)")
    Path out;

    @Option(names = "--verbose", description = "log actor events on the console")
    boolean verbose;

    @CommandLine.Mixin WarmUpOption warmUp;

    @Option(names = "--no-report", description = "do not write report.html")
    boolean noReport;

    @CommandLine.Mixin DashboardOptions dashboard;

    @Option(names = "--cluster", paramLabel = "N", description = "run on N nodes of this machine: this JVM and N - 1 "
        + "more on loopback (docs/guides/cluster.md)")
    Integer cluster;

    @Option(names = "--cluster-port", paramLabel = "P", description = "run on nodes started elsewhere: listen as the "
        + "seed on port P of --cluster-host and wait for --nodes N - 1 nodes (docs/guides/many-machines.md)")
    Integer clusterPort;

    @Option(names = "--nodes", paramLabel = "N", description = "with --cluster-port: the run's nodes, this one included")
    Integer nodes;

    @Option(names = "--cluster-host", paramLabel = "ADDRESS", description = "with --cluster-port: the address the "
        + "other nodes reach this one at (default: 127.0.0.1; beyond loopback TLS is required)")
    String clusterHost;

    @Option(names = "--join-timeout", paramLabel = "WALL", description = "with --cluster-port: how long to wait for "
        + "the nodes to join (default: 120s)")
    String joinTimeout;

    @Option(names = "--heartbeat-pause", paramLabel = "DURATION", description = "cluster runs: heartbeats missed "
        + "this long make a node unreachable (default: 3s; give every node the same)")
    String heartbeatPause;

    @Option(names = "--stable-after", paramLabel = "DURATION", description = "cluster runs: an unreachable node is "
        + "downed once membership was stable this long (default: 7s; give every node the same)")
    String stableAfter;

    @CommandLine.Mixin TlsOptions tls;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override public Integer call() throws Exception {
      PrintWriter err = spec.commandLine().getErr();
      PrintWriter stdout = spec.commandLine().getOut();
      Settings.Scenario scenario;
      try {
        scenario = options.opts.load();
        ClusterCli.Plan plan = ClusterCli.plan(cluster, clusterPort, nodes, clusterHost, joinTimeout, tls,
            options.opts.plugins, options.opts.policies(), heartbeatPause, stableAfter);
        if (plan != null) {
          dashboard.openForCluster(scenario, stdout);
          Path dir = out != null ? out : timestamped(scenario.name() + "-");
          if (!createFolder(dir, err)) return BAD_INPUT;
          configureLogging(dir, verbose);
          return ClusterCli.run(scenario, ClusterCli.source(options.opts.file, options.opts.overrides()), plan,
              dir, noReport, dashboard, stdout, err);
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
      stdout.flush();
      warmUp.warmUp(scenario);
      RunResult result;
      try (Progress progress = new Progress(scenario, stdout)) {
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
  }

  /**
   * The warning an unfaithful run prints: a run under the conservative order that only fell behind the wall clock
   * (lag) kept its events in order, so its figures are those of a faithful run and only its real time was lost; any
   * other reason voids the figures.
   */
  static String unfaithfulWarning(String reason, boolean conservativeOrder) {
    if (conservativeOrder && reason.startsWith("lag:")) {
      return "warning: this run is marked faithful: false (" + reason + "); its events kept their model-time order, "
          + "so its figures are exact, but it did not run in real time (for that: a smaller --scale or fewer VMs)";
    }
    return "warning: this run is marked faithful: false (" + reason + ") and its results should not be trusted "
        + "(try a smaller --scale or fewer VMs)";
  }

  /** A duration option's value in nanoseconds; bad input unless it has a unit (e.g. {@code example}). */
  static long durationNanos(String option, String value, String example) throws ConfigProblems {
    try {
      // a bare number would be read as milliseconds; the scenario file rejects it, so the option does too
      if (!value.trim().matches(".*[a-zA-Z]")) throw new ConfigException.Generic("no unit");
      return ConfigFactory.parseString("d = \"" + value.replace("\"", "") + "\"").getDuration("d").toNanos();
    } catch (ConfigException e) {
      throw ConfigProblems.of(option + " " + value + ": expected a duration with a unit, e.g. " + example);
    }
  }

  /** The JIT warm-up before a measured run ({@link Runner#warmUp}); run and compare share it. */
  static final class WarmUpOption {
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

  /** Picocli mixin holder so run and validate share the scenario options. */
  static final class ScenarioOptionsMixin {
    @CommandLine.ArgGroup(exclusive = false, multiplicity = "1")
    ScenarioOptions opts;
  }

  /** {@code s}, checked for a run of one JVM: a node-crash fault needs a cluster. */
  static Settings.Scenario oneJvm(Settings.Scenario s) throws ConfigProblems {
    for (FaultPlan.Fault f : s.faults().faults()) {
      if (!f.kind().inOneJvm()) {
        throw ConfigProblems.of("fault " + f.kind().label() + " on " + f.target() + ": a fault of cluster runs; "
            + "use run --cluster N (N >= 2)");
      }
    }
    return s;
  }

  @Command(name = "validate", mixinStandardHelpOptions = true, description = "Check a scenario without running it.")
  static final class Validate implements Callable<Integer> {
    @CommandLine.Mixin ScenarioOptionsMixin options;

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

  @Command(name = "list", mixinStandardHelpOptions = true, description = "Name the scenarios, policies and workloads.")
  static final class ListCommand implements Callable<Integer> {
    @Option(names = "--conf", description = "folder of scenario files (default: conf/scenarios)")
    Path conf = Paths.get("conf", "scenarios");

    @Option(names = "--plugins", paramLabel = "DIR", description = "also list the policies of the plugin jars here")
    Path plugins;

    @Option(names = "--params", description = "also each policy's parameters, with their defaults and sources")
    boolean params;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override public Integer call() throws Exception {
      PrintWriter out = spec.commandLine().getOut();
      PolicyCatalog policies;
      try {
        policies = Plugins.catalog(plugins);
      } catch (ConfigProblems p) {
        p.problems().forEach(spec.commandLine().getErr()::println);
        return BAD_INPUT;
      }
      out.println("scenarios (" + conf + "):");
      if (Files.isDirectory(conf)) {
        try (Stream<Path> files = Files.walk(conf)) {
          files.filter(p -> p.toString().endsWith(".conf")).sorted().forEach(p -> out.println("  " + p));
        }
      } else {
        out.println("  (no such folder)");
      }
      listPolicies(out, policies, params);
      out.println("workloads:");
      for (Workload w : WorkloadCatalog.all().values()) out.println("  " + w.name() + " - " + w.description());
      return OK;
    }
  }

  private static final Map<PolicyKind<?>, String> POLICY_HEADINGS = Map.of(
      PolicyKind.GPU, "gpu policies (scheduler.gpu.policy):",
      PolicyKind.SPACE, "space policies (scheduler.gpu.policy too: one game VM and best-effort VMs):",
      PolicyKind.CPU, "cpu policies (scheduler.cpu.policy):",
      PolicyKind.MEMORY, "memory policies (memory.policy):",
      PolicyKind.PLACEMENT, "placement policies (placement.policy: scenarios of many hosts):");

  /**
   * Each kind's policies: name, description, then where a plugin's came from and the inputs a policy declared
   * (e.g. {@code [needs cpu-time, bus-and-memory]}).
   */
  static void listPolicies(PrintWriter out, PolicyCatalog policies, boolean params) {
    for (PolicyKind<?> kind : PolicyKind.ALL) {
      out.println(POLICY_HEADINGS.get(kind));
      for (PolicyCatalog.Entry e : policies.of(kind).values()) {
        PolicySpec<?> spec = e.spec();
        StringBuilder line = new StringBuilder("  " + spec.name() + " - " + spec.description());
        if (!e.origin().equals(PolicyCatalog.BUILT_IN)) line.append(" [plugin: ").append(e.origin()).append(']');
        if (!spec.inputs().isEmpty()) {
          line.append(" [needs ").append(String.join(", ",
              spec.inputs().stream().sorted().map(PolicyInput::key).toList())).append(']');
        }
        out.println(line);
        if (!params) continue;
        for (Param p : spec.params()) {
          out.println("      " + p.name() + " = " + p.defaultValue() + "  # " + p.description());
        }
      }
    }
  }

  @Command(name = "bench", mixinStandardHelpOptions = true,
      description = "Measure the emulator on this machine (timer lateness against Pekko's schedulers, request path "
          + "throughput, scale, fast forward, emulation overhead, hosts in parallel; on request, the runs' fidelity verdicts): a table "
          + "and bench.json. Figures are reported, never asserted.")
  static final class BenchCommand implements Callable<Integer> {
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
        description = "run only these sections: timers, path, scale, fast-forward, overhead, hosts, fidelity (default: all "
            + "but fidelity, which runs every scenario under conf/scenarios at its own scale and 5x slower and "
            + "compares their figures: about 18 minutes, 10 with --quick)")
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

  /** The default output folder: {@code out/<prefix><timestamp>}. */
  static Path timestamped(String prefix) {
    return Paths.get("out", prefix + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
  }

  /** Creates {@code dir}; false, with one line on {@code err}, when it cannot (bad input). */
  static boolean createFolder(Path dir, PrintWriter err) {
    try {
      Files.createDirectories(dir);
      return true;
    } catch (java.io.IOException e) {
      err.println(dir + ": cannot create the output folder: " + e.getMessage());
      return false;
    }
  }

  /** Adds the run folder's full log and sets the console threshold. */
  static void configureLogging(Path dir, boolean verbose) {
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) return;
    ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.iteratorForAppenders().forEachRemaining(a -> {
      if (verbose) a.clearAllFilters();
    });
    if (verbose) root.setLevel(ch.qos.logback.classic.Level.DEBUG);
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n");
    encoder.start();
    FileAppender<ILoggingEvent> file = new FileAppender<>();
    file.setContext(context);
    file.setName("RUN");
    file.setFile(dir.resolve("emulator.log").toString());
    file.setEncoder(encoder);
    file.start();
    root.addAppender(file);
  }

  /**
   * The progress line: emulated time, live fidelity (real-time factor, current p99 timer lateness), and each VM's
   * FPS and GPU share over the last metrics period.
   */
  static final class Progress implements AutoCloseable {
    private final ProgressBar bar;
    private final PrintWriter plain;
    private final long totalMillis;
    private long nextPlain;

    /** Whether the line shows how long the rest should take (a soak's), and the wall clock it goes by. */
    private final boolean eta;
    private final long wallStart = System.nanoTime();

    Progress(Settings.Scenario s, PrintWriter out) {
      this(s, out, false);
    }

    Progress(Settings.Scenario s, PrintWriter out, boolean eta) {
      this.eta = eta;
      totalMillis = Math.max(1, s.durationNanos() / 1_000_000);
      if (System.console() != null) {
        ProgressBarBuilder b = new ProgressBarBuilder().setTaskName(s.name()).setInitialMax(totalMillis)
            .setUnit(" s", 1000).setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(250);
        bar = (eta ? b : b.hideEta()).build();
        plain = null;
      } else {
        bar = null;
        plain = out;
      }
    }

    void update(MetricsHub.LiveView view) {
      long ms = Math.min(totalMillis, view.emulatedNanos() / 1_000_000);
      StringBuilder extra = new StringBuilder(fidelity(view)).append("  ");
      for (int i = 0; i < view.names().size(); i++) {
        extra.append(String.format("%s %.0ffps %.0f%%  ", view.names().get(i), view.fps()[i], 100 * view.gpuShare()[i]));
      }
      if (bar != null) {
        bar.stepTo(ms);
        bar.setExtraMessage(extra.toString().trim());
      } else if (ms >= nextPlain) {
        String left = "";
        if (eta && ms > 0) { // the rest at the pace so far, in wall time
          double wall = (System.nanoTime() - wallStart) / 1e9;
          left = String.format(Locale.ROOT, "  about %.0f wall s left", wall * (totalMillis - ms) / ms);
        }
        plain.printf("  %5.1f / %.1f s%s  %s%n", ms / 1e3, totalMillis / 1e3, left, extra.toString().trim());
        plain.flush();
        nextPlain = ms + Math.max(1000, totalMillis / 10);
      }
    }

    /**
     * The live fidelity part of the line: real-time factor (emulated seconds per wall second, as far as the timers
     * got), the p99 timer lateness of the last quarter second ("-" where not known yet) and the verdict so far.
     */
    static String fidelity(MetricsHub.LiveView view) {
      String rtf = Double.isNaN(view.realTimeFactor()) ? "-"
          : String.format(Locale.ROOT, "%.2fx", view.realTimeFactor());
      String p99 = view.latenessP99Us() < 0 ? "-" : view.latenessP99Us() + "us";
      return "rtf " + rtf + " p99 " + p99 + (view.verdict() == null ? "" : " " + view.verdict());
    }

    @Override public void close() {
      if (bar != null) bar.close();
    }
  }
}
