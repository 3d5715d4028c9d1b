package org.gpuemu.emulator.explore;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.gpuemu.emulator.config.ExploreBlock;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.report.Summary;

/**
 * The properties {@code explore} judges in each run (docs/guides/explore.md): the checker (nothing lost or
 * duplicated, every failure attributed), the emulator's invariants, the policies' own invariants, liveness outside
 * fault windows, and the scenario's own properties ({@link ExploreBlock}). Pure: reads the run's summary and
 * timeline, decides nothing else.
 */
public final class Judge {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The kinds every run is judged on, in the summary table's order (a scenario's properties follow). */
  public static final List<String> BUILT_IN = List.of("checker", "invariants", "policy invariants", "liveness",
      "causal order", "run ends");

  private Judge() {}

  /** A property a run broke: its kind ({@link #BUILT_IN}, or a scenario property's name) and what happened. */
  public record Finding(String kind, String text) {}

  /** One metric period of one VM from the timeline: its end, and its row. */
  record Period(String vm, long endNanos, JsonNode row) {}

  /** Every property {@code scenario}'s run broke, read from its summary and its {@code timeline.jsonl}. */
  public static List<Finding> judge(Settings.Scenario scenario, Summary summary, Path timeline, ExploreBlock block)
      throws IOException {
    List<Finding> found = new ArrayList<>();
    for (String broken : summary.brokenInvariants()) {
      // the existing liveness rule (a vCPU runnable with no step) is the run's own; ours is below
      String kind = kindOf(broken);
      found.add(new Finding(kind, broken.startsWith(kind + ": ") ? broken.substring(kind.length() + 2) : broken));
    }
    long violations = summary.doc().fidelity().causality().violations();
    if (violations > 0) {
      found.add(new Finding("causal order", violations + " events handled out of model-time order"));
    }
    List<Period> periods = periods(timeline, scenario.metricsPeriodNanos());
    List<long[]> windows = windows(scenario, block);
    found.addAll(liveness(scenario, periods, windows));
    for (ExploreBlock.Property p : block.properties()) {
      if (p.outsideFaults()) {
        found.addAll(outsideFaults(scenario, p, periods, windows));
      } else {
        double v = metric(summary.document(), p.metric());
        if (!p.holds(v)) {
          found.add(new Finding(p.name(), String.format(Locale.ROOT, "%s = %s, expected %s", p.metric(), fmt(v),
              p.bound())));
        }
      }
    }
    return found;
  }

  /** The kind of a broken invariant as {@link Summary} words it. */
  static String kindOf(String broken) {
    if (broken.startsWith("checker:")) return "checker";
    if (broken.startsWith("liveness:")) return "liveness";
    if (broken.startsWith("gpu policy") || broken.startsWith("memory policy") || broken.startsWith("cpu policy")) {
      return "policy invariants";
    }
    return "invariants";
  }

  /**
   * Each fault's window in emulated ns: from its injection to its heal plus the recovery time (the block's, or the
   * guest's give-up time: a request sent before the heal may still fail that long after it).
   */
  static List<long[]> windows(Settings.Scenario scenario, ExploreBlock block) {
    long recovery = block.recoveryNanos() >= 0 ? block.recoveryNanos() : scenario.faults().channel().giveUpNanos();
    List<long[]> windows = new ArrayList<>();
    for (FaultPlan.Fault f : scenario.faults().faults()) {
      windows.add(new long[] {f.atNanos(), f.atNanos() + f.healAfterNanos() + recovery});
    }
    return windows;
  }

  /**
   * Whether the period ending at {@code end} ({@code period} long) is a whole one (the timeline's last row covers
   * only the run's drain) and lies in the VM's active window and no fault's.
   */
  static boolean clean(Settings.Vm vm, long end, long period, List<long[]> windows) {
    long start = end - period;
    if (end % period != 0) return false;
    long stop = vm.stopAfterNanos() > 0 ? vm.stopAfterNanos() : Long.MAX_VALUE;
    if (start < vm.startDelayNanos() || end > stop) return false;
    for (long[] w : windows) if (start < w[1] && end > w[0]) return false;
    return true;
  }

  /**
   * Liveness: no VM goes without a frame or any GPU time for longer than the scenario's liveness timeout, counting
   * only the metric periods outside fault windows (a run of idle clean periods longer than the timeout).
   */
  static List<Finding> liveness(Settings.Scenario scenario, List<Period> periods, List<long[]> windows) {
    List<Finding> found = new ArrayList<>();
    long period = scenario.metricsPeriodNanos();
    long bound = scenario.fidelity().livenessTimeoutNanos();
    for (Settings.Vm vm : scenario.vms()) {
      long idleFrom = -1;
      long worst = 0;
      long worstFrom = -1;
      for (Period p : periods) {
        if (!p.vm().equals(vm.name())) continue;
        boolean idle = p.row().path("frames").asLong(0) == 0 && p.row().path("gpu_busy_ms").asDouble(0) == 0;
        if (idle && clean(vm, p.endNanos(), period, windows)) {
          if (idleFrom < 0) idleFrom = p.endNanos() - period;
          if (p.endNanos() - idleFrom > worst) {
            worst = p.endNanos() - idleFrom;
            worstFrom = idleFrom;
          }
        } else {
          idleFrom = -1;
        }
      }
      if (worst > bound) {
        found.add(new Finding("liveness", String.format(Locale.ROOT, "vm '%s' got no frame and no GPU time for "
            + "%.1f s from %.1f s outside fault windows (bound %.1f s)", vm.name(), worst / 1e9, worstFrom / 1e9,
            bound / 1e9)));
      }
    }
    return found;
  }

  /**
   * A property over the timeline: the field in every clean period of each named VM (the worst period reported; not
   * judged without a clean period).
   */
  static List<Finding> outsideFaults(Settings.Scenario scenario, ExploreBlock.Property p, List<Period> periods,
      List<long[]> windows) {
    String[] parts = p.metric().split("\\.");
    String field = parts[2];
    List<Finding> found = new ArrayList<>();
    for (Settings.Vm vm : scenario.vms()) {
      if (!parts[1].equals("*") && !parts[1].equals(vm.name())) continue;
      int n = 0;
      int broke = 0;
      Period worst = null;
      double worstBy = 0;
      for (Period row : periods) {
        if (!row.vm().equals(vm.name()) || !clean(vm, row.endNanos(), scenario.metricsPeriodNanos(), windows)) continue;
        JsonNode v = row.row().get(field);
        if (v == null || !v.isNumber()) continue;
        n++;
        double x = v.asDouble();
        if (p.holds(x)) continue;
        broke++;
        double by = x < p.low() ? p.low() - x : x - p.high();
        if (worst == null || by > worstBy) {
          worst = row;
          worstBy = by;
        }
      }
      if (worst != null) {
        found.add(new Finding(p.name(), String.format(Locale.ROOT, "vms.%s.%s = %s in the period to %.1f s, expected "
            + "%s (%d of %d periods outside fault windows broke it)", vm.name(), field,
            fmt(worst.row().get(field).asDouble()), worst.endNanos() / 1e9, p.bound(), broke, n)));
      }
    }
    return found;
  }

  /** The timeline's rows, each with its period's end in emulated ns. */
  static List<Period> periods(Path timeline, long periodNanos) throws IOException {
    List<Period> rows = new ArrayList<>();
    if (!Files.isRegularFile(timeline)) return rows;
    try (BufferedReader in = Files.newBufferedReader(timeline)) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isBlank()) continue;
        JsonNode row = JSON.readTree(line);
        if (!row.has("vm") || !row.has("t_s")) continue;
        rows.add(new Period(row.get("vm").asText(), Math.round(row.get("t_s").asDouble() * 1e9), row));
      }
    }
    return rows;
  }

  /**
   * A metric of summary.json: a dotted path, a {@code *} segment summing over every key (or element) there, a number
   * indexing a list; NaN where there is no number.
   */
  @SuppressWarnings("unchecked")
  static double metric(Object doc, String path) {
    return metric(doc, path.split("\\."), 0);
  }

  @SuppressWarnings("unchecked")
  private static double metric(Object node, String[] parts, int i) {
    if (i == parts.length) return node instanceof Number n ? n.doubleValue() : Double.NaN;
    String part = parts[i];
    if (part.equals("*")) {
      Iterable<Object> children = node instanceof Map<?, ?> m ? ((Map<String, Object>) m).values()
          : node instanceof List<?> l ? (List<Object>) l : List.of();
      double sum = 0;
      boolean any = false;
      for (Object child : children) {
        double v = metric(child, parts, i + 1);
        if (Double.isNaN(v)) return Double.NaN;
        sum += v;
        any = true;
      }
      return any ? sum : Double.NaN;
    }
    if (node instanceof Map<?, ?> m) return m.containsKey(part) ? metric(m.get(part), parts, i + 1) : Double.NaN;
    if (node instanceof List<?> l && part.matches("\\d+")) {
      int k = Integer.parseInt(part);
      return k < l.size() ? metric(l.get(k), parts, i + 1) : Double.NaN;
    }
    return Double.NaN;
  }

  /**
   * The figures of a run that a tie order could change: summary.json without what measures the machine (fidelity,
   * wall time) or names the run's setup (as DeterminismTest compares runs).
   */
  static Map<String, Object> figures(Summary summary) {
    Map<String, Object> doc = new LinkedHashMap<>(summary.document());
    for (String key : List.of("fidelity", "wall_seconds", "time_scale", "faults", "file", "scenario")) doc.remove(key);
    return doc;
  }

  private static String fmt(double v) {
    return Double.isNaN(v) ? "no number" : String.format(Locale.ROOT, "%.4g", v);
  }
}
