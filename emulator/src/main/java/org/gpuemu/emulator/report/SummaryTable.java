package org.gpuemu.emulator.report;

import java.util.List;
import java.util.Map;

/**
 * The table printed at the end of a run, read from its summary document: one line per VM, the GPU's utilization and
 * fairness, then the fidelity, fault, invariant and checker lines.
 */
final class SummaryTable {
  private SummaryTable() {}

  /** The table of {@code doc}: {@code faithful} its verdict, {@code broken} the invariants it broke. */
  static String of(SummaryDoc doc, boolean faithful, List<String> broken) {
    StringBuilder b = new StringBuilder();
    b.append(String.format("%-14s %-14s %7s %9s %9s %9s %8s %8s %9s%n", "vm", "workload", "fps", "p50 ms", "p99 ms",
        "max ms", ">sla %", "gpu %", "share %"));
    for (Map.Entry<String, SummaryDoc.Vm> e : doc.vms().entrySet()) {
      SummaryDoc.VmFrames f = e.getValue().frames();
      SummaryDoc.VmGpu g = e.getValue().gpu();
      b.append(String.format("%-14s %-14s %7.2f %9.2f %9.2f %9.2f %8.2f %8.1f %9.1f%n", e.getKey(),
          e.getValue().setup().workload(), f.fps(), f.frameLatencyMs().p50(), f.frameLatencyMs().p99(),
          f.frameLatencyMs().max(), f.framesOverSlaPct(), 100 * g.gpuUsage(), 100 * g.gpuShare()));
    }
    SummaryDoc.Fairness fair = doc.fairness();
    b.append(String.format("gpu utilization %.1f %%, fairness mmr %.3f lambda %.3f%n", 100 * doc.gpu().utilization(),
        fair.mmr(), fair.lambda() == null ? Double.NaN : fair.lambda()));
    if (doc.spaceSharing() != null) {
      b.append(String.format("be throughput (Eq. 6, ms of solo kernel time per s) %s, qos violations %s%n",
          doc.spaceSharing().beThroughput(), doc.spaceSharing().qosViolations()));
    }
    if (!doc.policySwitches().isEmpty()) {
      StringBuilder list = new StringBuilder();
      for (SummaryDoc.PolicySwitch sw : doc.policySwitches()) {
        list.append(String.format(" %ss %s->%s", sw.tS(), sw.from(), sw.to()));
      }
      b.append("policy switches:").append(list).append(String.format("%n"));
    }
    return b.append(fidelityLines(doc, faithful, broken)).toString();
  }

  private static String fidelityLines(SummaryDoc doc, boolean faithful, List<String> broken) {
    SummaryDoc.Fidelity fid = doc.fidelity();
    SummaryDoc.Causality order = fid.causality();
    StringBuilder b = new StringBuilder();
    b.append(String.format("causal order (%s): %s events in order, %s violations (max %s us, limit %s us), %s tie "
        + "inversions; lag p50 %s / p99 %s ms wall, %s events beyond the %s ms horizon%n", order.order(),
        order.eventsOrdered(), order.violations(), order.violationUs().max(), order.violationLimitUs(),
        order.tieInversions(), order.lagWallMsP50(), order.lagWallMsP99(), order.eventsBeyondHorizon(),
        order.horizonWallMs()));
    b.append(String.format("timer lateness p50 %s us, p99 %s us, max %s us emulated (reported, not judged)%n",
        fid.timerLatenessUs().p50(), fid.timerLatenessUs().p99(), fid.timerLatenessUs().max()));
    b.append(faithful ? "fidelity: faithful" : "fidelity: NOT FAITHFUL: " + fid.reason()).append(String.format("%n"));
    b.append(String.format("message skew p99 %s us, max %s us (messages handled after a later-stamped event)%n",
        fid.messageSkewUs().p99(), fid.messageSkewUs().max()));
    b.append(FaultTally.lines(doc.faults()));
    b.append(broken.isEmpty() ? "invariants: ok" : "invariants BROKEN: " + String.join("; ", broken));
    b.append(String.format("%nchecker: %s%s", doc.verdict().result(), doc.verdict().reasons().isEmpty() ? ""
        : " (" + String.join("; ", doc.verdict().reasons()) + ")"));
    return b.toString();
  }
}
