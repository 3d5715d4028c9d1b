package org.gpuemu.workloads;

import java.util.ArrayList;
import java.util.List;

/**
 * The workloads of FairGV (Hong et al., fairgv.txt §5): the twelve benchmarks of Table 3, the matrixMul variants
 * of Figure 11 (background kernels of 21–1,605 µs), the non-GPU-saturating matrixMul of Figure 10 (sleep ratio
 * 50–80 %) and the long matrixMul grids of Table 4 (600×600 and 900×900). Each is an endless {@link StepLoop}:
 * run alone it reproduces the paper's call rates over each iteration, or, for MM, HS and NW (below), over each
 * whole program run.
 *
 * <p>How a Table 3 row becomes an iteration ({@link #derive}). Table 3 gives the mean kernel size k and the
 * asynchronous and synchronous calls per 10 ms, a and s (its total column is a + s, up to rounding). An iteration
 * holds A asynchronous and S synchronous calls with A : S as close to a : s as the smallest integers allow (each
 * rate within 1 %), so it lasts P = (A + S) / (a + s) × 10 ms. Asynchronous calls are kernel launches of size k; but at
 * Table 3's rates the kernels of HG (39.6 × 431 µs = 17 ms per 10 ms), NW (29 ms), SRD1 (11.4 ms), BS (9.9 ms)
 * and CFD (9.9 ms) would need the whole GPU or more, so not every asynchronous call of theirs can be a kernel.
 * Table 3 gives no GPU utilization; we let a VM alone keep the GPU busy at most {@link #GPU_BUSY_MAX} (95 %) of
 * its time (MM, the GPU-saturating benchmark whose rates fit, keeps it 92 % busy): where the kernels would exceed
 * that, there are only as many as fit and the remaining asynchronous calls are transfers. Synchronous calls are
 * transfers (a device-to-host copy after a launch, §3.2.3), each waiting for everything queued before it. A
 * transfer takes {@link #TRANSFER_NANOS} of GPU time. The rest of P is CPU work.
 *
 * <p>The iteration is split into min(A, S) groups; a group is [CPU, its launches, a synchronous call, then (CPU,
 * synchronous call) for each further synchronous call]. CPU work therefore only ever runs while the GPU is idle
 * (every synchronous call drains the GPU before the CPU goes on), so alone an iteration takes exactly its CPU time
 * plus its GPU time, P, and the rates hold by construction. Spreading the CPU work between a group's synchronous
 * calls keeps a non-interactive benchmark's few synchronous calls apart: none of them ever makes more than 10 in a
 * 10 ms window, the interactive classification of §3.2.3.
 *
 * <p>What the rule gives (asynchronous calls, of them kernels, synchronous calls per iteration; the iteration's CPU
 * work and length; the GPU's busy share alone; {@code FairgvWorkloadsTest} checks this table):
 * <pre>
 *   cfd    15 (14)   / 26    0.196 ms of    2.995 ms  93 %   srd1   13 (10)   / 34  0.030 ms of   0.527 ms  94 %
 *   hw      1 (1)    / 14    2.257 ms of   12.472 ms  82 %   bs     16 (15)   / 16  0.403 ms of   6.075 ms  93 %
 *   hs   4251 (4251) / 1   148.830 ms of  714.214 ms  79 %   cs      1 (1)    / 1   0.127 ms of   0.519 ms  75 %
 *   lmd     2 (2)    / 61 6183.225 ms of    10.000 s  38 %   hg     11 (6)    / 11  0.178 ms of   2.780 ms  94 %
 *   nw    140 (45)   / 4    28.625 ms of  525.164 ms  95 %   mm   1341 (1341) / 1  25.524 ms of 303.112 ms  92 %
 *   pf      7 (7)    / 20 2567.265 ms of 2571.429 ms 0.2 %   scan    1 (1)    / 1   0.011 ms of   0.183 ms  94 %
 * </pre>
 * LMD's Table 3 rates (0.002 asynchronous calls per 10 ms: one kernel launch per 5 s) cannot come from a whole
 * number of launches in its 3.4 s run, which is one reason the workloads loop instead of ending after the run time.
 *
 * <p>Where the CPU work of a non-interactive benchmark with more launches than synchronous calls (MM, HS, NW, and
 * Figure 11's matrixMul variants) sits ({@link #streams}). Table 3's rates are averages over a whole run in a VM.
 * MM and HS make one synchronous call per iteration of the rule above, and their iterations per run (run time over
 * the iteration's length: MM 19, HS 11) are exactly their synchronous calls per run (MM 0.033 per 10 ms over
 * 5.8 s = 19, HS 0.014 over 7.8 s = 11; NW, with four per iteration and three iterations per 1.4 s run, makes 12
 * where Table 3 has 10.6): a run's few synchronous calls are its copies around one stream of launches,
 * and its CPU work (MM 0.49 s, HS 1.64 s: reading the input, filling and checking the matrices, writing the output)
 * does not recur every 1,341 launches. The paper also calls matrixMul GPU-saturating (Figure 10 needs "a
 * non-GPU-saturating version of MM"), and §3.2.1's fair queuing "cannot claim resources from its idle period", so a
 * matrixMul that left its vGPU idle every 300 ms could not reach Figure 8's MMR of 0.99 under FairGV. A run of
 * these is therefore its iterations' launches and copies back to back, the GPU-saturating steady state, closed by
 * the run's whole CPU work ({@code steadySteps} of the {@link StepLoop} mark the steady part): alone, a run keeps
 * Table 3's rates exactly (its steady part alone runs faster: MM 9 %, HS 26 %, NW 6 % above them), and a VM
 * measured while the programs run side by side (§5.4.3: "measured when all programs were run concurrently") sees
 * the steady state, whose rate is the solo rate FairGV's MMR normalizes by.
 * We put the CPU work at the run's end rather than its start so that a scenario's first emulated seconds are steady
 * state without a warm-up window (the VMs' runs then drift apart, as repeated runs of the paper's did). The
 * interactive benchmarks keep their CPU work between their synchronous calls, where it makes them interactive.
 */
public final class FairgvWorkloads {
  private static final long MS = 1_000_000L;
  private static final long US = 1_000L;
  /** Table 3 counts calls per 10 ms. */
  private static final long WINDOW_NANOS = 10 * MS;
  /** GPU time of a call that launches no kernel (a copy, a query). Table 3 gives none; 1 µs keeps CFD's 87 copies
   * per 10 ms beside its kernels within one GPU. */
  static final long TRANSFER_NANOS = US;
  /** The largest share of a VM's time alone that its GPU calls keep the GPU busy (see the class comment). */
  static final double GPU_BUSY_MAX = 0.95;
  /** How far the derived asynchronous and synchronous rates may be from Table 3's. */
  static final double RATE_TOLERANCE = 0.01;
  /** How far the derived kernel rate may be from its target (a, or what fits in 95 % of the GPU). */
  static final double KERNEL_RATE_TOLERANCE = 0.02;
  /** Bound of the search for an iteration (HS, at 4,251 launches per synchronous call, needs one unit). */
  private static final int MAX_UNITS = 10_000;

  /** The workload-name prefix of every FairGV workload. */
  public static final String PREFIX = "fairgv-";

  /**
   * One row of fairgv.txt Table 3.
   *
   * @param key          the paper's abbreviation, lower case (workload {@code fairgv-<key>})
   * @param program      the benchmark and its suite (§5.1: BS, CS, HG, MM and SCAN from the CUDA SDK, the rest
   *                     from Rodinia)
   * @param kernelNanos  mean kernel size
   * @param runSeconds   run time in a VM (the paper lengthened every program to about 10 s)
   */
  public record Benchmark(String key, String program, String domain, boolean interactive, long kernelNanos,
      double totalPer10ms, double asyncPer10ms, double syncPer10ms, double runSeconds) {}

  /** fairgv.txt Table 3, in its order. */
  public static final List<Benchmark> TABLE_3 = List.of(
      new Benchmark("cfd", "cfd (Rodinia)", "fluid dynamics", true, 198 * US, 136.891, 49.761, 87.130, 8.0),
      new Benchmark("hw", "heartwall (Rodinia)", "medical imaging", true, 10_201 * US, 12.028, 0.794, 11.233, 1.3),
      new Benchmark("hs", "hotspot (Rodinia)", "physics simulation", false, 133 * US, 59.534, 59.520, 0.014, 7.8),
      new Benchmark("lmd", "lavaMD (Rodinia)", "molecular dynamics", false, 1_908_357 * US, 0.064, 0.002, 0.061,
          3.4),
      new Benchmark("nw", "nw (Rodinia)", "bioinformatics", false, 11_032 * US, 2.743, 2.666, 0.076, 1.4),
      new Benchmark("pf", "pathfinder (Rodinia)", "grid traversal", false, 592 * US, 0.105, 0.027, 0.078, 1.8),
      new Benchmark("srd1", "srad_v1 (Rodinia)", "image processing", true, 46 * US, 891.115, 247.525, 643.589, 9.3),
      new Benchmark("bs", "BlackScholes (CUDA SDK)", "finance processing", true, 377 * US, 52.673, 26.318, 26.355,
          7.6),
      new Benchmark("cs", "convolutionSeparable (CUDA SDK)", "image processing", true, 391 * US, 38.515, 19.223,
          19.281, 5.2),
      new Benchmark("hg", "histogram (CUDA SDK)", "image processing", true, 431 * US, 79.150, 39.561, 39.588, 10.1),
      new Benchmark("mm", "matrixMul (CUDA SDK)", "math processing", false, 207 * US, 44.275, 44.241, 0.033, 5.8),
      new Benchmark("scan", "scan (CUDA SDK)", "array processing", true, 171 * US, 109.462, 54.705, 54.757, 8.8));

  /**
   * Background matrixMul kernel sizes of Figure 11, in µs. The figure's axis runs from 21 to 1,605 µs; its ticks
   * are not in the text, so we take Figure 2's six sizes of the same matrixMul (21, 51, 102, 172, 285, 391 µs),
   * then 792 µs (the geometric mean of 391 and 1,605) and 1,605 µs.
   */
  public static final List<Integer> FIGURE_11_KERNEL_US = List.of(21, 51, 102, 172, 285, 391, 792, 1_605);

  /** Sleep-to-total-time ratios of Figure 10's non-GPU-saturating matrixMul, in percent ("from 50% to 80%"). */
  public static final List<Integer> FIGURE_10_SLEEP_PERCENT = List.of(50, 60, 70, 80);

  /**
   * Figure 10 does not say where the modified matrixMul sleeps; it sleeps after every this many kernels (about
   * 2 ms of GPU work), so that its request ring runs dry several times within one 6 ms slice, which is the
   * situation work conserving (§3.2.2) is about.
   */
  static final int SLEEP_EVERY_KERNELS = 10;

  /**
   * One long matrixMul grid of Table 4: its thread blocks are grid width × height (600 × 600 = 360,000) and its
   * kernel size is the table's (19,506 and 81,030 ms: "about 20 and 80 seconds", §5.5.2).
   */
  public record LongGrid(int side, long kernelNanos) {
    public int threadBlocks() {
      return side * side;
    }
  }

  /** Table 4's two grids. */
  public static final List<LongGrid> TABLE_4 = List.of(new LongGrid(600, 19_506 * MS), new LongGrid(900, 81_030 * MS));

  /**
   * What one iteration holds.
   *
   * @param asyncCalls asynchronous calls, of which {@code kernels} launch a kernel and the rest are transfers
   * @param syncCalls  synchronous calls (transfers)
   * @param cpuNanos   CPU work
   * @param periodNanos how long the iteration takes alone: CPU work plus GPU time
   */
  public record Iteration(int asyncCalls, int kernels, int syncCalls, long cpuNanos, long periodNanos) {}

  private FairgvWorkloads() {}

  /** Every FairGV workload, for the catalog. */
  public static List<Workload> all() {
    List<Workload> all = new ArrayList<>();
    for (Benchmark b : TABLE_3) {
      all.add(program(PREFIX + b.key(), describe(b), b.kernelNanos(), iterationOf(b), streams(b), b.runSeconds()));
    }
    Benchmark mm = benchmark("mm");
    for (int us : FIGURE_11_KERNEL_US) {
      String name = PREFIX + "mm-k" + us;
      all.add(program(name, "FairGV Figure 11 background matrixMul with " + us
          + " us kernels (matrixMul's call mix and GPU share, Table 3)", us * US, mmWithKernel(us * US), streams(mm),
          mm.runSeconds()));
    }
    for (int percent : FIGURE_10_SLEEP_PERCENT) {
      String name = PREFIX + "mm-sleep" + percent;
      all.add(new StepLoop(name, "FairGV Figure 10 non-GPU-saturating matrixMul: sleeps " + percent
          + " % of its time, after every " + SLEEP_EVERY_KERNELS + " kernels", sleepingMm(name, mm, percent / 100.0)));
    }
    for (LongGrid grid : TABLE_4) {
      String name = PREFIX + "mm-" + grid.side();
      all.add(new StepLoop(name, "FairGV Table 4 matrixMul grid " + grid.side() + "x" + grid.side() + ": one "
          + grid.kernelNanos() / MS + " ms kernel of " + grid.threadBlocks() + " thread blocks, then a copy", List.of(
              new Step.LaunchKernel(new KernelSpec(name + "/kernel", KernelType.CD, grid.threadBlocks(),
                  grid.kernelNanos())),
              new Step.SyncCall(KernelSpec.cd(name + "/transfer", TRANSFER_NANOS)))));
    }
    return all;
  }

  /** The Table 3 row with this key. */
  public static Benchmark benchmark(String key) {
    return TABLE_3.stream().filter(b -> b.key().equals(key)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no Table 3 benchmark '" + key + "'"));
  }

  /** The iteration a Table 3 row gives by the rule of the class comment. */
  public static Iteration iterationOf(Benchmark b) {
    return derive(b.kernelNanos(), b.asyncPer10ms(), b.syncPer10ms());
  }

  /**
   * matrixMul with another kernel size (Figure 11 changes it through the input matrices, Figure 2): the same call
   * mix as Table 3's matrixMul and the same share of its time on the GPU, so its call rates scale with
   * 207 µs / kernel size.
   */
  static Iteration mmWithKernel(long kernelNanos) {
    Benchmark mm = benchmark("mm");
    double scale = (double) mm.kernelNanos() / kernelNanos;
    return derive(kernelNanos, mm.asyncPer10ms() * scale, mm.syncPer10ms() * scale);
  }

  /** The smallest iteration whose rates are within tolerance of {@code async} and {@code sync} per 10 ms. */
  static Iteration derive(long kernelNanos, double async, double sync) {
    // K kernels and (async + sync - K) transfers per 10 ms keep the GPU busy K k + (async + sync - K) t
    double fitting = (GPU_BUSY_MAX * WINDOW_NANOS - (async + sync) * TRANSFER_NANOS) / (kernelNanos - TRANSFER_NANOS);
    boolean allKernels = async <= fitting;
    double kernelRate = allKernels ? async : fitting;
    for (int units = 1; units <= MAX_UNITS; units++) {
      int asyncCalls = (int) (async >= sync ? Math.round(units * async / sync) : units);
      int syncCalls = (int) (async >= sync ? units : Math.round(units * sync / async));
      double period = (asyncCalls + syncCalls) * (double) WINDOW_NANOS / (async + sync);
      int kernels = allKernels ? asyncCalls : (int) Math.floor(fitting * period / WINDOW_NANOS);
      long gpu = kernels * kernelNanos + (long) (asyncCalls - kernels + syncCalls) * TRANSFER_NANOS;
      long periodNanos = Math.round(period);
      if (syncCalls < 1 || kernels < 1 || gpu >= periodNanos) continue;
      double per10ms = WINDOW_NANOS / period;
      if (near(asyncCalls * per10ms, async, RATE_TOLERANCE) && near(syncCalls * per10ms, sync, RATE_TOLERANCE)
          && near(kernels * per10ms, kernelRate, KERNEL_RATE_TOLERANCE)) {
        return new Iteration(asyncCalls, kernels, syncCalls, periodNanos - gpu, periodNanos);
      }
    }
    throw new IllegalStateException("no iteration of at most " + MAX_UNITS + " units fits " + async + " async and "
        + sync + " sync calls per 10 ms with " + kernelNanos + " ns kernels");
  }

  /**
   * Whether a benchmark's run is a steady stream of launches closed by its CPU work (see the class comment): not
   * interactive, and more asynchronous than synchronous calls.
   */
  static boolean streams(Benchmark b) {
    return !b.interactive() && b.asyncPer10ms() > b.syncPer10ms();
  }

  /** Iterations per program run: the run time over the iteration's length, at least one. */
  static int iterationsPerRun(Iteration it, double runSeconds) {
    return (int) Math.max(1, Math.round(runSeconds * 1e9 / it.periodNanos()));
  }

  /**
   * The workload of an iteration: the iteration itself, or, for a benchmark that {@link #streams}, one program run
   * of {@link #iterationsPerRun} iterations without their CPU work, then that CPU work in one piece.
   */
  static StepLoop program(String name, String description, long kernelNanos, Iteration it, boolean streams,
      double runSeconds) {
    if (!streams) return new StepLoop(name, description, steps(name, kernelNanos, it));
    int runs = iterationsPerRun(it, runSeconds);
    List<Step> body = steps(name, kernelNanos, new Iteration(it.asyncCalls(), it.kernels(), it.syncCalls(), 0,
        it.periodNanos() - it.cpuNanos()));
    List<Step> run = new ArrayList<>(runs * body.size() + 1);
    for (int i = 0; i < runs; i++) run.addAll(body);
    run.add(new Step.CpuBurst(runs * it.cpuNanos()));
    return new StepLoop(name, description + "; a run: " + runs + " iterations' launches and copies, then their "
        + runs * it.cpuNanos() / MS + " ms of CPU work", run, runs * body.size());
  }

  /** The steps of one iteration, grouped as the class comment describes. */
  static List<Step> steps(String name, long kernelNanos, Iteration it) {
    KernelSpec kernel = KernelSpec.cd(name + "/kernel", kernelNanos);
    KernelSpec transfer = KernelSpec.cd(name + "/transfer", TRANSFER_NANOS);
    int groups = Math.min(it.asyncCalls(), it.syncCalls());
    List<Step> steps = new ArrayList<>();
    int launch = 0;
    for (int g = 0; g < groups; g++) {
      int syncs = (int) share(it.syncCalls(), groups, g);
      long cpu = share(it.cpuNanos(), groups, g);
      for (int j = 0; j < syncs; j++) {
        long piece = share(cpu, syncs, j);
        if (piece > 0) steps.add(new Step.CpuBurst(piece));
        for (int i = 0; j == 0 && i < share(it.asyncCalls(), groups, g); i++, launch++) {
          boolean isKernel = share(it.kernels(), it.asyncCalls(), launch) == 1;
          steps.add(new Step.LaunchKernel(isKernel ? kernel : transfer));
        }
        steps.add(new Step.SyncCall(transfer));
      }
    }
    return steps;
  }

  /**
   * Figure 10's matrixMul: per {@link #SLEEP_EVERY_KERNELS} kernels its own CPU work (matrixMul's CPU time per
   * kernel), the launches, a synchronous copy, then a sleep of {@code ratio} of the whole: sleep / (CPU + GPU +
   * sleep) = ratio, the paper's "sleep to total execution time ratio".
   */
  static List<Step> sleepingMm(String name, Benchmark mm, double ratio) {
    Iteration it = iterationOf(mm);
    long cpu = SLEEP_EVERY_KERNELS * it.cpuNanos() / it.kernels();
    long busy = cpu + SLEEP_EVERY_KERNELS * mm.kernelNanos() + TRANSFER_NANOS;
    long sleep = Math.round(busy * ratio / (1 - ratio));
    KernelSpec kernel = KernelSpec.cd(name + "/kernel", mm.kernelNanos());
    List<Step> steps = new ArrayList<>();
    steps.add(new Step.CpuBurst(cpu));
    for (int i = 0; i < SLEEP_EVERY_KERNELS; i++) steps.add(new Step.LaunchKernel(kernel));
    steps.add(new Step.SyncCall(KernelSpec.cd(name + "/transfer", TRANSFER_NANOS)));
    steps.add(new Step.Sleep(sleep));
    return steps;
  }

  private static String describe(Benchmark b) {
    return String.format(java.util.Locale.ROOT,
        "FairGV Table 3 %s, %s: %d us kernels, %.3f async + %.3f sync calls per 10 ms, %s; %.1f s in a VM",
        b.program(), b.domain(), b.kernelNanos() / US, b.asyncPer10ms(), b.syncPer10ms(),
        b.interactive() ? "CPU-GPU interactive" : "not interactive", b.runSeconds());
  }

  /** Part {@code i} of {@code total} cut into {@code parts} near-equal whole parts (they sum to total). */
  static long share(long total, int parts, int i) {
    return (i + 1) * total / parts - i * total / parts;
  }

  private static boolean near(double value, double target, double tolerance) {
    return Math.abs(value / target - 1) <= tolerance;
  }
}
