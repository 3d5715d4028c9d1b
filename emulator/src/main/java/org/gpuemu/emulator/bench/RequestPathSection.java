package org.gpuemu.emulator.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Emulated synchronous GPU requests per wall second through the whole path (vCPU → vGPU → GPU scheduler → SM
 * group → completion → vGPU → vCPU), with 1, 8 and 64 VMs of the {@code sync-loop} workload (1 µs of CPU, one
 * 10 µs synchronous call). Each VM gets its own core and the GPU's context switch costs nothing, so that the
 * emulated machine never limits the rate: at scale 1 the guests ask for far more than the actors deliver
 * (8 VMs could do 100,000 a second on the one GPU), and scale 10 shows the path's capacity when timers are
 * no longer what the requests wait for.
 */
final class RequestPathSection {
  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();

  private RequestPathSection() {}

  /**
   * One run.
   *
   * @param requests synchronous requests completed
   * @param requestsPerWallSecond requests over the wall time the VMs ran (emulated length / time scale)
   * @param gpuUtilization the emulated GPU's busy fraction
   * @param latenessP50Us timer lateness of the run, emulated µs
   * @param latenessP99Us ditto, p99
   * @param invariants "ok" or what broke
   * @param eventsPerRequest stamped messages and timers the actors handled per request (the causal inboxes' count)
   * @param cpuMicrosPerRequest the JVM's CPU time per request, µs (the whole run: start-up and drain included)
   * @param allocatedBytesPerRequest bytes allocated by all threads per request (likewise)
   */
  record Row(int vms, double timeScale, double emulatedSeconds, long requests, double requestsPerWallSecond,
      double gpuUtilization, long latenessP50Us, long latenessP99Us, String invariants, double eventsPerRequest,
      double cpuMicrosPerRequest, double allocatedBytesPerRequest) {}

  /**
   * The section's figures.
   *
   * @param workload the guest program
   * @param rows one per VM count and time scale
   */
  record Report(String workload, List<Row> rows) {
    /** The best rate measured with this many VMs, at any scale; 0 when none ran. */
    double bestRate(int vms) {
      return rows.stream().filter(r -> r.vms() == vms).mapToDouble(Row::requestsPerWallSecond).max().orElse(0);
    }
  }

  static Report run(BenchPlan plan, Runs runs, Consumer<String> progress) throws Exception {
    List<Row> rows = new ArrayList<>();
    for (int vms : plan.pathVms()) {
      for (double scale : plan.pathScales()) {
        ScenarioText text = scenario(vms, scale, plan.pathWallSeconds() * scale);
        long cpuBefore = OS.getProcessCpuTime();
        long allocatedBefore = THREADS.getTotalThreadAllocatedBytes();
        Runs.Measured m = runs.run(text, 0, null);
        double cpu = OS.getProcessCpuTime() - cpuBefore;
        double allocated = THREADS.getTotalThreadAllocatedBytes() - allocatedBefore;
        long requests = Math.round(m.number("invariants", "requests_completed"));
        double events = m.number("fidelity", "causality", "events_ordered")
            + m.number("fidelity", "causality", "violations") + m.number("fidelity", "causality", "tie_inversions");
        double per = Math.max(1, requests);
        Row row = new Row(vms, scale, m.number("emulated_seconds"), requests, requests / m.runningWallSeconds(),
            m.number("gpu", "utilization"), m.lateness().p50(), m.lateness().p99(),
            m.broken().isEmpty() ? "ok" : String.join("; ", m.broken()), events / per, cpu / 1e3 / per,
            allocated / per);
        rows.add(row);
        progress.accept(String.format(Locale.ROOT,
            "path: %d VM(s) at scale %s: %,.0f requests/wall s (GPU %.0f %%, lateness p50 %,d p99 %,d us; per "
                + "request %.1f events, %.1f us CPU, %,.0f bytes)%s", vms,
            fmt(scale), row.requestsPerWallSecond(), 100 * row.gpuUtilization(), row.latenessP50Us(),
            row.latenessP99Us(), row.eventsPerRequest(), row.cpuMicrosPerRequest(), row.allocatedBytesPerRequest(),
            m.broken().isEmpty() ? "" : " invariants: " + row.invariants()));
      }
    }
    return new Report("sync-loop", rows);
  }

  static ScenarioText scenario(int vms, double scale, double seconds) {
    return new ScenarioText("path-" + vms + "vm-x" + fmt(scale),
        vms + " VMs of sync-loop, a core each, free context switches: the request path's throughput")
        .scale(scale).durationSeconds(seconds)
        .set("host.cores", Integer.toString(vms))
        .set("gpu.context-switch", "0us")
        .vms("vm", vms, "workload = sync-loop, vcpus = 1, sync-wait = poll");
  }

  static String fmt(double scale) {
    return scale == Math.rint(scale) ? Long.toString((long) scale) : Double.toString(scale);
  }
}
