package org.gpuemu.emulator.metrics;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The run's fault windows as the timeline sees them, and each fault's time to recover, measured on the
 * timeline's own periods. Pure: the {@link MetricsHub} feeds it each fault's beginning and end and each period's
 * per-VM measure.
 *
 * <p>The measure is each VM's own throughput over a period: its FPS when it presents frames (VGRIS's SLAs, COMBO's
 * game, gBalloon's 3D benchmarks; VMCG's λ is built from them), else its GPU time (what FCFS, round robin, FairGV's
 * fair shares and COMBO's BE throughput divide). A VM's steady state is its mean over the window of periods that
 * ended before the fault struck. The fault has recovered from the start of the first window of periods, starting no earlier than the period of its heal, in which every VM that had a steady state is back within
 * {@link #TOLERANCE} of it, on the window's mean (a window, not one period: one frame more or less is 5 % of a 20 FPS
 * period). Recovery time: from the heal to that window's start (0 when the period of the heal already belongs to
 * one), so its resolution is the metrics period; null when the run ended first, or when there were fewer than
 * a window's length of periods before the fault. Memory: a window of periods and the faults not yet
 * recovered, whatever the run's length.
 */
final class FaultPeriods {
  /**
   * How long a steady state is averaged over: 3 s. One frame more or less in it must stay well under the tolerance
   * for the slowest game here (3DMark05 GT2, about 18.6 FPS under contention: 1 / (18.6 × 3 s) = 1.8 %, against
   * 5 %); a window of the metrics period alone would read a frame's jitter as a fault's effect.
   */
  static final long WINDOW_NANOS = 3_000_000_000L;
  /** Back within this fraction of the steady state. */
  static final double TOLERANCE = 0.05;

  private record Fault(int id, String label, long atNanos, double[] steady) {}

  private final int vms;
  /** Periods in a window: {@link #WINDOW_NANOS} of the metrics period, at least one. */
  private final int window;
  /** The last periods' measures, newest last, with each period's end. */
  private final ArrayDeque<double[]> recent = new ArrayDeque<>();
  private final ArrayDeque<Long> recentEnds = new ArrayDeque<>();
  /** The end of the period before the window's oldest (its start, when the window is one period). */
  private long lastBefore;
  /** Labels of the faults active now, by fault. */
  private final Map<Integer, String> active = new TreeMap<>();
  /** Labels of the faults active at some time in the current period. */
  private final TreeSet<String> inPeriod = new TreeSet<>();
  /** Faults healed and not yet recovered, with their heal time. */
  private final Map<Fault, long[]> healed = new LinkedHashMap<>(); // {heal, start of the heal's period}
  private final Map<Integer, Fault> struck = new TreeMap<>();
  private final Map<Integer, Long> recoveredAt = new TreeMap<>();

  FaultPeriods(int vms, long periodNanos) {
    this.vms = vms;
    this.window = (int) Math.max(1, (WINDOW_NANOS + periodNanos - 1) / periodNanos);
  }

  /** Fault {@code id} ({@code label}) began at {@code atNanos}: its steady state is the last periods'. */
  void began(int id, String label, long atNanos) {
    active.put(id, label);
    inPeriod.add(label);
    double[] steady = null;
    if (recent.size() >= window) steady = mean(new ArrayList<>(recent), recent.size() - window);
    struck.put(id, new Fault(id, label, atNanos, steady));
  }

  /** Fault {@code id} healed at {@code atNanos}: from here its recovery is watched. */
  void ended(int id, long atNanos) {
    active.remove(id);
    Fault f = struck.remove(id);
    long periodStart = recentEnds.isEmpty() ? 0 : recentEnds.peekLast();
    if (f != null && f.steady() != null) healed.put(f, new long[] {atNanos, periodStart});
  }

  /**
   * A period ended at {@code endNanos} with each VM's measure: returns the faults active in it (their labels, for the
   * timeline) and checks the healed faults' recovery.
   */
  List<String> period(long endNanos, double[] measure) {
    List<String> marks = List.copyOf(inPeriod);
    inPeriod.clear();
    inPeriod.addAll(active.values());
    recent.addLast(measure.clone());
    recentEnds.addLast(endNanos);
    while (recent.size() > window) {
      recent.removeFirst();
      lastBefore = recentEnds.removeFirst();
    }
    if (recent.size() < window) return marks;
    double[] now = mean(new ArrayList<>(recent), 0);
    long windowStart = windowStart();
    for (var it = healed.entrySet().iterator(); it.hasNext(); ) {
      var e = it.next();
      long heal = e.getValue()[0];
      if (windowStart < e.getValue()[1] || !within(now, e.getKey().steady())) continue;
      recoveredAt.put(e.getKey().id(), Math.max(0, windowStart - heal));
      it.remove();
    }
    return marks;
  }

  /** Where the window's oldest period began (periods are of equal length but the run's last). */
  private long windowStart() {
    var it = recentEnds.iterator();
    long first = it.next();
    return it.hasNext() ? first - (it.next() - first) : lastBefore;
  }

  private static boolean within(double[] now, double[] steady) {
    for (int v = 0; v < steady.length; v++) {
      if (steady[v] <= 0) continue; // nothing to come back to (not started, or stopped)
      if (Math.abs(now[v] - steady[v]) > TOLERANCE * steady[v]) return false;
    }
    return true;
  }

  private double[] mean(List<double[]> periods, int from) {
    double[] m = new double[vms];
    int n = periods.size() - from;
    for (int i = from; i < periods.size(); i++) for (int v = 0; v < vms; v++) m[v] += periods.get(i)[v] / n;
    return m;
  }

  /** Each fault's time from its heal until the VMs' measure was back within the tolerance, by fault; ns. */
  Map<Integer, Long> recoveries() {
    return Map.copyOf(recoveredAt);
  }
}
