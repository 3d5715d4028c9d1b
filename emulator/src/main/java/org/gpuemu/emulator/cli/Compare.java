package org.gpuemu.emulator.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.dashboard.DashboardOptions;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.config.SharingModes;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyKind;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Runs one scenario under several GPU policies, one after the other, and prints one table with the policies side
 * by side (the table of FairGV Figures 8–9 and VMCG Figure 12). Each run's files go to {@code DIR/<policy>/};
 * the table's figures also go to {@code DIR/compare.json}.
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
    description = "Run a scenario under several GPU policies and compare them side by side.")
final class Compare implements Callable<Integer> {
  @CommandLine.Mixin ScenarioOptions.Mixin options;

  @Option(names = "--policies", required = true, split = ",", paramLabel = "P1,P2,...",
      description = "GPU policies to run the scenario under, e.g. fairgv,credit-poll; or memory policies "
          + "(static-384,static-1024,gballoon), which set memory.policy instead; or the sharing modes mig and mps, "
          + "which set gpu.mode (the policies then run time-sliced)")
  List<String> policies;

  @CommandLine.Mixin WarmUpOption warmUp;

  @Option(names = "--out", description = "output folder (default: out/<scenario>-compare-<timestamp>)")
  Path out;

  @Option(names = "--no-report", description = "do not write report.html (here and in each policy's folder)")
  boolean noReport;

  @CommandLine.Mixin DashboardOptions dashboard;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    PrintWriter stdout = spec.commandLine().getOut();
    List<Settings.Scenario> scenarios = new ArrayList<>();
    boolean bad = false;
    PolicyCatalog catalog;
    try {
      catalog = options.opts.policies();
    } catch (ConfigProblems p) {
      p.problems().forEach(err::println);
      return Main.BAD_INPUT;
    }
    boolean modes = policies.stream().anyMatch(Compare::sharingMode);
    for (String policy : policies) bad |= !load(policy, modes, catalog, scenarios, err);
    try {
      warmUp.nanos();
    } catch (ConfigProblems p) {
      p.problems().forEach(err::println);
      bad = true;
    }
    if (bad) return Main.BAD_INPUT;
    try {
      dashboard.open(scenarios.get(0), stdout);
    } catch (ConfigProblems p) {
      p.problems().forEach(err::println);
      return Main.BAD_INPUT;
    }
    Path dir = out != null ? out : Main.timestamped(scenarios.get(0).name() + "-compare-");
    Map<String, Summary> results = new LinkedHashMap<>();
    try {
      if (!runAll(scenarios, dir, results, err, stdout)) return Main.BAD_INPUT;
    } finally {
      dashboard.endCompare(results, stdout);
    }
    writeCompare(scenarios.get(0).name(), modes, catalog, results, dir, stdout);
    boolean unfaithful = results.values().stream().anyMatch(r -> !r.faithful());
    if (unfaithful) {
      err.println("warning: a run is marked faithful: false (see its row); do not trust its figures");
    }
    stdout.println("wrote " + dir.resolve("compare.json"));
    ReportCommand.afterRun(dir, noReport, stdout, err);
    return results.values().stream().allMatch(r -> r.brokenInvariants().isEmpty()) ? Main.OK : Main.BROKEN;
  }

  /**
   * Loads the scenario under {@code policy} into {@code scenarios} (a sharing mode sets {@code gpu.mode}, FCFS
   * queueing to each instance or the GPU; with modes the others run time-sliced); false after bad input, reported.
   */
  private boolean load(String policy, boolean modes, PolicyCatalog catalog, List<Settings.Scenario> scenarios,
      PrintWriter err) {
    if (sharingMode(policy)) {
      options.opts.sets.put("gpu.mode", policy);
      options.opts.sets.put("scheduler.gpu.policy", "fcfs");
    } else {
      if (modes) options.opts.sets.put("gpu.mode", "time-sliced");
      options.opts.sets.put(memoryPolicy(catalog, policy) ? "memory.policy" : "scheduler.gpu.policy", policy);
    }
    try {
      scenarios.add(options.opts.loadForOneJvm());
      return true;
    } catch (ConfigProblems p) {
      p.problems().forEach(line -> err.println("[" + policy + "] " + line));
      return false;
    }
  }

  /** The side-by-side table on stdout and {@code dir/compare.json} (with the paper's values, when it has some). */
  private void writeCompare(String scenario, boolean modes, PolicyCatalog catalog, Map<String, Summary> results,
      Path dir, PrintWriter stdout) throws java.io.IOException {
    Map<String, Map<String, Object>> rows = rows(results);
    if (modes || policies.stream().anyMatch(p -> p.startsWith("vgpu-"))) SharingRows.add(rows, results);
    stdout.print(table(rows, List.copyOf(results.keySet())));
    Map<String, Object> compare = new LinkedHashMap<>();
    compare.put("scenario", scenario);
    compare.put("rows", rows);
    List<Map<String, Object>> paper = PaperValues.of(options.opts.file, catalog, results);
    if (!paper.isEmpty()) compare.put("paper", paper);
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(dir.resolve("compare.json").toFile(), compare);
  }

  /**
   * Runs each policy's scenario into {@code dir/<policy>/}, one after the other, with the dashboard when one is
   * open; false when a folder cannot be made (bad input).
   */
  private boolean runAll(List<Settings.Scenario> scenarios, Path dir, Map<String, Summary> results, PrintWriter err,
      PrintWriter stdout) throws Exception {
    boolean logging = false;
    for (int i = 0; i < scenarios.size(); i++) {
      Settings.Scenario s = scenarios.get(i);
      String label = policies.get(i);
      Path runDir = dir.resolve(label);
      if (!Main.createFolder(runDir, err)) return false;
      if (!logging) {
        Main.configureLogging(dir, false);
        logging = true;
      }
      stdout.printf(Locale.ROOT, "running %s under %s: %.1f emulated s at time scale %s -> %s%n", s.name(),
          label, s.durationNanos() / 1e9, s.timeScale(), runDir);
      stdout.flush();
      warmUp.warmUp(s);
      Summary summary = new Summary(dashboard.runOf(label, i, scenarios.size(), s, runDir, v -> { }));
      summary.write(runDir.resolve("summary.json"));
      results.put(label, summary);
    }
    return true;
  }

  /** An entry of --policies that names a sharing mode (gpu.mode) rather than a policy: mig or mps. */
  static boolean sharingMode(String entry) {
    return SharingModes.modeEntry(entry);
  }

  /** A memory policy's name (gBalloon's comparisons vary the memory policy; names are unique across kinds). */
  static boolean memoryPolicy(PolicyCatalog catalog, String name) {
    return catalog.find(name).filter(e -> e.spec().kind() == PolicyKind.MEMORY).isPresent();
  }

  /**
   * Row name → (policy → value): per VM figures first, then the run's; the sum of the VMs' FPS and that sum over
   * the first policy's (gballoon.txt Figures 5-8 normalise to gVirt-384 by the sum of FPS).
   */
  @SuppressWarnings("unchecked")
  static Map<String, Map<String, Object>> rows(Map<String, Summary> results) {
    Map<String, Map<String, Object>> rows = new LinkedHashMap<>();
    for (Map.Entry<String, Summary> e : results.entrySet()) {
      Map<String, Object> doc = e.getValue().document();
      Map<String, Map<String, Object>> vms = (Map<String, Map<String, Object>>) doc.get("vms");
      for (Map.Entry<String, Map<String, Object>> vm : vms.entrySet()) {
        for (String key : new String[] {"fps", "throughput_per_s", "gpu_share", "normalized_throughput",
            "normalized_run_time", "run_time_s"}) {
          row(rows, vm.getKey() + " " + key).put(e.getKey(), vm.getValue().get(key));
        }
      }
      for (Map.Entry<String, Map<String, Object>> vm : vms.entrySet()) {
        if (vm.getValue().containsKey("fps_p99")) {
          row(rows, vm.getKey() + " fps_p99").put(e.getKey(), vm.getValue().get("fps_p99"));
          Map<String, Object> headroom = (Map<String, Object>) vm.getValue().get("headroom_ms");
          for (String key : new String[] {"mean", "p50", "p90"}) {
            row(rows, vm.getKey() + " headroom_ms " + key).put(e.getKey(), headroom.get(key));
          }
        }
      }
      if (doc.containsKey("be_throughput")) { // space sharing (COMBO): Eq. 6 per kernel type, QoS
        for (Map.Entry<String, Object> t : ((Map<String, Object>) doc.get("be_throughput")).entrySet()) {
          row(rows, "be_throughput " + t.getKey()).put(e.getKey(), t.getValue());
        }
        row(rows, "qos_violations").put(e.getKey(), doc.get("qos_violations"));
      }
      Map<String, Object> gpu = (Map<String, Object>) doc.get("gpu");
      Map<String, Object> fairness = (Map<String, Object>) doc.get("fairness");
      Map<String, Object> fidelity = (Map<String, Object>) doc.get("fidelity");
      double fpsSum = 0;
      for (Map<String, Object> vm : vms.values()) fpsSum += ((Number) vm.get("fps")).doubleValue();
      row(rows, "fps sum").put(e.getKey(), Math.round(fpsSum * 100) / 100.0);
      double first = ((Number) rows.get("fps sum").values().iterator().next()).doubleValue();
      row(rows, "fps sum / first").put(e.getKey(), first > 0 ? Math.round(fpsSum / first * 1000) / 1000.0 : null);
      row(rows, "gpu utilization").put(e.getKey(), gpu.get("utilization"));
      for (Map.Entry<String, Object> f : fairness.entrySet()) {
        row(rows, "fairness " + f.getKey()).put(e.getKey(), f.getValue());
      }
      row(rows, "faithful").put(e.getKey(), fidelity.get("faithful"));
      row(rows, "invariants ok").put(e.getKey(), e.getValue().brokenInvariants().isEmpty());
    }
    Map<String, Double> perf = Summary.performanceOverFirst(results);
    perf.forEach((policy, mean) -> row(rows, "performance / first").put(policy, Math.round(mean * 1000) / 1000.0));
    return rows;
  }

  private static Map<String, Object> row(Map<String, Map<String, Object>> rows, String name) {
    return rows.computeIfAbsent(name, n -> new LinkedHashMap<>());
  }

  static String table(Map<String, Map<String, Object>> rows, List<String> policies) {
    int first = Math.max(24, rows.keySet().stream().mapToInt(String::length).max().orElse(0) + 2);
    int width = 12;
    for (String p : policies) width = Math.max(width, p.length() + 2);
    for (Map<String, Object> row : rows.values()) {
      for (Object v : row.values()) width = Math.max(width, format(v).length() + 2);
    }
    StringBuilder b = new StringBuilder();
    b.append(pad("", first));
    for (String p : policies) b.append(lpad(p, width));
    b.append(System.lineSeparator());
    for (Map.Entry<String, Map<String, Object>> row : rows.entrySet()) {
      b.append(pad(row.getKey(), first));
      for (String p : policies) b.append(lpad(format(row.getValue().get(p)), width));
      b.append(System.lineSeparator());
    }
    return b.toString();
  }

  private static String format(Object v) {
    if (v == null) return "-";
    if (v instanceof Double d) return String.format(Locale.ROOT, Math.abs(d) >= 100 ? "%.1f" : "%.3f", d);
    return String.valueOf(v);
  }

  private static String pad(String s, int width) {
    return String.format("%-" + width + "s", s);
  }

  private static String lpad(String s, int width) {
    return String.format("%" + width + "s", s);
  }
}
