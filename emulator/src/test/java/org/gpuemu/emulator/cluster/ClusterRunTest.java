package org.gpuemu.emulator.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.emulator.run.Runner;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three nodes (separate actor systems on different loopback ports in this JVM) run the three-hosts scenario: each
 * host's shard goes to its own node, and since no model message crosses nodes and each node orders its own events
 * exactly, every VM's and host's figures and every timeline row of the run's periods are those of the same scenario
 * run in one JVM.
 */
@Tag("slow")
class ClusterRunTest {
  private static final Path FILE = Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios", "cluster",
      "three-hosts.conf");
  /** As fast as the machine goes (the figures do not depend on the time scale). */
  private static final ScenarioLoader.Overrides FAST = new ScenarioLoader.Overrides(1000.0, 3_000_000_000L, null,
      Map.of());

  @Test
  @SuppressWarnings("unchecked")
  void threeNodes_hostsSpreadOverThem_andEveryVmRunsAsInOneJvm(@TempDir Path dir) throws Exception {
    Settings.Scenario s = ScenarioLoader.load(FILE, FAST);
    ClusterRun.Outcome cluster;
    try (InJvmNodes nodes = new InJvmNodes()) {
      cluster = ClusterRun.run(new ClusterRun.Source(FILE, FAST), s, 3, dir.resolve("cluster"),
          ClusterRun.Plan.of(nodes));
    }
    assertTrue(cluster.broken().isEmpty(), cluster.broken().toString());
    assertEquals(List.of("a", "b", "c"), List.copyOf(cluster.hostNodes().keySet()));
    assertEquals(3, new HashSet<>(cluster.hostNodes().values()).size(), "host i on node i mod 3: " + cluster.hostNodes());
    Map<String, Object> doc = cluster.summary();
    assertEquals(List.of("a", "b", "c"), List.copyOf(((Map<String, Object>) doc.get("hosts")).keySet()));
    assertEquals(3, ((List<?>) ((Map<String, Object>) doc.get("cluster")).get("nodes")).size());

    Summary single = new Summary(Runner.run(s, dir.resolve("single"), Runner.Options.every(500)));
    Map<String, Object> one = new ObjectMapper().readValue(new ObjectMapper().writeValueAsString(single.doc()),
        Map.class);
    assertEquals(one.get("vms"), doc.get("vms"), "every VM's figures, as in one JVM");
    assertEquals(one.get("hosts"), doc.get("hosts"), "every host's figures, as in one JVM");
    // the fairness block is computed by one JVM's code from the nodes' unrounded rates: the same figures, the
    // cuda-loop VMs' lambda_by_workload among them
    assertEquals(one.get("fairness"), doc.get("fairness"), "the fairness figures, as in one JVM");
    Set<String> oneKeys = keyPaths("", one);
    Set<String> clusterKeys = keyPaths("", doc);
    clusterKeys.removeIf(k -> k.startsWith("cluster")); // the cluster's own block
    clusterKeys.remove("invariants.requests_node_lost");
    oneKeys.remove("fidelity.progress"); // one JVM's live progress line over wall time; a node runs without one
    Set<String> onlyOne = new TreeSet<>(oneKeys);
    onlyOne.removeAll(clusterKeys);
    Set<String> onlyCluster = new TreeSet<>(clusterKeys);
    onlyCluster.removeAll(oneKeys);
    assertEquals(Set.of(), onlyOne, "keys of one JVM's summary the cluster's lacks");
    assertEquals(Set.of(), onlyCluster, "keys of the cluster's summary one JVM's lacks");
    Map<String, Object> inv = (Map<String, Object>) doc.get("invariants");
    Map<String, Object> invOne = (Map<String, Object>) one.get("invariants");
    for (String k : List.of("requests_submitted", "requests_completed", "requests_failed", "requests_lost")) {
      assertEquals(((Number) invOne.get(k)).longValue(), ((Number) inv.get(k)).longValue(), k);
    }
    // every row of the run's periods, row for row; the last, short row of each VM ends with the drain, which a
    // node ends when its own GPUs have drained (one JVM: when every GPU has)
    List<String> oneRows = Files.readAllLines(dir.resolve("single/timeline.jsonl"));
    List<String> rows = Files.readAllLines(dir.resolve("cluster/timeline.jsonl"));
    assertEquals(oneRows.size(), rows.size());
    java.util.function.Predicate<String> drain = r -> r.matches(".*\"t_s\":3\\.0\\d+,.*"); // after the 3 s end
    assertEquals(oneRows.stream().filter(drain.negate()).toList(), rows.stream().filter(drain.negate()).toList(),
        "the timeline of the run, row for row");
    assertEquals(s.vms().size(), rows.stream().filter(drain).count(), "one drain row per VM");
  }

  /** Every key of the document's objects, dotted (lists' entries are not walked: their keys are the entries'). */
  @SuppressWarnings("unchecked")
  private static Set<String> keyPaths(String prefix, Map<String, Object> doc) {
    Set<String> out = new HashSet<>();
    doc.forEach((k, v) -> {
      out.add(prefix + k);
      if (v instanceof Map<?, ?> m) out.addAll(keyPaths(prefix + k + ".", (Map<String, Object>) m));
    });
    return out;
  }
}
