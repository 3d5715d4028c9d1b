package org.gpuemu.emulator.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.config.Settings;

/**
 * What lost nodes leave in the record: each lost part's VMs as of its last progress report (their requests then in
 * flight fail with {@code node-lost}), a {@code restarts} entry on each VM (and a stand-in entry for a VM or host
 * that was not restarted), and a {@code cluster.node_losses} entry per part.
 */
final class LostParts {
  long submitted;
  long completed;
  long failed;
  long inFlight;
  final List<Object> reasons = new ArrayList<>();
  final List<String> broken = new ArrayList<>();
  final List<Object> entries = new ArrayList<>();

  @SuppressWarnings("unchecked")
  static LostParts of(Settings.Scenario s, List<ClusterRun.Loss> losses, Map<String, Object> vms,
      Map<String, Object> hosts) {
    LostParts out = new LostParts();
    for (ClusterRun.Loss l : losses) {
      List<String> hostNames = l.hosts().stream().map(h -> s.hosts().get(h).name()).toList();
      long lostRequests = 0;
      Map<String, NodeAgent.VmCount> counts = new HashMap<>();
      if (l.last() != null) for (NodeAgent.VmCount c : l.last().vms()) counts.put(c.vm(), c);
      for (Settings.Vm vm : s.vms()) {
        if (!l.hosts().contains(vm.host())) continue;
        NodeAgent.VmCount c = counts.getOrDefault(vm.name(), new NodeAgent.VmCount(vm.name(), 0, 0, 0, 0, 0));
        long open = c.submitted() - c.completed() - c.failed();
        if (open < 0) out.broken.add(vm.name() + " on lost node " + l.node() + ": more requests done than submitted");
        out.submitted += c.submitted();
        out.completed += c.completed();
        out.failed += c.failed();
        out.inFlight += Math.max(open, 0);
        lostRequests += Math.max(open, 0);
        if (open > 0) out.reasons.add(vm.name() + ": " + open + " GPU requests failed: node-lost");
        Map<String, Object> restart = new LinkedHashMap<>();
        restart.put("lost_node", l.node());
        restart.put("reported_at_s", l.last() == null ? null : ClusterSummary.round(l.last().atNanos() / 1e9, 3));
        restart.put("requests_submitted", c.submitted());
        restart.put("requests_completed", c.completed());
        restart.put("requests_failed", c.failed());
        restart.put("requests_failed_node_lost", Math.max(open, 0));
        restart.put("restarted_on", vms.containsKey(vm.name()) ? l.restartedOn() : null);
        restart.put("restarted_at_s", vms.containsKey(vm.name()) ? l.restartAtNanos() / 1e9 : null);
        Map<String, Object> entry = (Map<String, Object>) vms.computeIfAbsent(vm.name(), n -> {
          Map<String, Object> standIn = new LinkedHashMap<>();
          standIn.put("workload", vm.workload());
          standIn.put("weight", vm.weight());
          standIn.put("lost_with_node", l.node());
          return standIn;
        });
        ((List<Object>) entry.computeIfAbsent("restarts", k -> new ArrayList<>())).add(restart);
      }
      for (String h : hostNames) {
        hosts.computeIfAbsent(h, n -> {
          Map<String, Object> standIn = new LinkedHashMap<>();
          standIn.put("lost_with_node", l.node());
          standIn.put("cores", 0);
          standIn.put("gpus", List.of());
          return standIn;
        });
      }
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("node", l.node());
      e.put("hosts", hostNames);
      e.put("last_report_s", l.last() == null ? null : ClusterSummary.round(l.last().atNanos() / 1e9, 3));
      e.put("unreachable_after_wall_s", l.unreachableAfterMillis() < 0 ? null : l.unreachableAfterMillis() / 1e3);
      e.put("removed_after_wall_s", l.removedAfterMillis() / 1e3);
      e.put("restarted_on", l.restartedOn());
      e.put("restarted_at_s", l.restartedOn() == null ? null : l.restartAtNanos() / 1e9);
      e.put("requests_failed_node_lost", lostRequests);
      out.entries.add(e);
    }
    return out;
  }
}
