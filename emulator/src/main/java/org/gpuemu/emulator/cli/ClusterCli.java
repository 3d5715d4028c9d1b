package org.gpuemu.emulator.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.cluster.ChildJvms;
import org.gpuemu.emulator.cluster.ClusterRun;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;

/** {@code run SCENARIO --cluster N}: the run on N nodes of this machine (this JVM and N - 1 more). */
final class ClusterCli {
  private ClusterCli() {}

  @SuppressWarnings("unchecked")
  static int run(Settings.Scenario scenario, ClusterRun.Source source, int nodes, Path dir, boolean noReport,
      PrintWriter out, PrintWriter err) throws Exception {
    out.printf("running %s on %d nodes: %d VMs on %d hosts, policy %s, %.1f emulated s at time scale %s -> %s%n",
        scenario.name(), nodes, scenario.vms().size(), scenario.hosts().size(), scenario.gpuPolicy().name(),
        scenario.durationNanos() / 1e9, scenario.timeScale(), dir);
    out.flush();
    ClusterRun.Outcome o = ClusterRun.run(source, scenario, nodes, dir, new ChildJvms(dir, out));
    Map<String, Object> cluster = (Map<String, Object>) o.summary().get("cluster");
    for (Object n : (List<Object>) cluster.get("nodes")) {
      Map<String, Object> node = (Map<String, Object>) n;
      out.printf("node %s: hosts %s, %s VMs, %s events, lag p99 %s ms wall, %s%n", node.get("node"), node.get("hosts"),
          node.get("vms"), node.get("events_ordered"), node.get("lag_wall_ms_p99"),
          Boolean.TRUE.equals(node.get("faithful")) ? "faithful" : "NOT FAITHFUL: " + node.get("reason"));
    }
    for (ClusterRun.Loss l : o.losses()) {
      out.printf("node %s lost (unreachable after %s s, removed after %.1f s of the run, wall): hosts %s restarted on %s "
          + "at %s emulated s, %s requests in flight failed node-lost%n", l.node(),
          l.unreachableAfterMillis() < 0 ? "?" : String.format("%.1f", l.unreachableAfterMillis() / 1e3),
          l.removedAfterMillis() / 1e3, l.hosts().stream().map(h -> scenario.hosts().get(h).name()).toList(),
          l.restartedOn() == null ? "nothing (the run had ended)" : l.restartedOn(), l.restartAtNanos() / 1e9,
          lostRequests(o, l));
    }
    Map<String, Object> inv = (Map<String, Object>) o.summary().get("invariants");
    Map<String, Object> gpu = (Map<String, Object>) o.summary().get("gpu");
    out.printf("gpu utilization %.1f %%, requests %s submitted, %s completed, %s failed (%s node-lost), %s lost%n",
        100 * ((Number) gpu.get("utilization")).doubleValue(), inv.get("requests_submitted"),
        inv.get("requests_completed"), inv.get("requests_failed"), inv.get("requests_node_lost"),
        inv.get("requests_lost"));
    out.println(o.broken().isEmpty() ? "invariants: ok" : "invariants BROKEN: " + String.join("; ", o.broken()));
    if (!o.faithful()) {
      err.println(Main.unfaithfulWarning(String.valueOf(((Map<String, Object>) o.summary().get("fidelity"))
          .get("reason")), true));
    }
    out.println("wrote " + dir.resolve("summary.json") + " and " + dir.resolve("timeline.jsonl"));
    ReportCommand.afterRun(dir, noReport, out, err);
    return o.broken().isEmpty() ? Main.OK : Main.BROKEN;
  }

  @SuppressWarnings("unchecked")
  private static Object lostRequests(ClusterRun.Outcome o, ClusterRun.Loss l) {
    for (Object e : (List<Object>) ((Map<String, Object>) o.summary().get("cluster")).get("node_losses")) {
      Map<String, Object> loss = (Map<String, Object>) e;
      if (loss.get("node").equals(l.node())) return loss.get("requests_failed_node_lost");
    }
    return "?";
  }

  /** The overrides the scenario was loaded with, for each node to load it the same way. */
  static ClusterRun.Source source(Path file, ScenarioLoader.Overrides overrides) {
    return new ClusterRun.Source(file, overrides);
  }
}
