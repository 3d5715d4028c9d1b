package org.gpuemu.emulator.soak;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The soak's verdict from its samples and its run's end, as plain rules (no JVM, no actors: tested on synthetic
 * samples). A soak is ok unless one of these holds:
 *
 * <ul>
 *   <li><b>heap floor</b>: after its first {@code heapSkipNanos} (10 minutes: the JVM's heap floor rises while it
 *       warms up, classes, JIT data, histograms and pools reaching their working size), the heap floor grows faster
 *       than {@code heapSlopeBytesPerHour} (1 MiB per hour). The floor is the lowest heap-after-GC of each window of
 *       {@code floorWindowNanos} (5 minutes: after a young collection the old generation's garbage is still counted,
 *       so the soak requests a full collection before the first sample of each window; the window's lowest sample
 *       is the nearest to the live set), and its slope is the least-
 *       squares line through those floors. Needs three windows (a soak of 25 minutes); shorter soaks get the
 *       second-half rule instead: the heap after GC grew from the second half's first sample to its last by more than
 *       {@code heapGrowthFraction} of the first <i>and</i> more than {@code heapGrowthBytes} (a small heap's noise is
 *       a few MiB of buffers);
 *   <li><b>threads</b>: after the same first {@code heapSkipNanos} (pools start their threads as work first reaches
 *       them), the JVM's live threads in the last third of the samples peak above their peak in the first third (a
 *       pool that grows with the run; the final sample, taken after the actor system stopped, is left out). Shorter
 *       soaks are not judged on threads;
 *   <li><b>unfaithful stretch</b>: consecutive stretches between samples, each unfaithful by the run's own rules
 *       (a causality violation, or more than {@code lagShare} of its events handled beyond the horizon), spanning more
 *       than {@code unfaithfulNanos} (a minute) of emulated time;
 *   <li><b>stall</b>: a VM whose completed count did not move across samples spanning more than the liveness timeout,
 *       while its program ran (its start delay and stop-after are honoured). The samples' spacing bounds the
 *       resolution; the run's own liveness invariant catches shorter stalls and arrives as a broken invariant;
 *   <li><b>lost</b>: a request neither completed nor failed at the end (the summary's {@code requests_lost} plus
 *       those still open), a duplicated one, the checker's verdict invalid, or any invariant the run broke.
 * </ul>
 */
public final class SoakRules {

  /** The thresholds; {@code activeNanos} is each VM's [start, stop) of its program, emulated ns. */
  public record Limits(double heapGrowthFraction, long heapGrowthBytes, long livenessTimeoutNanos,
      Map<String, long[]> activeNanos, long heapSkipNanos, long floorWindowNanos, double heapSlopeBytesPerHour,
      double lagShare, long unfaithfulNanos) {
    public static final double HEAP_GROWTH_FRACTION = 0.10;
    public static final long HEAP_GROWTH_BYTES = 16L << 20;
    public static final long HEAP_SKIP_NANOS = 600_000_000_000L;
    public static final long FLOOR_WINDOW_NANOS = 300_000_000_000L;
    public static final double HEAP_SLOPE_BYTES_PER_HOUR = 1L << 20;
    public static final long UNFAITHFUL_NANOS = 60_000_000_000L;

    /** The limits, with the run's liveness timeout, its VMs' active windows and its lag share. */
    public static Limits of(long livenessTimeoutNanos, Map<String, long[]> activeNanos, double lagShare) {
      return new Limits(HEAP_GROWTH_FRACTION, HEAP_GROWTH_BYTES, livenessTimeoutNanos, activeNanos, HEAP_SKIP_NANOS,
          FLOOR_WINDOW_NANOS, HEAP_SLOPE_BYTES_PER_HOUR, lagShare, UNFAITHFUL_NANOS);
    }
  }

  /** What the run's end says: requests lost or still open, duplicated, and the invariants it broke. */
  public record End(long lost, long open, long duplicated, List<String> broken) {
    public End(long lost, long open, List<String> broken) {
      this(lost, open, 0, broken);
    }
  }

  /** {@code ok}, or each problem on its own line; {@code heapSlopeMibPerHour}: the fitted floor slope (NaN: none). */
  public record SoakVerdict(boolean ok, List<String> problems, double heapSlopeMibPerHour) {
    public SoakVerdict {
      problems = List.copyOf(problems);
    }

    @Override public String toString() {
      return ok ? "ok" : "NOT OK: " + String.join("; ", problems);
    }
  }

  private SoakRules() {}

  /** Judges a soak; the last sample is the run's end (taken after its actor system stopped). */
  public static SoakVerdict judge(List<SoakSample> samples, End end, Limits limits) {
    List<String> problems = new ArrayList<>();
    double slope = heapSlope(samples, limits);
    if (!Double.isNaN(slope)) {
      if (slope > limits.heapSlopeBytesPerHour()) {
        problems.add(String.format(Locale.ROOT, "heap floor: grows %.2f MiB per hour after the first %.0f min "
            + "(more than %.2f MiB per hour)", slope / 1048576.0, limits.heapSkipNanos() / 6e10,
            limits.heapSlopeBytesPerHour() / 1048576.0));
      }
    } else {
      heap(samples, limits).ifPresent(problems::add);
    }
    threads(samples, limits).ifPresent(problems::add);
    unfaithful(samples, limits).ifPresent(problems::add);
    problems.addAll(stalls(samples, limits));
    if (end.lost() > 0 || end.open() > 0) {
      problems.add(String.format(Locale.ROOT, "lost: %d requests lost and %d still open at the end", end.lost(),
          end.open()));
    }
    if (end.duplicated() > 0) problems.add(String.format(Locale.ROOT, "duplicated: %d requests", end.duplicated()));
    for (String b : end.broken()) problems.add("invariant: " + b);
    return new SoakVerdict(problems.isEmpty(), problems, Double.isNaN(slope) ? Double.NaN : slope / 1048576.0);
  }

  /**
   * The least-squares slope, in bytes per hour, of the heap floor (each window's lowest heap-after-GC) after the
   * skipped start; NaN with fewer than three windows. The final sample (after the run) is left out.
   */
  static double heapSlope(List<SoakSample> samples, Limits limits) {
    List<double[]> floors = new ArrayList<>(); // {window middle in hours, floor in bytes}
    double skip = limits.heapSkipNanos() / 1e9;
    double window = limits.floorWindowNanos() / 1e9;
    for (int i = 0; i < samples.size() - 1; i++) {
      SoakSample s = samples.get(i);
      if (s.tS() < skip || s.heapAfterGcBytes() <= 0) continue;
      long w = (long) Math.floor((s.tS() - skip) / window);
      double middle = (skip + (w + 0.5) * window) / 3600;
      if (floors.isEmpty() || floors.get(floors.size() - 1)[0] != middle) {
        floors.add(new double[] {middle, s.heapAfterGcBytes()});
      } else {
        double[] f = floors.get(floors.size() - 1);
        f[1] = Math.min(f[1], s.heapAfterGcBytes());
      }
    }
    if (floors.size() < 3) return Double.NaN;
    double mx = 0, my = 0;
    for (double[] f : floors) {
      mx += f[0];
      my += f[1];
    }
    mx /= floors.size();
    my /= floors.size();
    double sxy = 0, sxx = 0;
    for (double[] f : floors) {
      sxy += (f[0] - mx) * (f[1] - my);
      sxx += (f[0] - mx) * (f[0] - mx);
    }
    return sxx == 0 ? Double.NaN : sxy / sxx;
  }

  static Optional<String> heap(List<SoakSample> samples, Limits limits) {
    if (samples.isEmpty()) return Optional.empty();
    double half = samples.get(samples.size() - 1).tS() / 2;
    List<SoakSample> second = samples.stream().filter(s -> s.tS() >= half).toList();
    if (second.size() < 2) return Optional.empty();
    long first = second.get(0).heapAfterGcBytes();
    long last = second.get(second.size() - 1).heapAfterGcBytes();
    long growth = last - first;
    if (growth > limits.heapGrowthFraction() * first && growth > limits.heapGrowthBytes()) {
      return Optional.of(String.format(Locale.ROOT,
          "heap growth: the heap after GC grew from %.1f MiB at %.0f s to %.1f MiB at %.0f s (more than %.0f %% and "
              + "%d MiB)", first / 1048576.0, second.get(0).tS(), last / 1048576.0,
          second.get(second.size() - 1).tS(), limits.heapGrowthFraction() * 100, limits.heapGrowthBytes() >> 20));
    }
    return Optional.empty();
  }

  /**
   * Threads peaking higher in the last third of the samples after the warm-up (the final one left out) than in the
   * first third. The warm-up is left out as for the heap: pools start their threads as work first reaches them (Pekko's
   * blocking-IO dispatcher, a fixed pool of 16, went from 3 to 16 threads in the first seconds of a run here), which is
   * a pool reaching its size, not a leak. Fewer than three samples after it: not judged.
   */
  static Optional<String> threads(List<SoakSample> samples, Limits limits) {
    List<SoakSample> after = new ArrayList<>();
    for (int i = 0; i < samples.size() - 1; i++) {
      if (samples.get(i).tS() * 1e9 >= limits.heapSkipNanos()) after.add(samples.get(i));
    }
    int n = after.size();
    if (n < 3) return Optional.empty();
    int third = n / 3;
    int early = 0, late = 0;
    for (int i = 0; i < third; i++) early = Math.max(early, after.get(i).threads());
    for (int i = n - third; i < n; i++) late = Math.max(late, after.get(i).threads());
    if (late <= early) return Optional.empty();
    return Optional.of(String.format(Locale.ROOT, "threads: up to %d live threads in the last third of the samples, "
        + "against at most %d in the first third", late, early));
  }

  /** The longest run of consecutive unfaithful stretches between samples, if longer than the limit. */
  static Optional<String> unfaithful(List<SoakSample> samples, Limits limits) {
    double longest = 0, from = 0, start = -1, worstFrom = 0, worstTo = 0;
    for (int i = 1; i < samples.size(); i++) {
      SoakSample a = samples.get(i - 1);
      SoakSample b = samples.get(i);
      long ordered = b.eventsOrdered() - a.eventsOrdered();
      long beyond = b.eventsBeyondHorizon() - a.eventsBeyondHorizon();
      boolean bad = b.violations() > a.violations() || ordered > 0 && beyond > limits.lagShare() * ordered;
      if (!bad) {
        start = -1;
        continue;
      }
      if (start < 0) {
        start = a.tS();
        from = a.tS();
      }
      if (b.tS() - start > longest) {
        longest = b.tS() - start;
        worstFrom = from;
        worstTo = b.tS();
      }
    }
    if (longest * 1e9 <= limits.unfaithfulNanos()) return Optional.empty();
    return Optional.of(String.format(Locale.ROOT, "unfaithful: from %.0f s to %.0f s every stretch between samples "
        + "broke the fidelity rules (more than %.0f s)", worstFrom, worstTo, limits.unfaithfulNanos() / 1e9));
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
