package org.gpuemu.emulator.cluster;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.report.FairnessFigures;

/**
 * One summary.json and one timeline.jsonl from every node's part of a cluster run. Each node computed its VMs' and
 * hosts' entries exactly as a run of one JVM does (per-VM figures depend only on the VM's own GPU), so those are
 * taken as they are; the totals are added up again from them:
 *
 * <ul>
 *   <li>{@code gpu}: busy time, context switches and their time summed; utilization the mean of the GPUs' (each over
 *       its own node's run and drain); the median kernel the smallest node median (as one JVM takes the smallest
 *       group median);
 *   <li>{@code benchmarks}: instances and ended summed, performance the mean over all instances;
 *   <li>{@code cpu}: cores summed, utilization weighted by cores, context switches summed;
 *   <li>{@code fairness}: computed by the code of one JVM ({@link FairnessFigures}) from the rates every node sent
 *       for its VMs, unrounded, so its figures are those of one JVM;
 *   <li>{@code fidelity}: the least faithful node's block (the first unfaithful one, else the one furthest behind at
 *       p99); each node's verdict is under {@code cluster.nodes};
 *   <li>{@code verdict}: the checker's, the worst node's (invalid, then unknown), with every node's reasons;
 *   <li>{@code invariants}: counts summed, a conservation failure or a broken invariant of any node kept (prefixed
 *       with its node);
 *   <li>{@code timeline.jsonl}: every node's rows, ordered by time and then by the VM's order in the scenario, as one
 *       JVM writes them.
 * </ul>
 */
final class ClusterSummary {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, Object> document;
  private final List<String> broken;
  private final boolean faithful;

  /** How the merged timeline was streamed ({@link TimelineStream}): its rows, the window's peak, rows out of order. */
  record Streamed(long rows, int windowPeakRows, long lateRows) {
    /** The cluster block's {@code timeline} entry. */
    Map<String, Object> entry() {
      Map<String, Object> streaming = new LinkedHashMap<>();
      streaming.put("rows", rows);
      streaming.put("window_peak_rows", windowPeakRows); // the reorder window's most rows at once
      streaming.put("rows_out_of_order", lateRows); // 0 unless the window overflowed
      return streaming;
    }
  }

  private ClusterSummary(Map<String, Object> document, List<String> broken, boolean faithful) {
    this.document = document;
    this.broken = broken;
    this.faithful = faithful;
  }

  Map<String, Object> document() {
    return document;
  }

  List<String> broken() {
    return broken;
  }

  boolean faithful() {
    return faithful;
  }

  void write(Path dir) throws IOException {
    JSON.writerWithDefaultPrettyPrinter().writeValue(dir.resolve("summary.json").toFile(), document);
  }

  @SuppressWarnings("unchecked")
  static ClusterSummary merge(Settings.Scenario s, List<NodeAgent.PartDone> parts, List<ClusterRun.Loss> losses,
      double wallSeconds, Streamed streamed) throws IOException {
    List<String> broken = new ArrayList<>();
    List<Map<String, Object>> docs = new ArrayList<>();
    List<NodeAgent.PartDone> ran = new ArrayList<>();
    for (NodeAgent.PartDone p : parts) {
      if (p.error() != null) {
        broken.add("node " + p.node() + " (hosts " + p.hosts() + "): its part failed: " + p.error());
        continue;
      }
      docs.add(JSON.readValue(p.summaryJson(), new TypeReference<LinkedHashMap<String, Object>>() { }));
      ran.add(p);
    }
    if (docs.isEmpty()) throw new IOException("no node finished its part: " + broken);
    Map<String, Object> out = new LinkedHashMap<>();
    Map<String, Object> first = docs.get(0);
    for (String key : List.of("scenario", "file", "policy", "cpu_policy", "memory_policy", "time_scale")) {
      out.put(key, first.get(key));
    }
    double emulated = 0;
    for (int n = 0; n < docs.size(); n++) {
      emulated = Math.max(emulated, num(docs.get(n), "emulated_seconds") + ran.get(n).restartAtNanos() / 1e9);
    }
    out.put("emulated_seconds", round(emulated, 3));
    out.put("wall_seconds", round(wallSeconds, 3));
    out.put("seed", first.get("seed"));
    Map<String, Object> vms = byName(docs, "vms", s.vms().stream().map(Settings.Vm::name).toList());
    Map<String, Object> hosts = byName(docs, "hosts", s.hosts().stream().map(Settings.Host::name).toList());
    LostParts lost = LostParts.of(s, losses, vms, hosts);
    out.put("vms", vms);
    List<Object> switches = new ArrayList<>();
    for (Map<String, Object> d : docs) switches.addAll((List<Object>) d.get("policy_switches"));
    out.put("policy_switches", switches);
    out.put("gpu", gpu(docs, hosts));
    out.put("cpu", cpu(docs, hosts));
    out.put("hosts", hosts);
    if (first.containsKey("placement")) out.put("placement", first.get("placement"));
    out.put("fairness", fairness(s, ran));
    Map<String, Object> fidelity = leastFaithful(docs);
    out.put("fidelity", fidelity);
    out.put("invariants", invariants(docs, ran, lost, broken));
    Map<String, Object> verdict = verdict(docs, ran);
    if (verdict != null) out.put("verdict", verdict);
    // the faults in the order they struck, as one JVM lists them; the dashboard's controls, each on its VM's node
    List<Object> faults = byTime(docs, "faults", Double.MAX_VALUE);
    if (!faults.isEmpty()) out.put("faults", faults);
    List<Object> controls = byTime(docs, "controls", Double.NaN);
    if (!controls.isEmpty()) out.put("controls", controls);
    Map<String, Object> benchmarks = benchmarks(docs);
    if (!benchmarks.isEmpty()) out.put("benchmarks", benchmarks);
    Map<String, Object> cluster = cluster(ran, docs, s, lost);
    cluster.put("timeline", streamed.entry());
    out.put("cluster", cluster);
    boolean faithful = docs.stream().allMatch(d -> Boolean.TRUE.equals(((Map<String, Object>) d.get("fidelity"))
        .get("faithful")));
    return new ClusterSummary(out, broken, faithful);
  }

  /** The entries of every node's {@code block} ("vms", "hosts"), in the scenario's order of {@code names}. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> byName(List<Map<String, Object>> docs, String block, List<String> names) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (String name : names) {
      for (Map<String, Object> d : docs) {
        Object e = ((Map<String, Object>) d.get(block)).get(name);
        if (e != null) out.put(name, e);
      }
    }
    return out;
  }

  /**
   * Every node's entries of the list {@code key}, ordered by their {@code at_s} (stable: a node's own order kept
   * among equal times); an entry without one sorts as {@code missing}.
   */
  @SuppressWarnings("unchecked")
  private static List<Object> byTime(List<Map<String, Object>> docs, String key, double missing) {
    List<Object> all = new ArrayList<>();
    for (Map<String, Object> d : docs) if (d.containsKey(key)) all.addAll((List<Object>) d.get(key));
    all.sort(Comparator.comparingDouble(e -> {
      Object at = ((Map<String, Object>) e).get("at_s");
      return at == null ? missing : ((Number) at).doubleValue();
    }));
    return all;
  }

  /**
   * The checker's verdict over every node's: invalid if any node's is, else unknown if any is, else valid;
   * each reason prefixed with its node.
   */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> verdict(List<Map<String, Object>> docs, List<NodeAgent.PartDone> ran) {
    String result = null;
    List<String> reasons = new ArrayList<>();
    List<String> rank = List.of("valid", "unknown", "invalid");
    for (int n = 0; n < docs.size(); n++) {
      Map<String, Object> v = (Map<String, Object>) docs.get(n).get("verdict");
      if (v == null) continue;
      String r = String.valueOf(v.get("result"));
      if (result == null || rank.indexOf(r) > rank.indexOf(result)) result = r;
      for (Object reason : (List<Object>) v.getOrDefault("reasons", List.of())) {
        reasons.add("node " + ran.get(n).node() + ": " + reason);
      }
    }
    if (result == null) return null;
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("result", result);
    out.put("reasons", reasons);
    return out;
  }

  /** Each named benchmark over every node's instances: its performance the mean over all of them, as one JVM's. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> benchmarks(List<Map<String, Object>> docs) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (Map<String, Object> d : docs) {
      Map<String, Object> b = (Map<String, Object>) d.get("benchmarks");
      if (b == null) continue;
      b.forEach((name, o) -> {
        Map<String, Object> e = (Map<String, Object>) o;
        Map<String, Object> sum = (Map<String, Object>) out.get(name);
        if (sum == null) {
          out.put(name, new LinkedHashMap<>(e));
          return;
        }
        int n = ((Number) sum.get("instances")).intValue(), m = ((Number) e.get("instances")).intValue();
        sum.put("performance", round((num(sum, "performance") * n + num(e, "performance") * m) / (n + m), 4));
        sum.put("instances", n + m);
        sum.put("ended", ((Number) sum.get("ended")).intValue() + ((Number) e.get("ended")).intValue());
      });
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> gpu(List<Map<String, Object>> docs, Map<String, Object> hosts) {
    double busy = 0, switchMs = 0, util = 0, median = Double.MAX_VALUE;
    long switches = 0;
    int gpus = 0;
    for (Map<String, Object> d : docs) {
      Map<String, Object> g = (Map<String, Object>) d.get("gpu");
      busy += num(g, "busy_ms");
      switches += ((Number) g.get("context_switches")).longValue();
      switchMs += num(g, "context_switch_ms");
      if (num(g, "median_kernel_ms") > 0) median = Math.min(median, num(g, "median_kernel_ms"));
    }
    for (Object h : hosts.values()) {
      for (Map<String, Object> g : (List<Map<String, Object>>) ((Map<String, Object>) h).get("gpus")) {
        util += num(g, "utilization");
        gpus++;
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("utilization", round(gpus > 0 ? util / gpus : 0, 4));
    out.put("busy_ms", round(busy, 3));
    out.put("context_switches", switches);
    out.put("context_switch_ms", round(switchMs, 3));
    out.put("median_kernel_ms", median == Double.MAX_VALUE ? 0.0 : median);
    return out;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> cpu(List<Map<String, Object>> docs, Map<String, Object> hosts) {
    int cores = 0;
    double busy = 0;
    for (Object h : hosts.values()) {
      Map<String, Object> host = (Map<String, Object>) h;
      int c = ((Number) host.get("cores")).intValue();
      cores += c;
      busy += c * num(host, "cpu_utilization");
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("cores", cores);
    out.put("utilization", round(cores > 0 ? busy / cores : 0, 4));
    long coreSwitches = 0; // each node's cores' context switches (its cpu block)
    for (Map<String, Object> d : docs) {
      Object n = ((Map<String, Object>) d.get("cpu")).get("context_switches");
      if (n != null) coreSwitches += ((Number) n).longValue();
    }
    out.put("context_switches", coreSwitches);
    return out;
  }

  /**
   * The fairness block as one JVM computes it ({@link FairnessFigures}), from every node's VMs' unrounded rates in
   * the scenario's VM order; a VM lost with its node and not restarted has none.
   */
  private static Map<String, Object> fairness(Settings.Scenario s, List<NodeAgent.PartDone> ran) {
    Map<String, FairnessFigures.Row> byVm = new HashMap<>();
    for (NodeAgent.PartDone p : ran) for (FairnessFigures.Row row : p.fairness()) byVm.put(row.vm(), row);
    List<FairnessFigures.Row> rows = new ArrayList<>();
    for (Settings.Vm vm : s.vms()) {
      FairnessFigures.Row row = byVm.get(vm.name());
      if (row != null) rows.add(row);
    }
    return JSON.convertValue(FairnessFigures.of(rows, FairnessFigures.bySolo(s)),
        new TypeReference<LinkedHashMap<String, Object>>() { });
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> leastFaithful(List<Map<String, Object>> docs) {
    Map<String, Object> worst = null;
    for (Map<String, Object> d : docs) {
      Map<String, Object> f = (Map<String, Object>) d.get("fidelity");
      if (!Boolean.TRUE.equals(f.get("faithful"))) return f;
      if (worst == null || lagP99(f) > lagP99(worst)) worst = f;
    }
    return worst;
  }

  @SuppressWarnings("unchecked")
  private static double lagP99(Map<String, Object> fidelity) {
    return num((Map<String, Object>) fidelity.get("causality"), "lag_wall_ms_p99");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> invariants(List<Map<String, Object>> docs, List<NodeAgent.PartDone> ran,
      LostParts gone, List<String> broken) {
    long submitted = 0, completed = 0, failed = 0, lost = 0, duplicated = 0, retried = 0, open = 0;
    boolean conserved = true;
    List<Object> reasons = new ArrayList<>();
    for (int n = 0; n < docs.size(); n++) {
      Map<String, Object> inv = (Map<String, Object>) docs.get(n).get("invariants");
      submitted += ((Number) inv.get("requests_submitted")).longValue();
      completed += ((Number) inv.get("requests_completed")).longValue();
      failed += ((Number) inv.get("requests_failed")).longValue();
      lost += ((Number) inv.get("requests_lost")).longValue();
      duplicated += ((Number) inv.get("requests_duplicated")).longValue();
      retried += ((Number) inv.get("requests_retried")).longValue();
      open += ((Number) inv.get("requests_open_at_end")).longValue();
      conserved &= Boolean.TRUE.equals(inv.get("gpu_time_conserved"));
      reasons.addAll((List<Object>) inv.get("failure_reasons"));
      for (Object b : (List<Object>) inv.get("broken")) broken.add("node " + ran.get(n).node() + ": " + b);
    }
    submitted += gone.submitted;
    completed += gone.completed;
    failed += gone.failed + gone.inFlight;
    reasons.addAll(gone.reasons);
    broken.addAll(gone.broken);
    if (submitted != completed + failed + lost + open) {
      broken.add("request accounting: " + submitted + " submitted != " + completed + " completed + " + failed
          + " failed + " + lost + " lost + " + open + " open at the end");
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("requests_submitted", submitted);
    out.put("requests_completed", completed);
    out.put("requests_failed", failed);
    out.put("requests_lost", lost);
    out.put("requests_duplicated", duplicated);
    out.put("requests_retried", retried);
    out.put("requests_open_at_end", open);
    out.put("requests_node_lost", gone.inFlight);
    out.put("gpu_time_conserved", conserved);
    out.put("failure_reasons", reasons.size() > 10 ? reasons.subList(0, 10) : reasons);
    out.put("broken", List.copyOf(broken));
    out.put("ok", broken.isEmpty());
    return out;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> cluster(List<NodeAgent.PartDone> ran, List<Map<String, Object>> docs,
      Settings.Scenario s, LostParts gone) {
    List<Object> nodes = new ArrayList<>();
    for (int n = 0; n < ran.size(); n++) {
      Map<String, Object> f = (Map<String, Object>) docs.get(n).get("fidelity");
      Map<String, Object> c = (Map<String, Object>) f.get("causality");
      Map<String, Object> node = new LinkedHashMap<>();
      node.put("node", ran.get(n).node());
      node.put("hosts", ran.get(n).hosts().stream().map(h -> s.hosts().get(h).name()).toList());
      node.put("restarted_at_s", ran.get(n).restartAtNanos() > 0 ? ran.get(n).restartAtNanos() / 1e9 : null);
      node.put("vms", ((Map<String, Object>) docs.get(n).get("vms")).size());
      node.put("wall_seconds", docs.get(n).get("wall_seconds"));
      node.put("faithful", f.get("faithful"));
      node.put("reason", f.get("reason"));
      node.put("real_time_factor", f.get("real_time_factor"));
      node.put("events_ordered", c.get("events_ordered"));
      node.put("lag_wall_ms_p99", c.get("lag_wall_ms_p99"));
      nodes.add(node);
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("nodes", nodes);
    out.put("node_losses", gone.entries);
    out.put("sharding", "VMs are entities <host>/<vm> of shard <host>; host i runs on node i mod n (node 0 the "
        + "coordinator, the others in address order); a lost node's hosts restart on the survivor with the fewest");
    out.put("serialization", "jackson-cbor");
    return out;
  }

  private static double num(Map<String, Object> m, String key) {
    Object v = m.get(key);
    return v == null ? 0 : ((Number) v).doubleValue();
  }

  static double round(double v, int digits) {
    double f = Math.pow(10, digits);
    return Math.round(v * f) / f;
  }
}
