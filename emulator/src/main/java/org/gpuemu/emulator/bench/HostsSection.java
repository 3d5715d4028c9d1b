package org.gpuemu.emulator.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Hosts in parallel ({@code fidelity.host-threads}): one scenario of {@value #HOSTS} hosts, each with
 * {@value #VMS_PER_HOST} VMs of {@code sync-loop} on its own GPU (a core per VM, free context switches: the emulated
 * machine never limits the rate), at scale 10 so that the emulator, not the clock, is what the run waits for; run with
 * one causal order for the whole run (0) and with 1, 2 (and, in the full plan, 4) host threads, each count
 * {@code hostsTrials} times in turn. Per count: events handled per wall second (the causal inboxes' count over the wall
 * time the emulated length took), median and range; and whether every run's figures (summary.json without its
 * fidelity block and wall time) are those of the first run with one order.
 */
final class HostsSection {
  static final int HOSTS = 4;
  static final int VMS_PER_HOST = 8;
  static final double SCALE = 10;

  private HostsSection() {}

  /**
   * One thread count.
   *
   * @param hostThreads {@code fidelity.host-threads} (0: one order for the whole run, one dispatcher thread)
   * @param eventsPerWallSecond each trial's events per wall second, in the order run
   * @param median their median
   * @param sameFigures whether every trial's figures equal the reference run's (0 threads, first trial)
   */
  record Row(int hostThreads, List<Double> eventsPerWallSecond, double median, long events, boolean sameFigures,
      long violations) {}

  /**
   * The section's figures.
   *
   * @param scenario the generated scenario's name (its file is under the bench's {@code scenarios/})
   * @param emulatedSeconds emulated length of every run
   * @param rows one per thread count
   */
  record Report(String scenario, int hosts, int vms, double timeScale, double emulatedSeconds, List<Row> rows) {
    /** The median of {@code threads} host threads over that of one host thread; NaN when either did not run. */
    double speedUp(int threads) {
      double one = median(1);
      double n = median(threads);
      return one > 0 && n > 0 ? n / one : Double.NaN;
    }

    double median(int threads) {
      return rows.stream().filter(r -> r.hostThreads() == threads).mapToDouble(Row::median).findFirst().orElse(0);
    }

    boolean allSame() {
      return !rows.isEmpty() && rows.stream().allMatch(Row::sameFigures);
    }
  }

  static Report run(BenchPlan plan, Runs runs, Consumer<String> progress) throws Exception {
    Map<Integer, List<Double>> rates = new LinkedHashMap<>();
    Map<Integer, Boolean> same = new LinkedHashMap<>();
    Map<Integer, Long> events = new LinkedHashMap<>();
    Map<Integer, Long> violations = new LinkedHashMap<>();
    Map<String, Object> reference = null;
    for (int trial = 0; trial < plan.hostsTrials(); trial++) {
      for (int threads : plan.hostThreads()) {
        ScenarioText text = scenario(threads, plan.hostsSeconds()).named("hosts-" + HOSTS + "x" + VMS_PER_HOST
            + "-t" + threads + "-" + (trial + 1));
        Runs.Measured m = runs.run(text, 0, null);
        double ordered = m.number("fidelity", "causality", "events_ordered");
        double rate = ordered / m.runningWallSeconds();
        rates.computeIfAbsent(threads, t -> new ArrayList<>()).add(rate);
        events.put(threads, Math.round(ordered));
        violations.merge(threads, Math.round(m.number("fidelity", "causality", "violations")
            + m.number("fidelity", "causality", "observer_violations")), Long::sum);
        Map<String, Object> figures = figures(m.summary());
        if (reference == null) reference = figures;
        boolean equal = reference.equals(figures) && m.broken().isEmpty();
        same.merge(threads, equal, Boolean::logicalAnd);
        progress.accept(String.format(Locale.ROOT, "hosts: %d host thread(s), trial %d: %,.0f events/wall s "
            + "(%,.0f events)%s", threads, trial + 1, rate, ordered, equal ? "" : ", FIGURES DIFFER"));
      }
    }
    List<Row> rows = new ArrayList<>();
    for (Map.Entry<Integer, List<Double>> e : rates.entrySet()) {
      rows.add(new Row(e.getKey(), List.copyOf(e.getValue()), median(e.getValue()), events.get(e.getKey()),
          same.get(e.getKey()), violations.get(e.getKey())));
    }
    return new Report(scenario(0, plan.hostsSeconds()).name(), HOSTS, HOSTS * VMS_PER_HOST, SCALE,
        plan.hostsSeconds(), rows);
  }

  /** The figures of a run: its summary without what measures the machine. */
  private static Map<String, Object> figures(Map<String, Object> summary) {
    Map<String, Object> doc = new LinkedHashMap<>(summary);
    doc.remove("fidelity");
    doc.remove("wall_seconds");
    doc.remove("file");
    doc.remove("scenario");
    return doc;
  }

  static ScenarioText scenario(int threads, double seconds) {
    ScenarioText text = new ScenarioText("hosts-" + HOSTS + "x" + VMS_PER_HOST, HOSTS + " hosts of " + VMS_PER_HOST
        + " VMs of sync-loop, a core each, free context switches: events per wall second against host threads")
        .scale(SCALE).durationSeconds(seconds)
        .set("gpu.context-switch", "0us")
        .set("fidelity.host-threads", Integer.toString(threads));
    java.util.StringJoiner hosts = new java.util.StringJoiner(", ", "{ ", " }");
    for (int h = 0; h < HOSTS; h++) hosts.add("h" + h + " { cores = " + VMS_PER_HOST + " }");
    text.set("hosts", hosts.toString());
    for (int i = 0; i < HOSTS * VMS_PER_HOST; i++) {
      text.vm("vm" + i, "workload = sync-loop, vcpus = 1, sync-wait = poll, host = h" + (i % HOSTS));
    }
    return text;
  }

  static double median(List<Double> values) {
    double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(v);
    return v.length == 0 ? 0 : v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }
}
