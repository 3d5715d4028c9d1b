package org.gpuemu.emulator.soak;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The soak's verdict from its samples and its run's end, as plain rules (no JVM, no actors: tested on synthetic
 * samples). A soak is ok unless one of these holds:
 *
 * <ul>
 *   <li><b>heap growth</b>: the heap after GC grew from the second half's first sample to its last by more than
 *       {@code heapGrowthFraction} of the first <i>and</i> more than {@code heapGrowthBytes}. The first half is left
 *       out because a JVM's heap floor rises while it warms up (classes, JIT data, histograms and pools reaching
 *       their working size); the absolute floor keeps a small heap's noise (a few MiB of buffers) from reading as a
 *       leak. Skipped with fewer than two samples in the second half;
 *   <li><b>stall</b>: a VM whose completed count did not move across samples spanning more than the liveness
 *       timeout, while its program ran (its start delay and stop-after are honoured). The samples' spacing bounds
 *       the resolution; the run's own liveness invariant catches shorter stalls and arrives as a broken invariant;
 *   <li><b>lost</b>: a request neither completed nor failed at the end (the summary's {@code requests_lost} plus
 *       those still open), or any invariant the run broke.
 * </ul>
 */
public final class SoakRules {

  /** The thresholds; {@code activeNanos} is each VM's [start, stop) of its program, emulated ns. */
  public record Limits(double heapGrowthFraction, long heapGrowthBytes, long livenessTimeoutNanos,
      Map<String, long[]> activeNanos) {
    public static final double HEAP_GROWTH_FRACTION = 0.10;
    public static final long HEAP_GROWTH_BYTES = 16L << 20;
  }

  /** What the run's end says: requests lost or still open, and the invariants it broke. */
  public record End(long lost, long open, List<String> broken) {}

  /** {@code ok}, or each problem on its own line. */
  public record Verdict(boolean ok, List<String> problems) {
    public Verdict {
      problems = List.copyOf(problems);
    }

    @Override public String toString() {
      return ok ? "ok" : "NOT OK: " + String.join("; ", problems);
    }
  }

  private SoakRules() {}

  /** Judges a soak. */
  public static Verdict judge(List<SoakSample> samples, End end, Limits limits) {
    List<String> problems = new ArrayList<>();
    heap(samples, limits).ifPresent(problems::add);
    problems.addAll(stalls(samples, limits));
    if (end.lost() > 0 || end.open() > 0) {
      problems.add(String.format(Locale.ROOT, "lost: %d requests lost and %d still open at the end", end.lost(),
          end.open()));
    }
    for (String b : end.broken()) problems.add("invariant: " + b);
    return new Verdict(problems.isEmpty(), problems);
  }

  static java.util.Optional<String> heap(List<SoakSample> samples, Limits limits) {
    if (samples.isEmpty()) return java.util.Optional.empty();
    double half = samples.get(samples.size() - 1).tS() / 2;
    List<SoakSample> second = samples.stream().filter(s -> s.tS() >= half).toList();
    if (second.size() < 2) return java.util.Optional.empty();
    long first = second.get(0).heapAfterGcBytes();
    long last = second.get(second.size() - 1).heapAfterGcBytes();
    long growth = last - first;
    if (growth > limits.heapGrowthFraction() * first && growth > limits.heapGrowthBytes()) {
      return java.util.Optional.of(String.format(Locale.ROOT,
          "heap growth: the heap after GC grew from %.1f MiB at %.0f s to %.1f MiB at %.0f s (more than %.0f %% and "
              + "%d MiB)", first / 1048576.0, second.get(0).tS(), last / 1048576.0,
          second.get(second.size() - 1).tS(), limits.heapGrowthFraction() * 100, limits.heapGrowthBytes() >> 20));
    }
    return java.util.Optional.empty();
  }

  static List<String> stalls(List<SoakSample> samples, Limits limits) {
    List<String> problems = new ArrayList<>();
    if (samples.isEmpty()) return problems;
    for (String vm : samples.get(0).completedByVm().keySet()) {
      long[] active = limits.activeNanos().getOrDefault(vm, new long[] {0, Long.MAX_VALUE});
      SoakSample since = null;
      double worst = 0;
      SoakSample worstFrom = null;
      SoakSample worstTo = null;
      for (SoakSample s : samples) {
        long t = Math.round(s.tS() * 1e9);
        if (t < active[0] || t > active[1]) {
          since = null;
          continue;
        }
        long done = s.completedByVm().getOrDefault(vm, 0L);
        if (since == null || done != since.completedByVm().getOrDefault(vm, 0L)) {
          since = s;
          continue;
        }
        double idle = s.tS() - since.tS();
        if (idle > worst) {
          worst = idle;
          worstFrom = since;
          worstTo = s;
        }
      }
      if (worstFrom != null && worst * 1e9 > limits.livenessTimeoutNanos()) {
        problems.add(String.format(Locale.ROOT, "stall: %s completed nothing from %.1f s to %.1f s (more than the "
            + "liveness timeout, %.1f s)", vm, worstFrom.tS(), worstTo.tS(), limits.livenessTimeoutNanos() / 1e9));
      }
    }
    return problems;
  }
}
