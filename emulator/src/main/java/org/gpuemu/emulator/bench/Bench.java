package org.gpuemu.emulator.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code bench} command's work: measures, on the machine at hand, what its performance goals ask of the emulator
 * (timer lateness against Pekko's schedulers, request path throughput, scale, fast forward, emulation overhead) and,
 * when asked for, whether the runs' own fidelity verdicts can be trusted (every shipped scenario against a slower run
 * of itself), prints one progress line per step and a table at the end, and writes {@code bench.json}. Figures are
 * reported, never judged: poor numbers are a result, and only a section that could not run at all makes the bench
 * fail.
 */
public final class Bench {
  private static final Logger LOG = LoggerFactory.getLogger(Bench.class);

  private Bench() {}

  /**
   * The bench's sections, in the order they run, by the names {@code --only} takes. A plain {@code bench} (and
   * {@code bench --quick}, which CI runs) runs the {@link #defaults()}; {@code host-scale} (the scale search on three
   * layouts of hosts and threads: three times the scale section's time) and {@code fidelity} (every shipped scenario
   * at two scales: about 18 minutes, 10 with {@code --quick}) only when {@code --only} names them.
   */
  public enum Section {
    TIMERS("timers", true), PATH("path", true), SCALE("scale", true), FAST_FORWARD("fast-forward", true),
    OVERHEAD("overhead", true), HOSTS("hosts", true), HOST_SCALE("host-scale", false), FIDELITY("fidelity", false);

    private final String key;
    private final boolean byDefault;

    Section(String key, boolean byDefault) {
      this.key = key;
      this.byDefault = byDefault;
    }

    public String key() {
      return key;
    }

    /** The sections a bench without {@code --only} runs: all but {@code fidelity}. */
    public static Set<Section> defaults() {
      Set<Section> set = EnumSet.noneOf(Section.class);
      for (Section s : values()) {
        if (s.byDefault) set.add(s);
      }
      return set;
    }

    /** The section with this name; {@link IllegalArgumentException} naming the valid ones otherwise. */
    public static Section byKey(String key) {
      for (Section s : values()) {
        if (s.key.equals(key)) return s;
      }
      throw new IllegalArgumentException("unknown section '" + key + "'; valid: "
          + Arrays.stream(values()).map(Section::key).collect(Collectors.joining(", ")));
    }
  }

  /**
   * What to run.
   *
   * @param out the folder for {@code bench.json}, the generated scenarios and every run's reports
   * @param reference fast forward's reference scenario file; null skips that section
   * @param sections the sections to run; empty: the {@link Section#defaults()}
   * @param scenarios the fidelity section's folder of scenario files ({@code conf/scenarios}); null skips it
   * @param scenarioFilter a glob the fidelity section's files must match, relative to {@code scenarios}
   *     ({@code vmcg/*}); null: every file
   */
  public record Options(boolean quick, Path out, Path reference, Set<Section> sections, Path scenarios,
      String scenarioFilter) {
    public Options {
      sections = sections.isEmpty() ? Section.defaults() : EnumSet.copyOf(sections);
    }
  }

  /** Runs the bench; true when every section asked for was measured (figures good or bad). */
  public static boolean run(Options options, PrintWriter out) throws IOException {
    BenchPlan plan = options.quick() ? BenchPlan.quick() : BenchPlan.full();
    Files.createDirectories(options.out());
    long start = System.nanoTime();
    String started = LocalDateTime.now().format(DateTimeFormatter.ISO_LOCAL_DATE_TIME);
    Consumer<String> progress = line -> {
      out.printf(Locale.ROOT, "[%4.0fs] %s%n", (System.nanoTime() - start) / 1e9, line);
      out.flush();
    };
    progress.accept(String.format(Locale.ROOT, "bench (%s): sections %s -> %s", plan.name(), options.sections()
        .stream().map(Section::key).collect(Collectors.joining(", ")), options.out()));
    Runs runs = new Runs(options.out());
    Map<String, String> errors = new LinkedHashMap<>();
    boolean[] failed = {false};
    TimerSection.Report timers = section(options, Section.TIMERS, errors, failed, progress,
        () -> TimerSection.run(plan, options.out(), progress));
    RequestPathSection.Report path = section(options, Section.PATH, errors, failed, progress,
        () -> RequestPathSection.run(plan, runs, progress));
    ScaleSection.Report scale = section(options, Section.SCALE, errors, failed, progress,
        () -> ScaleSection.run(plan, runs, progress));
    FastForwardSection.Report ff = null;
    if (options.sections().contains(Section.FAST_FORWARD) && options.reference() == null) {
      errors.put(Section.FAST_FORWARD.key(), "skipped: no reference scenario (this build's jar lacks "
          + "default-contention.conf; pass --reference)");
      progress.accept("fast forward: " + errors.get(Section.FAST_FORWARD.key()));
    } else {
      ff = section(options, Section.FAST_FORWARD, errors, failed, progress,
          () -> FastForwardSection.run(plan, options.reference(), runs, progress));
    }
    OverheadSection.Report overhead = section(options, Section.OVERHEAD, errors, failed, progress,
        () -> OverheadSection.run(plan, runs, progress));
    HostsSection.Report hosts = section(options, Section.HOSTS, errors, failed, progress,
        () -> HostsSection.run(plan, runs, progress));
    HostScaleSection.Report hostScale = section(options, Section.HOST_SCALE, errors, failed, progress,
        () -> HostScaleSection.run(plan, runs, progress));
    FidelitySection.Report fidelity = null;
    if (options.sections().contains(Section.FIDELITY) && options.scenarios() == null) {
      errors.put(Section.FIDELITY.key(), "skipped: no scenario folder (run from the project folder, where "
          + "conf/scenarios is)");
      progress.accept("fidelity: " + errors.get(Section.FIDELITY.key()));
    } else {
      fidelity = section(options, Section.FIDELITY, errors, failed, progress,
          () -> FidelitySection.run(plan, options.scenarios(), options.scenarioFilter(), runs, progress));
    }

    List<BenchReport.Goal> goals = Goals.of(timers, path, scale, ff, overhead, hosts);
    Goals.hostScale(hostScale, goals);
    BenchReport report = new BenchReport(plan.name(), machine(), started, (System.nanoTime() - start) / 1e9, timers,
        path, scale, ff, overhead, hosts, hostScale, fidelity, goals, errors);
    Path json = options.out().resolve("bench.json");
    write(report, json);
    out.println();
    out.print(BenchTable.render(report));
    out.println("wrote " + json);
    out.flush();
    return !failed[0];
  }

  /**
   * The fidelity section's scenario files: those under {@code folder} (in path order) whose path there matches
   * {@code glob} with or without {@code .conf}; all when the glob is null.
   * {@link java.util.regex.PatternSyntaxException} when it is not a glob.
   */
  public static List<Path> fidelityScenarios(Path folder, String glob) throws IOException {
    return FidelitySection.files(folder, glob);
  }

  /**
   * The fast-forward reference packed into the jar ({@code conf/scenarios/baseline/default-contention.conf}, a file
   * that names only catalog workloads), written into {@code dir} so that a bench run outside the project folder
   * measures the same scenario; null when the jar lacks it.
   */
  public static Path packagedReference(Path dir) throws IOException {
    try (java.io.InputStream in = Bench.class.getResourceAsStream("default-contention.conf")) {
      if (in == null) return null;
      Path file = dir.resolve("scenarios").resolve("default-contention.conf");
      Files.createDirectories(file.getParent());
      Files.copy(in, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      return file;
    }
  }

  /** The bench.json writer: snake_case keys, as summary.json has them. */
  static ObjectMapper json() {
    return new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
        .enable(SerializationFeature.INDENT_OUTPUT);
  }

  static void write(BenchReport report, Path file) throws IOException {
    json().writeValue(file.toFile(), report);
  }

  private interface Measurement<T> {
    T run() throws Exception;
  }

  private static <T> T section(Options options, Section section, Map<String, String> errors, boolean[] failed,
      Consumer<String> progress, Measurement<T> measurement) {
    if (!options.sections().contains(section)) return null;
    long start = System.nanoTime();
    try {
      T result = measurement.run();
      progress.accept(String.format(Locale.ROOT, "%s: done in %.0f s", section.key(),
          (System.nanoTime() - start) / 1e9));
      return result;
    } catch (Exception e) {
      LOG.error("bench section {} failed", section.key(), e);
      errors.put(section.key(), String.valueOf(e));
      failed[0] = true;
      progress.accept(section.key() + ": FAILED: " + e + " (details in emulator.log)");
      return null;
    }
  }

  private static BenchReport.Machine machine() {
    List<String> gcs = new ArrayList<>();
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) gcs.add(gc.getName());
    return new BenchReport.Machine(Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"),
        System.getProperty("java.vm.name"), gcs, Runtime.getRuntime().maxMemory() / (1024 * 1024),
        ManagementFactory.getRuntimeMXBean().getInputArguments());
  }
}
