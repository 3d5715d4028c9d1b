package org.gpuemu.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class FairgvWorkloadsTest {
  private static final long US = 1_000;
  private static final long MS = 1_000_000;
  private static final long WINDOW = 10 * MS;
  /** The tolerance the brief asks for: each benchmark alone within 10 % of Table 3's call rates. */
  private static final double TABLE_3_TOLERANCE = 0.10;

  static Stream<FairgvWorkloads.Benchmark> table3() {
    return FairgvWorkloads.TABLE_3.stream();
  }

  /**
   * One VM alone: one vCPU that never waits for a core, one GPU running requests in arrival order. A launch
   * returns at once; a synchronous call returns when the GPU has finished everything queued before it and itself.
   */
  private static final class Alone {
    final List<Long> asyncAt = new ArrayList<>();
    final List<Long> syncAt = new ArrayList<>();
    final List<Long> kernelNanos = new ArrayList<>();
    long now;
    long gpuFree;
    long gpuBusy;
    long slept;

    /** Runs {@code iterations} whole iterations of the workload's program. */
    static Alone run(String workload, int iterations) {
      StepLoop loop = (StepLoop) WorkloadCatalog.get(workload);
      Program program = loop.start(1);
      Alone a = new Alone();
      for (long i = 0; i < (long) iterations * loop.iteration().size(); i++) {
        a.execute(program.next(a.now));
      }
      return a;
    }

    /** Whole iterations that span at least {@code nanos}. */
    static Alone spanning(String workload, long nanos) {
      int iterations = 1;
      Alone a = run(workload, 1);
      if (a.now < nanos) {
        iterations = (int) ((nanos + a.now - 1) / a.now);
        a = run(workload, iterations);
      }
      return a;
    }

    private void execute(Step step) {
      if (step instanceof Step.CpuBurst b) {
        now += b.nanos();
      } else if (step instanceof Step.Sleep z) {
        now += z.nanos();
        slept += z.nanos();
      } else if (step instanceof Step.LaunchKernel l) {
        asyncAt.add(now);
        kernelNanos.add(l.kernel().soloNanos());
        gpu(l.kernel());
      } else if (step instanceof Step.SyncCall c) {
        syncAt.add(now);
        gpu(c.kernel());
        now = gpuFree;
      } else {
        throw new AssertionError("a FairGV workload issued " + step);
      }
    }

    private void gpu(KernelSpec k) {
      gpuFree = Math.max(gpuFree, now) + k.soloNanos();
      gpuBusy += k.soloNanos();
    }

    double per10ms(List<Long> calls) {
      return calls.size() * (double) WINDOW / now;
    }

    /** The most synchronous calls issued in any 10 ms window. */
    int maxSyncIn10ms() {
      int max = 0;
      for (int first = 0, last = 0; last < syncAt.size(); last++) {
        while (syncAt.get(last) - syncAt.get(first) >= WINDOW) first++;
        max = Math.max(max, last - first + 1);
      }
      return max;
    }
  }

  private static void assertNear(double expected, double actual, double tolerance, String what) {
    assertTrue(Math.abs(actual / expected - 1) <= tolerance,
        what + ": expected " + expected + " within " + tolerance * 100 + " %, got " + actual);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("table3")
  void table3_eachBenchmarkAlone_reproducesItsCallRatesWithin10Percent(FairgvWorkloads.Benchmark b) {
    Alone alone = Alone.spanning("fairgv-" + b.key(), WINDOW);

    assertNear(b.asyncPer10ms(), alone.per10ms(alone.asyncAt), TABLE_3_TOLERANCE, b.key() + " async calls per 10 ms");
    assertNear(b.syncPer10ms(), alone.per10ms(alone.syncAt), TABLE_3_TOLERANCE, b.key() + " sync calls per 10 ms");
    double total = (alone.asyncAt.size() + alone.syncAt.size()) * (double) WINDOW / alone.now;
    assertNear(b.totalPer10ms(), total, TABLE_3_TOLERANCE, b.key() + " calls per 10 ms");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("table3")
  void table3_interactive_isMoreThan10SyncCallsPer10ms_asTable3Classifies(FairgvWorkloads.Benchmark b) {
    Alone alone = Alone.spanning("fairgv-" + b.key(), WINDOW);
    // §3.2.3 and §5.1: more than 10 synchronous calls per 10 ms makes a program CPU-GPU interactive.
    assertEquals(b.interactive(), alone.per10ms(alone.syncAt) > 10, b.key());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("table3")
  void table3_nonInteractiveBenchmarks_neverMakeMoreThan10SyncCallsInAny10msWindow(FairgvWorkloads.Benchmark b) {
    if (b.interactive()) return;
    // Two whole iterations, so windows across an iteration boundary are seen too.
    Alone alone = Alone.run("fairgv-" + b.key(), 2);
    assertTrue(alone.maxSyncIn10ms() <= 10, b.key() + " made " + alone.maxSyncIn10ms() + " in one window");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("table3")
  void table3_kernelsHaveTheTableKernelSize_andTheGpuIsAtMost95PercentBusy(FairgvWorkloads.Benchmark b) {
    Alone alone = Alone.spanning("fairgv-" + b.key(), WINDOW);
    long kernels = alone.kernelNanos.stream().filter(n -> n == b.kernelNanos()).count();
    long transfers = alone.kernelNanos.stream().filter(n -> n == FairgvWorkloads.TRANSFER_NANOS).count();
    assertTrue(kernels > 0, b.key() + " launched no kernel of " + b.kernelNanos() + " ns");
    assertEquals(alone.kernelNanos.size(), kernels + transfers, b.key() + ": every launch is a kernel or a transfer");
    assertTrue(alone.gpuBusy <= 0.95 * alone.now, b.key() + " kept the GPU busy " + alone.gpuBusy + " of " + alone.now);
  }

  @Test
  void table3_derivedIterations_areTheOnesTheClassCommentDocuments() {
    // asyncCalls, kernels, syncCalls, CPU ns, period ns: the table in FairgvWorkloads' Javadoc.
    Map<String, List<Long>> documented = new TreeMap<>(Map.ofEntries(
        Map.entry("cfd", List.of(15L, 14L, 26L, 196_084L, 2_995_084L)),
        Map.entry("hw", List.of(1L, 1L, 14L, 2_256_938L, 12_471_938L)),
        Map.entry("hs", List.of(4251L, 4251L, 1L, 148_829_727L, 714_213_727L)),
        Map.entry("lmd", List.of(2L, 2L, 61L, 6_183_225_000L, 10_000_000_000L)),
        Map.entry("nw", List.of(140L, 45L, 4L, 28_625_114L, 525_164_114L)),
        Map.entry("pf", List.of(7L, 7L, 20L, 2_567_264_571L, 2_571_428_571L)),
        Map.entry("srd1", List.of(13L, 10L, 34L, 30_430L, 527_430L)),
        Map.entry("bs", List.of(16L, 15L, 16L, 403_219L, 6_075_219L)),
        Map.entry("cs", List.of(1L, 1L, 1L, 127_427L, 519_427L)),
        Map.entry("hg", List.of(11L, 6L, 11L, 177_568L, 2_779_568L)),
        Map.entry("mm", List.of(1341L, 1341L, 1L, 25_524_436L, 303_112_436L)),
        Map.entry("scan", List.of(1L, 1L, 1L, 10_712L, 182_712L))));
    Map<String, List<Long>> derived = new TreeMap<>();
    for (FairgvWorkloads.Benchmark b : FairgvWorkloads.TABLE_3) {
      FairgvWorkloads.Iteration it = FairgvWorkloads.iterationOf(b);
      derived.put(b.key(), List.of((long) it.asyncCalls(), (long) it.kernels(), (long) it.syncCalls(), it.cpuNanos(),
          it.periodNanos()));
    }
    assertEquals(documented, derived);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("table3")
  void table3_oneIterationAlone_takesItsDerivedPeriod(FairgvWorkloads.Benchmark b) {
    // CPU work never overlaps GPU work, so one iteration alone lasts exactly CPU + GPU = the derived period; a
    // streaming benchmark's loop is a run of several
    FairgvWorkloads.Iteration it = FairgvWorkloads.iterationOf(b);
    int iterations = FairgvWorkloads.streams(b) ? FairgvWorkloads.iterationsPerRun(it, b.runSeconds()) : 1;
    assertEquals(iterations * it.periodNanos(), Alone.run("fairgv-" + b.key(), 1).now, b.key());
  }

  @Test
  void streamingBenchmarks_areMmHsAndNw_withTable3sSyncCallsPerRun_andASaturatingSteadyState() {
    List<String> streaming = FairgvWorkloads.TABLE_3.stream().filter(FairgvWorkloads::streams)
        .map(FairgvWorkloads.Benchmark::key).toList();
    assertEquals(List.of("hs", "nw", "mm"), streaming);
    // iterations per run: HS 7.8 s / 0.714 s, NW 1.4 s / 0.525 s, MM 5.8 s / 0.303 s
    assertEquals(List.of(11, 3, 19), streaming.stream().map(key -> FairgvWorkloads.iterationsPerRun(
        FairgvWorkloads.iterationOf(FairgvWorkloads.benchmark(key)), FairgvWorkloads.benchmark(key).runSeconds()))
        .toList());
    for (String key : streaming) {
      FairgvWorkloads.Benchmark b = FairgvWorkloads.benchmark(key);
      StepLoop loop = (StepLoop) WorkloadCatalog.get("fairgv-" + key);
      // a run holds Table 3's synchronous calls over its run time (MM 0.033 x 580 = 19, HS 11, NW 10.6), up to the
      // rounding of the run to whole iterations (NW's has 4)
      long syncs = loop.iteration().stream().filter(st -> st instanceof Step.SyncCall).count();
      assertTrue(Math.abs(syncs - b.syncPer10ms() * b.runSeconds() * 100)
          <= FairgvWorkloads.iterationOf(b).syncCalls(), key + ": " + syncs);
      // the steady state: launches and copies only, then the run's CPU work in one piece
      List<Step> steady = loop.iteration().subList(0, loop.steadySteps());
      assertTrue(steady.stream().noneMatch(st -> st instanceof Step.CpuBurst), key);
      assertEquals(List.of(new Step.CpuBurst(FairgvWorkloads.iterationsPerRun(FairgvWorkloads.iterationOf(b),
          b.runSeconds()) * FairgvWorkloads.iterationOf(b).cpuNanos())),
          loop.iteration().subList(loop.steadySteps(), loop.iteration().size()), key);
      // its solo rate is the steady state's, which keeps the GPU busy but for the copies' round trips
      long gpu = steady.stream().mapToLong(st -> st instanceof Step.LaunchKernel l ? l.kernel().soloNanos()
          : ((Step.SyncCall) st).kernel().soloNanos()).sum();
      assertEquals(steady.size() * 1e9 / gpu, loop.soloRequestsPerSecond().getAsDouble(), 1e-6, key);
    }
  }

  @Test
  void figure11_mmVariants_spanKernelSizes21To1605us_withMatrixMulsGpuShare() {
    Alone mm = Alone.spanning("fairgv-mm", WINDOW);
    double mmBusy = (double) mm.gpuBusy / mm.now;
    List<Long> sizes = new ArrayList<>();
    for (int us : FairgvWorkloads.FIGURE_11_KERNEL_US) {
      Alone variant = Alone.spanning("fairgv-mm-k" + us, WINDOW);
      assertEquals(us * US, variant.kernelNanos.get(0), "mm-k" + us + " kernel size");
      sizes.add(variant.kernelNanos.get(0));
      assertNear(mmBusy, (double) variant.gpuBusy / variant.now, 0.01, "mm-k" + us + " GPU share");
      // Same call mix: the rates scale with 207 us / kernel size.
      assertNear(44.241 * 207 / us, variant.per10ms(variant.asyncAt), TABLE_3_TOLERANCE, "mm-k" + us + " async rate");
      assertTrue(variant.per10ms(variant.syncAt) <= 10, "mm-k" + us + " must stay non-interactive");
    }
    assertEquals(21 * US, sizes.get(0));
    assertEquals(1_605 * US, sizes.get(sizes.size() - 1));
  }

  @Test
  void figure10_sleepingMm_sleepsItsRatioOfTheTime_andStaysNonInteractive() {
    Alone saturating = Alone.spanning("fairgv-mm", WINDOW);
    for (int percent : List.of(50, 60, 70, 80)) {
      Alone sleeping = Alone.spanning("fairgv-mm-sleep" + percent, 100 * MS);
      assertNear(percent / 100.0, (double) sleeping.slept / sleeping.now, 0.001, "sleep ratio of mm-sleep" + percent);
      assertTrue(sleeping.per10ms(sleeping.syncAt) <= 10, "mm-sleep" + percent + " must stay non-interactive");
      double busy = (double) sleeping.gpuBusy / sleeping.now;
      double expectedBusy = (1 - percent / 100.0) * saturating.gpuBusy / saturating.now;
      assertNear(expectedBusy, busy, 0.01, "mm-sleep" + percent + " keeps what is not sleep as busy as matrixMul");
    }
  }

  @Test
  void table4_longGrids_launchOneKernelOfTheTablesBlocksAndSize() {
    Map<String, KernelSpec> kernels = new TreeMap<>();
    for (String name : List.of("fairgv-mm-600", "fairgv-mm-900")) {
      StepLoop loop = (StepLoop) WorkloadCatalog.get(name);
      kernels.put(name, ((Step.LaunchKernel) loop.iteration().get(0)).kernel());
      assertTrue(loop.iteration().get(1) instanceof Step.SyncCall, name + " copies the result back");
    }
    assertEquals(360_000, kernels.get("fairgv-mm-600").threadBlocks());
    assertEquals(19_506 * MS, kernels.get("fairgv-mm-600").soloNanos());
    assertEquals(810_000, kernels.get("fairgv-mm-900").threadBlocks());
    assertEquals(81_030 * MS, kernels.get("fairgv-mm-900").soloNanos());
  }

  @Test
  void catalog_registersEveryFairgvWorkload() {
    List<String> names = WorkloadCatalog.all().keySet().stream().filter(n -> n.startsWith("fairgv-")).toList();
    // 12 benchmarks of Table 3, 8 background sizes of Figure 11, 4 sleep ratios of Figure 10, 2 grids of Table 4.
    assertEquals(26, names.size(), names.toString());
    for (FairgvWorkloads.Benchmark b : FairgvWorkloads.TABLE_3) {
      assertTrue(WorkloadCatalog.contains("fairgv-" + b.key()), b.key());
      assertFalse(WorkloadCatalog.get("fairgv-" + b.key()).description().isBlank());
    }
  }

  @Test
  void stepLoop_repeatsItsIterationForEver_andRefusesAnEmptyOne() {
    Step cpu = new Step.CpuBurst(1);
    Step sync = new Step.SyncCall(KernelSpec.cd("copy", 1));
    Program p = new StepLoop("loop", "test", List.of(cpu, sync)).start(0);
    assertEquals(List.of(cpu, sync, cpu, sync, cpu), Stream.generate(() -> p.next(0)).limit(5).toList());
    assertThrows(IllegalArgumentException.class, () -> new StepLoop("empty", "test", List.of()));
  }

  @Test
  void share_cutsATotalIntoNearEqualWholeParts() {
    List<Long> parts = new ArrayList<>();
    for (int i = 0; i < 3; i++) parts.add(FairgvWorkloads.share(10, 3, i));
    assertEquals(List.of(3L, 3L, 4L), parts);
  }
}
