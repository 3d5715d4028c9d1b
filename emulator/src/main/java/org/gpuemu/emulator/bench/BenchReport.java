package org.gpuemu.emulator.bench;

import java.util.List;
import java.util.Map;

/**
 * Everything one bench run measured: the content of {@code bench.json} (written with snake_case keys). A section
 * that was not asked for is null; one that failed is null and has its reason in {@code errors}.
 *
 * @param plan "quick" or "full"
 * @param started when the bench started (ISO-8601, local time)
 * @param wallSeconds how long the bench took
 * @param hostScale the scale search against hosts and threads (not part of a plain bench: null unless {@code
 *     --only} names it)
 * @param fidelity the fidelity section (not part of a plain bench: null unless {@code --only} names it)
 * @param goals the performance goals, each with its measured figure
 * @param errors section key to why it could not be measured
 */
record BenchReport(String plan, Machine machine, String started, double wallSeconds,
    TimerSection.Report timerLateness, RequestPathSection.Report requestPath, ScaleSection.Report scale,
    FastForwardSection.Report fastForward, OverheadSection.Report overhead, HostsSection.Report hosts,
    HostScaleSection.Report hostScale, FidelitySection.Report fidelity, List<Goal> goals, Map<String, String> errors) {

  /**
   * Where the figures were measured.
   *
   * @param cores processors the JVM sees
   * @param gc the garbage collectors in use
   * @param maxHeapMb the heap limit, MiB
   * @param jvmArgs the JVM's arguments (GC and heap flags, -D overrides)
   */
  record Machine(int cores, String java, String vm, List<String> gc, long maxHeapMb, List<String> jvmArgs) {}

  /**
   * A performance goal and what the bench measured for it.
   *
   * @param goal what is measured
   * @param target the figure
   * @param measured the bench's figure, in words
   * @param met whether it was met; null when not measured
   * @param note what else to know (the condition, a second figure)
   */
  record Goal(String goal, String target, String measured, Boolean met, String note) {}
}
