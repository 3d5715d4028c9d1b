package org.gpuemu.emulator.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.report.Summary;

/**
 * The rows a comparison of sharing modes adds to {@code compare} (docs/guides/sharing-modes.md): per tenant its
 * frame latency p99 (a game's frame time; an inference service run as a frame loop: its request period or its
 * request's time, whichever is longer), its share of frames over its SLA and its failed requests; then the fault's
 * blast radius: the tenants whose requests failed, how many failed, and the time from the fault until every tenant it
 * took down was served again (the restart's down time plus the first completed call after it).
 */
final class SharingRows {
  private SharingRows() {}

  @SuppressWarnings("unchecked")
  static void add(Map<String, Map<String, Object>> rows, Map<String, Summary> results) {
    for (Map.Entry<String, Summary> e : results.entrySet()) {
      Map<String, Object> doc = e.getValue().document();
      Map<String, Map<String, Object>> vms = (Map<String, Map<String, Object>>) doc.get("vms");
      List<String> hit = new ArrayList<>();
      long failed = 0;
      for (Map.Entry<String, Map<String, Object>> vm : vms.entrySet()) {
        Map<String, Object> latency = (Map<String, Object>) vm.getValue().get("frame_latency_ms");
        row(rows, vm.getKey() + " frame_latency_ms p99").put(e.getKey(), latency == null ? null : latency.get("p99"));
        row(rows, vm.getKey() + " frames_over_sla_pct").put(e.getKey(), vm.getValue().get("frames_over_sla_pct"));
        Object f = vm.getValue().get("requests_failed");
        row(rows, vm.getKey() + " requests_failed").put(e.getKey(), f);
        if (f instanceof Number n && n.longValue() > 0) {
          hit.add(vm.getKey());
          failed += n.longValue();
        }
      }
      row(rows, "fault: tenants whose requests failed").put(e.getKey(), hit.isEmpty() ? "none" : String.join("+", hit));
      row(rows, "fault: requests failed").put(e.getKey(), failed);
      double recover = 0;
      List<Map<String, Object>> faults = (List<Map<String, Object>>) doc.get("faults");
      if (faults != null) {
        for (Map<String, Object> f : faults) {
          Object healed = f.get("healed_at_s");
          Object served = f.get("recovery_s");
          if (healed instanceof Number h && served instanceof Number r) {
            recover = Math.max(recover, h.doubleValue() - ((Number) f.get("at_s")).doubleValue() + r.doubleValue());
          }
        }
      }
      row(rows, "fault: time to recover_s").put(e.getKey(), Math.round(recover * 1000) / 1000.0);
    }
  }

  private static Map<String, Object> row(Map<String, Map<String, Object>> rows, String name) {
    return rows.computeIfAbsent(name, n -> new LinkedHashMap<>());
  }
}
