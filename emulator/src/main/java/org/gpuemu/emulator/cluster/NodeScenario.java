package org.gpuemu.emulator.cluster;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.config.Settings;

/**
 * A node's share of a scenario: the hosts it runs and the VMs placed on them, numbered densely as a scenario's are,
 * each VM keeping its program's seed and its actors' names ({@link Settings.Vm#seedIndex}) so that it runs on the
 * node exactly as in the whole scenario; and the faults that strike those VMs.
 */
public final class NodeScenario {
  private NodeScenario() {}

  /** The part of {@code s} made of its hosts {@code hosts} (indexes into {@code s.hosts()}, in order). */
  public static Settings.Scenario of(Settings.Scenario s, List<Integer> hosts) {
    List<Integer> order = hosts.stream().sorted().toList();
    List<Settings.Host> mine = new ArrayList<>();
    for (int h : order) mine.add(s.hosts().get(h));
    List<Settings.Vm> vms = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (Settings.Vm vm : s.vms()) {
      int at = order.indexOf(vm.host());
      if (at < 0) continue;
      vms.add(vm.onNode(vms.size(), at));
      names.add(vm.name());
    }
    List<FaultPlan.Fault> faults = new ArrayList<>();
    for (FaultPlan.Fault f : s.faults().faults()) {
      if (names.contains(f.target())) {
        faults.add(new FaultPlan.Fault(faults.size(), f.kind(), f.atNanos(), f.target(), f.healAfterNanos()));
      }
    }
    return new Settings.Scenario(s.name(), s.description(), s.file(), s.timeScale(), s.durationNanos(), s.seed(),
        mine, s.gpu(), s.gpuPolicy(), s.cpuPolicy(), s.memoryPolicy(), s.fidelity(), s.metricsPeriodNanos(), vms,
        s.workloads(), new FaultPlan(faults), s.placement(), List.of());
  }
}
