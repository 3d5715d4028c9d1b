package org.gpuemu.emulator.faults;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.gpuemu.emulator.config.FaultPlan;

/**
 * The run's checker, Jepsen-style: from the history of every guest request ({@link RequestHistory}) and
 * the faults that struck, it checks per VM that nothing was lost (every request settled), nothing was duplicated (no
 * request settled twice, none settled that was never submitted) and every failure is attributed to a fault, and gives
 * the run's verdict. Pure: tested on hand-made histories.
 *
 * <p>Attribution: a request that failed at time t on VM v for reason r is the failure of the latest fault injected at
 * or before t whose kind fails requests with r and that could reach v (its target, or any VM for a fault of a shared
 * actor: {@link FaultPlan.Kind.Scope}). None: unattributed.
 *
 * <p>Verdict: {@code invalid} when a request was duplicated, failed without a fault to explain it, or was lost
 * although the GPU drained; {@code unknown} when requests were still open because the drain timed out (their outcome
 * is indeterminate, Jepsen's {@code :info}) or there is no history; {@code valid} otherwise. Each with its reasons.
 */
public final class Checker {
  private Checker() {}

  /** {@code result}: valid, invalid or unknown; {@code reasons}: why not valid, one line each. */
  public record HistoryVerdict(String result, List<String> reasons) {
    public HistoryVerdict {
      reasons = List.copyOf(reasons);
    }

    public boolean invalid() {
      return result.equals("invalid");
    }
  }

  /**
   * What the checker found: the verdict, requests duplicated (settled twice or never submitted) and lost, the
   * failures each fault caused by reason (by the fault's place in the plan), and the unattributed ones described.
   */
  public record Outcome(HistoryVerdict verdict, long duplicated, long lost,
      Map<Integer, Map<String, Long>> failedByFault, List<String> unattributed) {}

  public static Outcome check(RequestHistory.Snapshot history, List<FaultInjector.Record> faults, boolean drained) {
    Map<Integer, Map<String, Long>> byFault = new LinkedHashMap<>();
    for (FaultInjector.Record r : faults) byFault.put(r.fault().id(), new TreeMap<>());
    Map<String, Map<String, Long>> unexplained = new TreeMap<>();
    for (RequestHistory.Failure f : history.failures()) {
      String vm = history.vms().get(f.vm()).vm();
      FaultInjector.Record cause = causeOf(f, vm, faults);
      if (cause != null) {
        byFault.get(cause.fault().id()).merge(f.reason(), 1L, Long::sum);
      } else {
        unexplained.computeIfAbsent(vm, k -> new TreeMap<>()).merge(f.reason(), 1L, Long::sum);
      }
    }
    List<String> unattributed = new ArrayList<>();
    unexplained.forEach((vm, reasons) -> reasons.forEach((reason, n) -> unattributed.add(String.format(Locale.ROOT,
        "%s: %d requests failed '%s' that no fault explains", vm, n, reason))));
    List<String> invalid = new ArrayList<>(unattributed);
    List<String> unknown = new ArrayList<>();
    for (RequestHistory.VmHistory v : history.vms()) {
      if (v.duplicated() + v.unknown() > 0) {
        invalid.add(String.format(Locale.ROOT, "%s: %d requests settled twice, %d settled never submitted (%s)",
            v.vm(), v.duplicated(), v.unknown(), String.join("; ", v.anomalies())));
      }
      if (v.lost() > 0) {
        (drained ? invalid : unknown).add(String.format(Locale.ROOT, "%s: %d requests %s (%s)", v.vm(), v.lost(),
            drained ? "lost: no outcome although the GPU drained" : "still open when the drain timed out",
            String.join("; ", v.anomalies())));
      }
    }
    if (history.isEmpty()) unknown.add("no request history: the run's requests were counted, not recorded");
    HistoryVerdict verdict = !invalid.isEmpty() ? new HistoryVerdict("invalid", invalid)
        : !unknown.isEmpty() ? new HistoryVerdict("unknown", unknown) : new HistoryVerdict("valid", List.of());
    return new Outcome(verdict, history.duplicated(), history.lost(), byFault, unattributed);
  }

  /** The latest fault, injected at or before the failure, whose kind fails requests so and that reaches its VM. */
  static FaultInjector.Record causeOf(RequestHistory.Failure f, String vm, List<FaultInjector.Record> faults) {
    FaultInjector.Record cause = null;
    for (FaultInjector.Record r : faults) {
      FaultPlan.Kind kind = r.fault().kind();
      if (r.injectedNanos() < 0 || r.injectedNanos() > f.atNanos() || !f.reason().equals(kind.reason())) continue;
      if (kind.scope() == FaultPlan.Kind.Scope.VM && !r.fault().target().equals(vm)) continue;
      if (cause == null || r.injectedNanos() >= cause.injectedNanos()) cause = r;
    }
    return cause;
  }
}
