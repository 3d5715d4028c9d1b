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
      if (names.contains(f.target()) && f.kind() != FaultPlan.Kind.NODE_CRASH) { // the coordinator's to carry out
        faults.add(new FaultPlan.Fault(faults.size(), f.kind(), f.atNanos(), f.target(), f.healAfterNanos()));
      }
    }
    return new Settings.Scenario(s.name(), s.description(), s.file(), s.timeScale(), s.durationNanos(), s.seed(),
        mine, s.gpu(), s.gpuPolicy(), s.cpuPolicy(), s.memoryPolicy(), s.fidelity(), s.metricsPeriodNanos(), vms,
        s.workloads(), new FaultPlan(faults, s.faults().channel(), s.faults().pressureBytes()), s.placement(), List.of());
  }

  /**
   * The part {@code part} restarted at the run's model time {@code atNanos} after its node's loss, on a clock of its
   * own that starts there: every VM still to run boots again (its program from its start, its seed kept), at its
   * own arrival if that is later; a VM that had left by then is not restarted; faults before then are dropped.
   */
  public static Settings.Scenario restartAt(Settings.Scenario part, long atNanos) {
    List<Settings.Vm> vms = new ArrayList<>();
    for (Settings.Vm vm : part.vms()) {
      long start = vm.startDelayNanos();
      long stop = vm.stopAfterNanos() == Long.MAX_VALUE ? Long.MAX_VALUE : start + vm.stopAfterNanos();
      if (stop <= atNanos) continue;
      long newStart = Math.max(start - atNanos, 0);
      long stays = stop == Long.MAX_VALUE ? Long.MAX_VALUE : stop - atNanos - newStart;
      vms.add(new Settings.Vm(vms.size(), vm.name(), vm.workload(), vm.weight(), vm.cores(), vm.memoryCapBytes(),
          vm.syncWait(), vm.spinLimitNanos(), vm.commandBuffer(), vm.driverQueue(), newStart, stays, vm.slaFps(),
          vm.share(), vm.presentSleep(), vm.presentWait(), vm.host(), vm.gpu(), vm.cpuMilli(), vm.seedIndex()));
    }
    List<FaultPlan.Fault> faults = new ArrayList<>();
    for (FaultPlan.Fault f : part.faults().faults()) {
      if (f.atNanos() >= atNanos) {
        faults.add(new FaultPlan.Fault(faults.size(), f.kind(), f.atNanos() - atNanos, f.target(), f.healAfterNanos()));
      }
    }
    Settings.Scenario s = part;
    return new Settings.Scenario(s.name(), s.description(), s.file(), s.timeScale(), s.durationNanos() - atNanos,
        s.seed(), s.hosts(), s.gpu(), s.gpuPolicy(), s.cpuPolicy(), s.memoryPolicy(), s.fidelity(),
        s.metricsPeriodNanos(), vms, s.workloads(), new FaultPlan(faults, s.faults().channel(), s.faults().pressureBytes()), s.placement(),
        s.rejected());
  }
}
