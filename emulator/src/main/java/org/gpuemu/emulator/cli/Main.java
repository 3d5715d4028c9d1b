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
import java.util.concurrent.Callable;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.config.Settings;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The command line's root: one class per subcommand ({@link RunCommand}, {@link ValidateCommand}, {@link ListCommand},
 * {@link Compare}, {@link BenchCommand}, {@link ReportCommand}, {@link Reproduce}, {@link SoakCommand},
 * {@link ExploreCommand}, {@link NodeCommand}, {@link DocsCommand}), and what they share: the exit statuses (0 ok, 1
 * an invariant broke or, for bench, a section could not be measured, 2 bad input), the output folder and its log.
 */
@Command(name = "emulator", mixinStandardHelpOptions = true, version = "gpuemu 0.1.0",
    description = "Actor-based emulator of GPU sharing between virtual machines.",
    subcommands = {RunCommand.class, ValidateCommand.class, ListCommand.class, Compare.class,
        BenchCommand.class, ReportCommand.class, Reproduce.class, SoakCommand.class, ExploreCommand.class,
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

}
