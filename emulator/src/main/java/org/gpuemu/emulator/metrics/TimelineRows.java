package org.gpuemu.emulator.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The timeline's rows of one metrics period (docs/guides/output-files.md: timeline.jsonl), from the hub's store. */
final class TimelineRows {
  private TimelineRows() {}

  /**
   * One row per VM for the period that ends at {@code end}; the period's counts start again, the live view and the
   * fault windows ({@link FaultPeriods}) move on.
   */
  static List<Map<String, Object>> period(MetricsStore h, List<MetricsHub.VmInfo> vms, long end) {
    List<Map<String, Object>> rows = new ArrayList<>();
    double seconds = (end - h.periodStart) / 1e9;
    // over the VMs of each GPU, which share it (many hosts): its busy time and λ
    int[] gpuOf = vms.stream().mapToInt(MetricsHub.VmInfo::gpu).toArray();
    Map<Integer, Long> totals = PerGpu.busy(gpuOf, h.periodBusy);
    Map<Integer, Double> lambdas = PerGpu.lambdas(gpuOf, h.weights, h.frames, h.periodFrames, h.periodKernels);
    List<String> marks = h.faults == null ? null : h.faults.period(end, measure(h, vms.size(), seconds));
    for (int v = 0; v < vms.size(); v++) {
      long total = totals.get(gpuOf[v]);
      Double lambda = lambdas.get(gpuOf[v]);
      h.liveFps[v] = seconds > 0 ? h.periodFrames[v] / seconds : 0;
      if (end - h.periodStart == h.periodNanos) {
        // a whole period (not the run's last, cut short): its FPS widens the VM's range
        h.fpsMin[v] = Double.isNaN(h.fpsMin[v]) ? h.liveFps[v] : Math.min(h.fpsMin[v], h.liveFps[v]);
        h.fpsMax[v] = Double.isNaN(h.fpsMax[v]) ? h.liveFps[v] : Math.max(h.fpsMax[v], h.liveFps[v]);
      }
      h.liveShare[v] = total > 0 ? (double) h.periodBusy[v] / total : 0;
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("t_s", round(end / 1e9, 3));
      row.put("vm", vms.get(v).name());
      row.put("fps", round(h.liveFps[v], 2));
      row.put("frames", h.periodFrames[v]);
      row.put("gpu_share", round(h.liveShare[v], 4));
      row.put("gpu_busy_ms", round(h.periodBusy[v] / 1e6, 3));
      double usage = seconds > 0 ? h.periodBusy[v] / 1e9 / seconds : 0;
      row.put("gpu_usage", round(usage, 4));
      row.put("mode", h.mode);
      row.put("memory_mb", round(h.memory[v] / 1048576.0, 1));
      row.put("lambda", lambda == null ? null : round(lambda, 4));
      if (marks != null) row.put("faults", marks);
      if (h.slots.containsKey(v)) row.put("memory_slots", h.slots.get(v));
      if (h.profile != null) {
        row.put("w", round(h.profile.w(), 3));
        row.put("rcopy", round(h.profile.rcopy(), 3));
        row.put("f", round(h.profile.f(), 4));
      }
      rows.add(row);
      h.usage.period(v, usage);
      h.periodFrames[v] = 0;
      h.periodBusy[v] = 0;
      h.periodKernels[v] = 0;
    }
    h.periodStart = end;
    return rows;
  }

  /** Each VM's measure for its recovery ({@link FaultPeriods}): FPS when it presents frames, else GPU ms. */
  private static double[] measure(MetricsStore h, int vms, double seconds) {
    double[] m = new double[vms];
    for (int v = 0; v < m.length; v++) {
      m[v] = h.frames[v] > 0 ? (seconds > 0 ? h.periodFrames[v] / seconds : 0) : h.periodBusy[v] / 1e6;
    }
    return m;
  }

  static double round(double v, int digits) {
    double f = Math.pow(10, digits);
    return Math.round(v * f) / f;
  }
}
