package org.gpuemu.emulator.cli;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.gpuemu.emulator.clock.Causality;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.ExploreBlock;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.explore.Explorer;
import org.gpuemu.emulator.explore.Judge;
import org.gpuemu.emulator.explore.Plan;
import org.gpuemu.emulator.explore.Shrinker;
import org.gpuemu.policies.spi.PolicyCatalog;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code explore SCENARIO}: many short runs in fast forward across seeds, random fault schedules and tie orders, each
 * judged; the first failure shrunk to a scenario file {@code run} replays exactly (docs/guides/explore.md). Exit 0
 * when every run held, 1 when one failed, 2 on bad input.
 */
@Command(name = "explore", mixinStandardHelpOptions = true, description = "Run a scenario many times in fast forward "
    + "(each run its own seed, random faults and, with --orders, tie orders), judge every run (checker, invariants, "
    + "policy invariants, liveness outside fault windows, the scenario's explore properties), and shrink the first "
    + "failure to a scenario file that run replays exactly.")
final class ExploreCommand implements Callable<Integer> {
  /** The default random fault rate: about three faults in a 10 s run, with time between them to recover. */
  static final String DEFAULT_RATE = "1/3s";

  @Parameters(index = "0", paramLabel = "SCENARIO.conf", description = "scenario file")
  Path file;

  @Option(names = "--runs", defaultValue = "100", description = "how many runs (default: ${DEFAULT-VALUE})")
  int runs;

  @Option(names = "--duration", defaultValue = "10s", description = "emulated length of each run (default: "
      + "${DEFAULT-VALUE})")
  String duration;

  @Option(names = "--faults", paramLabel = "random", description = "also draw faults from each run's seed")
  String faults;

  @Option(names = "--fault-rate", paramLabel = "N/DURATION", description = "how often --faults random injects one on "
      + "average (default: " + DEFAULT_RATE + ")")
  String faultRate;

  @Option(names = "--plugins", paramLabel = "DIR", description = "load policy plugins from the jars in this folder")
  Path plugins;

  @Option(names = "--jobs", defaultValue = "2", description = "runs at a time in this JVM, each its own actor system "
      + "(default: ${DEFAULT-VALUE})")
  int jobs;

  @Option(names = "--seed", defaultValue = "1", description = "the first run's seed; run i has seed + i (default: "
      + "${DEFAULT-VALUE})")
  long seed;

  @Option(names = "--orders", defaultValue = "1", paramLabel = "K", description = "tie orders per seed: the default "
      + "one, then K - 1 drawn from the seed; seeds whose outcome changes with it are reported (default: "
      + "${DEFAULT-VALUE})")
  int orders;

  @Option(names = "--no-shrink", description = "do not shrink the first failure")
  boolean noShrink;

  @Option(names = "--stop-on-failure", description = "start no run after the first failure")
  boolean stopOnFailure;

  @Option(names = "--out", description = "output folder (default: out/explore-<scenario>-<timestamp>)")
  Path out;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  private static final ObjectMapper JSON = new ObjectMapper();

  @Override public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    PrintWriter stdout = spec.commandLine().getOut();
    Explorer.Options options;
    ExploreBlock block;
    Settings.Scenario first;
    try {
      options = options();
      block = ExploreBlock.read(file);
      first = Main.oneJvm(ScenarioLoader.load(file, new ScenarioLoader.Overrides(Explorer.FAST_FORWARD,
          options.durationNanos(), seed, Map.of(), options.faultRate() == null ? FaultPlan.Cli.NONE
              : new FaultPlan.Cli(List.of(), "random", options.faultRate())), options.catalog()));
      replayable(first);
    } catch (ConfigProblems p) {
      p.problems().forEach(err::println);
      return Main.BAD_INPUT;
    }
    Path dir = out != null ? out : Main.timestamped("explore-" + first.name() + "-");
    if (!Main.createFolder(dir, err)) return Main.BAD_INPUT;
    options = new Explorer.Options(options.file(), options.catalog(), runs, options.durationNanos(),
        options.faultRate(), jobs, seed, orders, dir, stopOnFailure);
    Main.configureLogging(dir, false);
    stdout.printf(Locale.ROOT, "exploring %s: %d runs of %.1f emulated s, policy %s, %s, %d tie order%s per seed, "
        + "%d at a time, seeds %d.. -> %s%n", first.name(), runs, options.durationNanos() / 1e9,
        first.gpuPolicy().name(), options.faultRate() == null ? "no random faults"
            : "random faults at " + options.faultRate(), orders, orders == 1 ? "" : "s", jobs, seed, dir);
    stdout.flush();
    Explorer.Result result;
    List<Appender<ILoggingEvent>> console = muteConsole();
    try (Bar bar = new Bar(runs, stdout)) {
      result = Explorer.explore(options, block, bar::ended);
    } finally {
      unmute(console);
    }
    stdout.println(table(result, block, options));
    Map<String, Object> doc = document(result, options);
    Explorer.RunRecord failure = result.firstFailure();
    if (failure != null && !noShrink) {
      doc.put("shrink", shrink(failure, block, options, stdout));
    } else if (failure != null) {
      stdout.println("first failure: seed " + failure.seed() + " (not shrunk: --no-shrink)");
    }
    JSON.writerWithDefaultPrettyPrinter().writeValue(dir.resolve("explore.json").toFile(), doc);
    stdout.println("wrote " + dir.resolve("explore.json"));
    return result.failed() == 0 ? Main.OK : Main.BROKEN;
  }

  /** The options checked, each problem one line naming the option. */
  private Explorer.Options options() throws ConfigProblems {
    if (runs < 1 || runs > 10_000_000) throw ConfigProblems.of("--runs " + runs + ": expected 1 to 10000000 runs");
    if (jobs < 1 || jobs > 64) throw ConfigProblems.of("--jobs " + jobs + ": expected 1 to 64 runs at a time");
    if (orders < 1 || orders > 64) throw ConfigProblems.of("--orders " + orders + ": expected 1 to 64 tie orders");
    long nanos = Main.durationNanos("--duration", duration, "10s");
    if (nanos <= 0) throw ConfigProblems.of("--duration " + duration + ": expected a duration > 0");
    String rate = null;
    if (faults != null) {
      if (!faults.equals("random")) throw ConfigProblems.of("--faults " + faults + ": expected 'random'");
      rate = faultRate != null ? faultRate : DEFAULT_RATE;
      if (FaultPlan.interval(rate).isEmpty()) {
        throw ConfigProblems.of("--fault-rate " + rate + ": expected N/DURATION with N > 0, e.g. 1/3s");
      }
    } else if (faultRate != null) {
      throw ConfigProblems.of("--fault-rate " + faultRate + ": only with --faults random");
    }
    PolicyCatalog catalog = Plugins.catalog(plugins);
    return new Explorer.Options(file, catalog, runs, nanos, rate, jobs, seed, orders, null, stopOnFailure);
  }

  /**
   * What replaying a run from its plan needs: the conservative order (under the arrival order a run's figures are a
   * thread race, not a function of its seed), and no emulator-stall (a stall of wall time, not of the model).
   */
  private void replayable(Settings.Scenario s) throws ConfigProblems {
    if (s.fidelity().order() != Causality.Order.CONSERVATIVE) {
      throw ConfigProblems.of(file + ": scenario.fidelity.order: explore needs the conservative order (only under it "
          + "does a run replay from its seed, faults and tie order); remove the key or set it to conservative");
    }
    for (FaultPlan.Fault f : s.faults().faults()) {
      if (f.kind() == FaultPlan.Kind.EMULATOR_STALL) {
        throw ConfigProblems.of(file + ": scenario.faults[" + f.id() + "]: an emulator-stall stops wall time, which "
            + "fast forward has none of; explore cannot replay it (remove it)");
      }
    }
  }

  private Map<String, Object> shrink(Explorer.RunRecord failure, ExploreBlock block, Explorer.Options o,
      PrintWriter stdout) throws Exception {
    String kind = failure.findings().get(0).kind();
    stdout.printf(Locale.ROOT, "shrinking the first failure: seed %d%s, %d faults, broke %s: %s%n", failure.seed(),
        failure.orderSeed() == 0 ? "" : ", tie order " + failure.orderSeed(), failure.faults(), kind,
        failure.findings().get(0).text());
    stdout.flush();
    List<Appender<ILoggingEvent>> console = muteConsole();
    Shrinker.Outcome shrunk;
    try {
      shrunk = Shrinker.shrink(failure.plan(), kind, Shrinker.removableVms(file, block),
          Shrinker.tester(o.out().resolve("shrink"), o.catalog(), block));
    } finally {
      unmute(console);
    }
    shrunk.steps().forEach(s -> stdout.println("  " + s));
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("seed", failure.seed());
    doc.put("kind", kind);
    doc.put("runs", shrunk.runs());
    doc.put("steps", shrunk.steps());
    if (!shrunk.replayed()) {
      stdout.println("  the failing run did not fail again from its plan: a run that does not replay is a finding of "
          + "its own (see explore.json)");
      return doc;
    }
    reproducer(failure, shrunk, block, o, stdout, doc);
    return doc;
  }

  /**
   * Writes the shrunk plan as a reproducer scenario beside the run's results and runs it once more, as run would, into
   * its own folder; what it found goes to {@code doc} and the console.
   */
  private void reproducer(Explorer.RunRecord failure, Shrinker.Outcome shrunk, ExploreBlock block,
      Explorer.Options o, PrintWriter stdout, Map<String, Object> doc) throws Exception {
    String kind = failure.findings().get(0).kind();
    Plan p = shrunk.shrunk();
    Path repro = o.out().resolve("repro-" + first(file) + "-seed" + failure.seed() + ".conf");
    String command = "java -jar emulator/target/emulator.jar run " + repro
        + (plugins != null ? " --plugins " + plugins : "");
    List<String> comment = new ArrayList<>();
    comment.add("A reproducer written by explore (docs/guides/explore.md) from " + file + ", seed " + failure.seed()
        + ": it broke " + kind + ".");
    shrunk.findings().stream().filter(f -> f.kind().equals(kind))
        .forEach(f -> comment.add("  " + f.kind() + ": " + f.text()));
    comment.add("Shrunk in " + shrunk.runs() + " runs: " + String.join("; ", shrunk.steps()) + ".");
    comment.add("Replay: " + command);
    Files.writeString(repro, p.text(comment));
    // its report: the reproducer run once more, as run would, into its own folder
    Path replay = o.out().resolve("repro-run");
    Settings.Scenario scenario = ScenarioLoader.load(repro, ScenarioLoader.Overrides.none(), o.catalog());
    Explorer.Outcome replayed;
    List<Appender<ILoggingEvent>> console = muteConsole();
    try {
      replayed = Explorer.run(scenario, replay, block, false);
    } finally {
      unmute(console);
    }
    List<Judge.Finding> again = replayed.findings();
    if (replayed.summary() != null) stdout.println(replayed.summary().table());
    stdout.printf(Locale.ROOT, "reproducer: %d of %d faults %s, %.1f emulated s, %d VMs, tie order %s%n",
        p.faults().size(), failure.faults(), describe(p), p.durationNanos() / 1e9, scenario.vms().size(),
        p.orderSeed() == 0 ? "default" : Long.toString(p.orderSeed()));
    again.forEach(f -> stdout.println("  " + f.kind() + ": " + f.text()));
    stdout.println("wrote " + repro + " (its run: " + replay + ")");
    stdout.println("replay: " + command + " --out " + replay);
    doc.put("faults_before", failure.faults());
    doc.put("faults_after", p.faults().size());
    doc.put("duration_s", p.durationNanos() / 1e9);
    doc.put("vms", scenario.vms().size());
    doc.put("order_seed", p.orderSeed());
    doc.put("reproducer", repro.toString());
    doc.put("command", command);
    doc.put("replayed_findings", again.stream().map(f -> f.kind() + ": " + f.text()).toList());
  }

  private static String describe(Plan p) {
    List<String> out = new ArrayList<>();
    for (FaultPlan.Fault f : p.faults()) {
      out.add(String.format(Locale.ROOT, "%s@%.3fs:%s", f.kind().label(), f.atNanos() / 1e9, f.target()));
    }
    return out.toString();
  }

  private static String first(Path f) {
    return f.getFileName().toString().replaceFirst("\\.conf$", "");
  }

  /** The summary table: each property, how many runs broke it and the first seed that did. */
  static String table(Explorer.Result r, ExploreBlock block, Explorer.Options o) {
    StringBuilder t = new StringBuilder();
    long faults = r.runs().stream().mapToLong(Explorer.RunRecord::faults).sum();
    double perMinute = r.runs().size() / Math.max(1e-9, r.wallSeconds()) * 60;
    t.append(String.format(Locale.ROOT, "%d runs (%,d faults injected) in %.1f wall s: %.1f runs per wall minute, "
        + "%.2f wall s per run on its worker%n", r.runs().size(), faults, r.wallSeconds(), perMinute,
        r.runs().stream().mapToDouble(Explorer.RunRecord::wallSeconds).average().orElse(0)));
    t.append(String.format(Locale.ROOT, "%-44s %12s   %s%n", "property", "runs failed", "first failing run"));
    List<String> kinds = new ArrayList<>(Judge.BUILT_IN);
    block.properties().forEach(p -> kinds.add(p.name()));
    for (String kind : kinds) {
      List<Explorer.RunRecord> broke = r.runs().stream().filter(x -> x.kinds().contains(kind)).toList();
      String firstRun = broke.isEmpty() ? "-" : "seed " + broke.get(0).seed()
          + (broke.get(0).orderSeed() == 0 ? "" : " tie order " + broke.get(0).orderSeed()) + ": "
          + broke.get(0).findings().stream().filter(f -> f.kind().equals(kind)).findFirst().get().text();
      t.append(String.format(Locale.ROOT, "%-44s %12d   %s%n", kind, broke.size(), firstRun));
    }
    if (o.orders() > 1) {
      long seeds = r.runs().stream().mapToLong(Explorer.RunRecord::seed).distinct().count();
      long verdicts = r.orderDependent().stream().filter(Explorer.OrderDependence::verdictChanged).count();
      t.append(String.format(Locale.ROOT, "tie order (%d per seed): %d of %d seeds changed their figures with it, %d "
          + "what they broke%n", o.orders(), r.orderDependent().size() - verdicts, seeds, verdicts));
      r.orderDependent().stream().limit(5).forEach(d -> t.append("  seed ").append(d.seed()).append(": ")
          .append(d.difference()).append('\n'));
    }
    t.append(r.failed() == 0 ? "every run held" : r.failed() + " of " + r.runs().size() + " runs failed");
    return t.toString();
  }

  private static Map<String, Object> document(Explorer.Result r, Explorer.Options o) {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("scenario", o.file().toString());
    doc.put("runs", r.runs().size());
    doc.put("duration_s", o.durationNanos() / 1e9);
    doc.put("fault_rate", o.faultRate());
    doc.put("jobs", o.jobs());
    doc.put("first_seed", o.baseSeed());
    doc.put("orders", o.orders());
    doc.put("wall_seconds", r.wallSeconds());
    doc.put("runs_per_wall_minute", r.runs().size() / Math.max(1e-9, r.wallSeconds()) * 60);
    doc.put("faults_injected", r.runs().stream().mapToLong(Explorer.RunRecord::faults).sum());
    doc.put("failed", r.failed());
    List<Map<String, Object>> failures = new ArrayList<>();
    for (Explorer.RunRecord run : r.runs()) {
      if (!run.failed()) continue;
      Map<String, Object> f = new LinkedHashMap<>();
      f.put("seed", run.seed());
      f.put("order_seed", run.orderSeed());
      f.put("faults", run.plan().faults().stream().map(x -> x.kind().label() + "@" + x.atNanos() / 1e9 + "s:"
          + x.target()).toList());
      f.put("findings", run.findings().stream().map(x -> x.kind() + ": " + x.text()).toList());
      failures.add(f);
    }
    doc.put("failures", failures);
    doc.put("order_dependent", r.orderDependent().stream().map(d -> Map.of("seed", d.seed(), "verdict_changed",
        d.verdictChanged(), "difference", d.difference())).toList());
    return doc;
  }

  /** The console appenders, detached for the runs (each fault logs a warning); none when logging is not logback. */
  private static List<Appender<ILoggingEvent>> muteConsole() {
    List<Appender<ILoggingEvent>> detached = new ArrayList<>();
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) return detached;
    ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.iteratorForAppenders().forEachRemaining(a -> {
      if (a instanceof ch.qos.logback.core.ConsoleAppender) detached.add(a);
    });
    detached.forEach(root::detachAppender);
    return detached;
  }

  private static void unmute(List<Appender<ILoggingEvent>> appenders) {
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) return;
    ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    appenders.forEach(root::addAppender);
  }

  /** The progress bar: runs done, runs per wall minute, failures so far (plain lines without a console). */
  private static final class Bar implements AutoCloseable {
    private final ProgressBar bar;
    private final PrintWriter plain;
    private final int total;
    private final long start = System.nanoTime();
    private int nextPlain;

    Bar(int total, PrintWriter out) {
      this.total = total;
      if (System.console() != null) {
        bar = new ProgressBarBuilder().setTaskName("explore").setInitialMax(total).setUnit(" runs", 1)
            .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(250).build();
        plain = null;
      } else {
        bar = null;
        plain = out;
      }
    }

    void ended(Explorer.RunRecord run, int done, int failed) {
      double minutes = (System.nanoTime() - start) / 6e10;
      String extra = String.format(Locale.ROOT, "%.0f runs/min, %d failed", done / Math.max(1e-9, minutes), failed);
      if (bar != null) {
        bar.stepTo(done);
        bar.setExtraMessage(extra);
      } else if (done >= nextPlain || done == total) {
        plain.printf(Locale.ROOT, "  %d / %d runs  %s%n", done, total, extra);
        plain.flush();
        nextPlain = done + Math.max(1, total / 10);
      }
    }

    @Override public void close() {
      if (bar != null) bar.close();
    }
  }
}
