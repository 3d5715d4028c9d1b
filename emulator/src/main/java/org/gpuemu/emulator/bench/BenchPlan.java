package org.gpuemu.emulator.bench;

import java.util.List;

/**
 * How much the bench measures: {@link #quick()} (CI; under 3 minutes on 2 cores) or {@link #full()} (the figures
 * docs/performance.md records). Durations are emulated seconds unless named wall.
 *
 * @param name "quick" or "full"
 * @param timerCounts concurrent timers (one per probe actor) of the lateness section
 * @param timerRoundsPerThousand successive timers each probe actor arms, for 1,000 actors (fewer per actor for
 *     more actors, at least 2), so that every count fires a comparable number of timers
 * @param timerWarmUps unrecorded warm-up measurements of each scheduler (the first condition only: the JIT is warm
 *     for the others)
 * @param timerTrials interleaved trials per scheduler and condition; the table shows their median
 * @param floorSamples samples of each operating-system floor measurement (parkNanos lateness, wake-up latency)
 * @param loadWarmUpWallSeconds how long the load scenario runs before the probes start
 * @param pathVms VM counts of the request path section
 * @param pathScales time scales of the request path section (1: as runs go; higher: the path's capacity)
 * @param pathWallSeconds wall time of each request path run
 * @param scaleStartVms first VM count of the scale search (then doubling, then bisection)
 * @param scaleMaxVms largest VM count the scale search tries
 * @param scaleRefineSteps bisection steps between the last faithful and the first unfaithful count
 * @param scaleSeconds emulated (= wall, at scale 1) length of each scale run
 * @param scaleWarmUpSeconds emulated time before a run's steady-state lateness window opens
 * @param scaleBudgetWallSeconds the search starts no new run after this much wall time
 * @param heapIdleVms the two idle-VM counts whose heap difference gives the heap per idle VM
 * @param fastForwardSeconds emulated length of every fast forward run (the scale 0.1 reference takes ten times it)
 * @param fastForwardScales time scales compared with the scale 0.1 reference, ascending
 * @param overheadWorkloads workloads run alone against their analytic ideal
 * @param overheadScales time scales of the overhead section
 * @param overheadWallSeconds wall time of each overhead run...
 * @param overheadMinSeconds ...but at least this much emulated time (slow motion would give too few events)
 * @param fidelityFraction the share of {@link #fidelitySeconds}'s full-length rule a fidelity run lasts (1: full,
 *     0.5: quick)
 * @param hostThreads the host-thread counts of the hosts section (0: one order for the whole run)
 * @param hostsSeconds emulated length of every hosts run (at scale 10)
 * @param hostsTrials runs of each host-thread count, interleaved
 * @param fidelityWarmUpWallSeconds wall time of the throw-away run of each scenario before its fidelity runs (what
 *     {@code run --warm-up} does), so that the verdicts are not those of a cold JIT; 0: none
 */
public record BenchPlan(String name, List<Integer> timerCounts, int timerRoundsPerThousand, int timerWarmUps,
    int timerTrials, int floorSamples, double loadWarmUpWallSeconds, List<Integer> pathVms, List<Double> pathScales,
    double pathWallSeconds, int scaleStartVms, int scaleMaxVms, int scaleRefineSteps, double scaleSeconds,
    double scaleWarmUpSeconds, double scaleBudgetWallSeconds, List<Integer> heapIdleVms, double fastForwardSeconds,
    List<Double> fastForwardScales, List<String> overheadWorkloads, List<Double> overheadScales,
    double overheadWallSeconds, double overheadMinSeconds, double fidelityFraction, double fidelityWarmUpWallSeconds,
    List<Integer> hostThreads, double hostsSeconds, int hostsTrials) {
  /** Longest emulated time of a fidelity run (full plan). */
  static final double FIDELITY_MAX_SECONDS = 3;
  /** Longest wall time of a fidelity run at the file's own scale (full plan). */
  static final double FIDELITY_MAX_WALL_SECONDS = 6;
  /** Shortest emulated time of a fidelity run (full plan), unless the file itself is shorter. */
  static final double FIDELITY_MIN_SECONDS = 0.5;

  public BenchPlan {
    timerCounts = List.copyOf(timerCounts);
    pathVms = List.copyOf(pathVms);
    pathScales = List.copyOf(pathScales);
    heapIdleVms = List.copyOf(heapIdleVms);
    fastForwardScales = List.copyOf(fastForwardScales);
    overheadWorkloads = List.copyOf(overheadWorkloads);
    overheadScales = List.copyOf(overheadScales);
    hostThreads = List.copyOf(hostThreads);
    if (!(fidelityFraction > 0 && fidelityFraction <= 1)) {
      throw new IllegalArgumentException("fidelityFraction must be in (0, 1]: " + fidelityFraction);
    }
    if (heapIdleVms.size() != 2 || heapIdleVms.get(0) >= heapIdleVms.get(1)) {
      throw new IllegalArgumentException("heapIdleVms needs two ascending counts: " + heapIdleVms);
    }
  }

  /** Short runs, fewer points and trials: about two minutes here. */
  public static BenchPlan quick() {
    return new BenchPlan("quick", List.of(100, 1_000, 10_000), 5, 3, 3, 1_500, 1.5, List.of(1, 8, 64),
        List.of(1.0, 10.0),
        2.0, 1, 2_048, 2, 2.5, 0.75, 50, List.of(100, 600), 1.5, List.of(1.0, 2.0, 4.0, 8.0),
        List.of("cuda-loop", "postprocess"), List.of(0.1, 1.0, 10.0), 2.0, 0.5, 0.5, 0.5, List.of(0, 1, 2), 0.2, 1);
  }

  /** Longer runs, interleaved trials: the figures docs/performance.md records (about ten minutes on 2 cores). */
  public static BenchPlan full() {
    return new BenchPlan("full", List.of(100, 1_000, 10_000), 10, 4, 7, 5_000, 3.0, List.of(1, 8, 64),
        List.of(1.0, 10.0),
        6.0, 1, 4_096, 4, 10.0, 3.0, 360, List.of(200, 2_200), 10.0,
        List.of(1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0),
        List.of("cuda-loop", "postprocess"), List.of(0.1, 1.0, 10.0), 8.0, 3.0, 1.0, 1.0, List.of(0, 1, 2, 4), 0.5, 3);
  }

  /** Timers each probe actor arms when {@code timers} actors run at once. */
  public int timerRounds(int timers) {
    return Math.max(2, (int) Math.round(timerRoundsPerThousand * 1_000.0 / timers));
  }

  /**
   * Emulated length of both fidelity runs of a scenario file (the one at its own scale and the slower reference):
   * in the full plan the file's length, but at most {@value #FIDELITY_MAX_SECONDS} s and at most
   * {@value #FIDELITY_MAX_WALL_SECONDS} wall seconds at the file's scale, and at least {@value #FIDELITY_MIN_SECONDS}
   * s unless the file is shorter (a run never outlasts its file); the quick plan's runs are half that.
   */
  public double fidelitySeconds(double fileSeconds, double fileScale) {
    double full = Math.min(fileSeconds, Math.min(FIDELITY_MAX_SECONDS, FIDELITY_MAX_WALL_SECONDS * fileScale));
    return fidelityFraction * Math.max(full, Math.min(FIDELITY_MIN_SECONDS, fileSeconds));
  }

  /** Emulated length of an overhead run at the given scale. */
  public double overheadSeconds(double scale) {
    return Math.max(overheadMinSeconds, overheadWallSeconds * scale);
  }
}
