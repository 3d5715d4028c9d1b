package org.gpuemu.emulator.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.faults.FaultInjector;
import org.gpuemu.emulator.vm.FailedRequest;
import org.gpuemu.emulator.vm.VGpu;

/**
 * The checker's view of a run's faults (issue 18): each fault with its heal, its recovery (from the heal to the
 * target VM's next completed request) and the requests it failed; and every failed request attributed to a fault.
 */
final class FaultTally {
  private FaultTally() {}

  /** One entry per fault, in plan order. */
  static List<SummaryDoc.Fault> entries(List<FaultInjector.Record> records, Settings.Scenario scenario,
      List<VGpu.VgpuReport> vgpus) {
    List<SummaryDoc.Fault> entries = new ArrayList<>();
    for (FaultInjector.Record r : records) {
      FaultPlan.Fault f = r.fault();
      Map<String, Long> failed = new TreeMap<>();
      for (FailedRequest q : vgpus.get(vmIndex(scenario, f.target())).failures()) {
        if (causedBy(q, r, records)) failed.merge(q.reason(), 1L, Long::sum);
      }
      entries.add(new SummaryDoc.Fault(f.kind().label(), f.target(), seconds(r.injectedNanos()),
          seconds(r.healedNanos()), r.healedNanos() >= 0 && r.recoveredNanos() >= 0
              ? Summary.round((r.recoveredNanos() - r.healedNanos()) / 1e9, 4) : null, failed));
    }
    return entries;
  }

  /**
   * Whether fault {@code r} failed request {@code q}: its reason is the fault's kind's, on its VM, at or after it
   * struck and before a later fault of the same kind on the same VM struck.
   */
  private static boolean causedBy(FailedRequest q, FaultInjector.Record r, List<FaultInjector.Record> all) {
    FaultPlan.Fault f = r.fault();
    if (r.injectedNanos() < 0 || !q.reason().equals(f.kind().reason()) || q.atNanos() < r.injectedNanos()) return false;
    for (FaultInjector.Record later : all) {
      FaultPlan.Fault g = later.fault();
      if (g.kind() == f.kind() && g.target().equals(f.target()) && later.injectedNanos() > r.injectedNanos()
          && q.atNanos() >= later.injectedNanos()) {
        return false;
      }
    }
    return true;
  }

  /** Failed requests no fault explains (a checker finding), one line each, e.g. "vm2: 3 failed 'gpu-reset'". */
  static List<String> unattributed(List<SummaryDoc.Fault> faults, Settings.Scenario scenario,
      List<VGpu.VgpuReport> vgpus) {
    List<String> lines = new ArrayList<>();
    for (Settings.Vm vm : scenario.vms()) {
      Map<String, Long> byReason = new TreeMap<>();
      for (FailedRequest q : vgpus.get(vm.index()).failures()) byReason.merge(q.reason(), 1L, Long::sum);
      for (SummaryDoc.Fault f : faults) {
        if (!f.target().equals(vm.name())) continue;
        f.requestsFailed().forEach((reason, n) -> byReason.merge(reason, -n, Long::sum));
      }
      byReason.forEach((reason, n) -> {
        if (n > 0) lines.add(vm.name() + ": " + n + " requests failed '" + reason + "' that no fault explains");
      });
    }
    return lines;
  }

  /** Every VM's failed GPU requests by reason, one line each (summary.json's failure_reasons). */
  static List<String> reasons(Settings.Scenario scenario, List<VGpu.VgpuReport> vgpus) {
    List<String> lines = new ArrayList<>();
    for (Settings.Vm vm : scenario.vms()) {
      Map<String, Long> byReason = new TreeMap<>();
      for (FailedRequest q : vgpus.get(vm.index()).failures()) byReason.merge(q.reason(), 1L, Long::sum);
      byReason.forEach((reason, n) -> lines.add(vm.name() + ": " + n + " GPU requests failed: " + reason));
    }
    return lines;
  }

  /** The verdict's lines: one per fault. */
  static String lines(List<SummaryDoc.Fault> faults) {
    StringBuilder b = new StringBuilder();
    for (SummaryDoc.Fault f : faults) {
      b.append(String.format("fault %s on %s at %s s: healed at %s s, recovered %s, failed %s%n", f.kind(),
          f.target(), f.atS() == null ? "-" : f.atS(), f.healedAtS() == null ? "-" : f.healedAtS(),
          f.recoveryS() == null ? "never" : f.recoveryS() + " s after the heal",
          f.requestsFailed().isEmpty() ? "nothing" : f.requestsFailed()));
    }
    return b.toString();
  }

  private static int vmIndex(Settings.Scenario scenario, String name) {
    for (Settings.Vm vm : scenario.vms()) if (vm.name().equals(name)) return vm.index();
    throw new IllegalArgumentException("no VM " + name);
  }

  private static Double seconds(long nanos) {
    return nanos < 0 ? null : Summary.round(nanos / 1e9, 4);
  }
}
