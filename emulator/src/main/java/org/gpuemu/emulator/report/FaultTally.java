package org.gpuemu.emulator.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.faults.Checker;
import org.gpuemu.emulator.faults.FaultInjector;
import org.gpuemu.emulator.faults.RequestHistory;
import org.gpuemu.emulator.vm.FailedRequest;
import org.gpuemu.emulator.vm.VGpu;

/**
 * The run's faults in its summary: each fault with its heal, its recovery (from the heal to the target
 * VM's next completed request) and the requests the {@link Checker} attributed to it.
 */
final class FaultTally {
  private FaultTally() {}

  /** One entry per fault, in plan order, with the failures the checker attributed to it. */
  static List<SummaryDoc.Fault> entries(List<FaultInjector.Record> records, Checker.Outcome checked,
      Map<Integer, Long> recoveries) {
    List<SummaryDoc.Fault> entries = new ArrayList<>();
    for (FaultInjector.Record r : records) {
      FaultPlan.Fault f = r.fault();
      entries.add(new SummaryDoc.Fault(f.kind().label(), f.target(), seconds(r.injectedNanos()),
          seconds(r.healedNanos()), r.healedNanos() >= 0 && r.recoveredNanos() >= 0
              ? Summary.round((r.recoveredNanos() - r.healedNanos()) / 1e9, 4) : null,
          recoveries.containsKey(f.id()) ? Summary.round(recoveries.get(f.id()) / 1e6, 1) : null,
          checked.failedByFault().getOrDefault(f.id(), Map.of())));
    }
    return entries;
  }

  /** Every VM's failed GPU requests by reason, one line each (summary.json's failure_reasons). */
  static List<String> reasons(Settings.Scenario scenario, List<VGpu.VgpuReport> vgpus, RequestHistory.Snapshot history) {
    List<String> lines = new ArrayList<>();
    for (Settings.Vm vm : scenario.vms()) {
      Map<String, Long> byReason = new TreeMap<>();
      if (history.isEmpty()) {
        for (FailedRequest q : vgpus.get(vm.index()).failures()) byReason.merge(q.reason(), 1L, Long::sum);
      } else {
        for (RequestHistory.Failure q : history.failures()) {
          if (q.vm() == vm.index()) byReason.merge(q.reason(), 1L, Long::sum);
        }
      }
      byReason.forEach((reason, n) -> lines.add(vm.name() + ": " + n + " GPU requests failed: " + reason));
    }
    return lines;
  }

  /** The verdict's lines: one per fault. */
  static String lines(List<SummaryDoc.Fault> faults) {
    StringBuilder b = new StringBuilder();
    for (SummaryDoc.Fault f : faults) {
      b.append(String.format("fault %s on %s at %s s: healed at %s s, served again %s, steady again %s, failed %s%n",
          f.kind(), f.target(), f.atS() == null ? "-" : f.atS(), f.healedAtS() == null ? "-" : f.healedAtS(),
          f.recoveryS() == null ? "never" : f.recoveryS() + " s after the heal",
          f.recoveryMs() == null ? "not measured" : f.recoveryMs() + " ms after the heal",
          f.requestsFailed().isEmpty() ? "nothing" : f.requestsFailed()));
    }
    return b.toString();
  }

  private static Double seconds(long nanos) {
    return nanos < 0 ? null : Summary.round(nanos / 1e9, 4);
  }
}
