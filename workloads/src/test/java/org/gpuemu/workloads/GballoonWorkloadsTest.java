package org.gpuemu.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongBinaryOperator;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every gBalloon workload replayed alone from its steps, with a host that grants memory in a chosen way. */
@Tag("slow")
class GballoonWorkloadsTest {
  private static final long S = 1_000_000_000L;
  private static final long MS = 1_000_000L;
  private static final long MIB = GballoonWorkloads.MIB;
  private static final long SLOT = GballoonWorkloads.SLOT;
  /** Frames a guest may have unfinished before Present blocks (reference.conf's command-buffer). */
  private static final int COMMAND_BUFFER = 2;
  /** A host that grants whatever is asked: (held, asked) -> held after. */
  private static final LongBinaryOperator AMPLE = Long::sum;

  /** A host that grants up to {@code cap} bytes in all (a static gVirt type). */
  private static LongBinaryOperator cap(long cap) {
    return (held, asked) -> Math.min(cap, held + asked);
  }

  /** A memory step and when it was taken. */
  private record MemoryStep(long atNanos, Step step) {}

  /** One frame or operation: when it started and the GPU time it asked for. */
  private record Frame(long atNanos, long gpuNanos) {}

  /** What a program did alone: its frames, when it ended, its CPU time, memory steps and benchmarks in order. */
  private record Alone(List<Frame> frames, long endNanos, long cpuNanos, List<MemoryStep> memory, List<String> kernels,
      long maxHeld, long returns, List<BenchmarkRun> benchmarks) {
    double fps() {
      return frames.size() * 1e9 / endNanos;
    }

    List<Step> memorySteps() {
      return memory.stream().map(MemoryStep::step).toList();
    }
  }

  /**
   * Runs a program on one CPU and a GPU of its own until it ends: CPU bursts and sleeps take their time, GPU work runs
   * in order as soon as the GPU is free, a synchronous call waits for everything queued, Present blocks while more
   * than {@link #COMMAND_BUFFER} frames are unfinished. A Malloc is answered by {@code host} and the program told
   * what it holds; a frame or operation ends at each Present or synchronous call.
   */
  private static Alone runAlone(Workload workload, LongBinaryOperator host) {
    Program program = workload.start(1);
    long t = 0;
    long gpuFree = 0;
    long cpu = 0;
    long held = 0;
    long maxHeld = 0;
    long frameStart = 0;
    long frameGpu = 0;
    List<Frame> frames = new ArrayList<>();
    List<MemoryStep> memory = new ArrayList<>();
    List<String> kernels = new ArrayList<>();
    ArrayDeque<Long> unfinished = new ArrayDeque<>();
    for (Step step = program.next(0); step != null; step = program.next(t)) {
      KernelSpec kernel = step instanceof Step.LaunchKernel l ? l.kernel()
          : step instanceof Step.SyncCall c ? c.kernel()
          : step instanceof Step.Present p ? p.tail() : null;
      if (kernel != null) {
        gpuFree = Math.max(gpuFree, t) + kernel.soloNanos();
        frameGpu += kernel.soloNanos();
        String bench = kernel.name().substring(0, kernel.name().indexOf('/'));
        if (kernels.isEmpty() || !kernels.get(kernels.size() - 1).equals(bench)) kernels.add(bench);
      }
      if (step instanceof Step.Malloc m) {
        memory.add(new MemoryStep(t, m));
        held = host.applyAsLong(held, m.bytes());
        maxHeld = Math.max(maxHeld, held);
        ((MemoryAware) program).held(held);
      } else if (step instanceof Step.Free f) {
        memory.add(new MemoryStep(t, f));
        held -= f.bytes();
      } else if (step instanceof Step.CpuBurst b) {
        t += b.nanos();
        cpu += b.nanos();
      } else if (step instanceof Step.Sleep z) {
        t += z.nanos();
      } else if (step instanceof Step.SyncCall) {
        t = gpuFree;
      }
      if (step instanceof Step.Present) {
        unfinished.add(gpuFree);
        while (unfinished.size() > COMMAND_BUFFER) t = Math.max(t, unfinished.poll());
      }
      if (step instanceof Step.Present || step instanceof Step.SyncCall) {
        frames.add(new Frame(frameStart, frameGpu));
        frameStart = t;
        frameGpu = 0;
      }
    }
    assertEquals(0, held, workload.name() + " must free all it holds when it ends");
    long returns = program instanceof MemoryAware aware ? aware.returns() : 0;
    List<BenchmarkRun> benchmarks = program instanceof BenchmarkAware aware ? aware.benchmarks() : List.of();
    return new Alone(frames, Math.max(t, gpuFree), cpu, memory, kernels, maxHeld, returns, benchmarks);
  }

  /**
   * A timed benchmark ends at its deadline plus the frames still queued: the first frame started past the deadline is
   * not drawn, but up to {@link #COMMAND_BUFFER} frames already presented and the one being recorded still run.
   */
  private static void assertEndsAt(long deadline, double longestFrameNanos, Alone alone) {
    long late = alone.endNanos() - deadline;
    assertTrue(late >= 0 && late <= (COMMAND_BUFFER + 1) * longestFrameNanos,
        "ended " + late + " ns after " + deadline);
  }

  @Test
  void valley_withAllItsMemory_runs18ScenesOf13sAt30Fps_askingAtEachRise() {
    Alone valley = runAlone(WorkloadCatalog.get("valley"), AMPLE);
    assertEndsAt(234 * S, 1e9 / 30, valley);
    assertEquals(30, valley.fps(), 0.05);
    // 9 slots for the first scene, then one more when scenes 4, 7, 10 and 14 begin: 832 MB at most (Figure 9).
    List<Step> expected = List.of(new Step.Malloc(9 * SLOT), new Step.Malloc(SLOT), new Step.Malloc(SLOT),
        new Step.Malloc(SLOT), new Step.Malloc(SLOT), new Step.Free(13 * SLOT));
    assertEquals(expected, valley.memorySteps());
    long[] at = {0, 39 * S, 78 * S, 117 * S, 169 * S, 234 * S};
    for (int i = 0; i < at.length; i++) {
      long late = valley.memory().get(i).atNanos() - at[i];
      assertTrue(late >= 0 && late < 40 * MS, "memory step " + i + " at " + valley.memory().get(i).atNanos());
    }
    assertEquals(832 * MIB, valley.maxHeld());
    assertEquals(0, valley.returns(), "with all its memory the driver returns nothing");
  }

  @Test
  void valley_in384Mb_returnsItsDeficitEveryFrame_inEvictionRoundsThatWaitForTheGpu() {
    // Stepped on a GPU that is never late (only CPU time passes): per frame, the evictions' waits by scene.
    Program valley = WorkloadCatalog.get("valley").start(1);
    long t = 0;
    int waits = 0;
    long frameStart = 0;
    java.util.Map<Integer, java.util.Set<Integer>> waitsPerFrameByScene = new java.util.TreeMap<>();
    for (Step step = valley.next(t); step != null; step = valley.next(t)) {
      if (step instanceof Step.Malloc m) ((MemoryAware) valley).held(6 * SLOT); // gVirt-384 grants nothing more
      if (step instanceof Step.CpuBurst b) t += b.nanos();
      if (step instanceof Step.SyncCall c) {
        assertTrue(c.kernel().name().endsWith("/evict"), c.kernel().name());
        waits++;
      }
      if (step instanceof Step.Present) {
        // a frame's demand is its scene's when it starts
        int scene = (int) Math.min(17, frameStart / GballoonWorkloads.VALLEY_SCENE);
        waitsPerFrameByScene.computeIfAbsent(scene, k -> new java.util.TreeSet<>()).add(waits);
        waits = 0;
        frameStart = t;
      }
    }
    // Scenes lacking 3 to 7 slots wait once per eviction round a frame, a partial round included (rounds of
    // ObjectReturns.EVICTION_BYTES, at most one per batch: 17), every frame.
    for (int scene = 0; scene < 18; scene++) {
      int lacking = GballoonWorkloads.VALLEY_SLOTS.get(scene) - 6;
      long rounds = Math.min(17, (lacking * SLOT + ObjectReturns.EVICTION_BYTES - 1) / ObjectReturns.EVICTION_BYTES);
      assertEquals(java.util.Set.of((int) rounds), waitsPerFrameByScene.get(scene), "scene " + (scene + 1));
    }
    // Returns per frame: 16 objects of 4 MiB for each slot missing, 48 to 112.
    long presents = waitsPerFrameByScene.isEmpty() ? 0 : presentsOf(WorkloadCatalog.get("valley"));
    long returns = ((MemoryAware) valley).returns();
    assertTrue(returns >= presents * 48 && returns <= presents * 112, returns + " returns, " + presents + " frames");
    // alone, on a GPU of its own, a frame is its GPU work, its CPU work and its re-binding (7 slots missing at most)
    Alone alone = runAlone(WorkloadCatalog.get("valley"), cap(6 * SLOT));
    long rebindAtMost = 7 * SLOT / 4096 * ObjectReturns.PAGE_NANOS;
    assertEndsAt(234 * S, 1e9 / 30 + 6 * MS + rebindAtMost, alone);
    // every returned page is re-bound: the frames' CPU is their own 6 ms plus 16,384 pages per missing slot
    long pagesRebound = returns * GballoonWorkloads.OBJECT_BYTES / 4096;
    assertEquals(pagesRebound * ObjectReturns.PAGE_NANOS + presents * 6 * MS, t, presents * 1_000);
    long framesAlone = presentsOf(WorkloadCatalog.get("valley"));
    assertTrue(framesAlone > 0);
  }

  /** The frames (Presents) a 3D benchmark draws in 384 MB when only CPU time passes. */
  private static long presentsOf(Workload workload) {
    Program program = workload.start(1);
    long t = 0;
    long presents = 0;
    for (Step step = program.next(t); step != null; step = program.next(t)) {
      if (step instanceof Step.Malloc) ((MemoryAware) program).held(6 * SLOT);
      if (step instanceof Step.CpuBurst b) t += b.nanos();
      if (step instanceof Step.Present) presents++;
    }
    return presents;
  }

  @Test
  void valley_in384Mb_asksAgainEvery2s_neverMoreOften() {
    Alone valley = runAlone(WorkloadCatalog.get("valley"), cap(6 * SLOT));
    List<MemoryStep> asks = valley.memory().stream().filter(m -> m.step() instanceof Step.Malloc).toList();
    assertEquals(new Step.Malloc(9 * SLOT), asks.get(0).step());
    assertEquals(new Step.Malloc(3 * SLOT), asks.get(1).step(), "it holds 6 of 9 slots");
    for (int i = 1; i < asks.size(); i++) {
      long gap = asks.get(i).atNanos() - asks.get(i - 1).atNanos();
      // it asks before its next frame, so up to one frame late (6 ms of CPU, 1/30 s of GPU and the re-binding of 7
      // missing slots at most, run apart)
      long frameAtMost = 6 * MS + S / 30 + 7 * SLOT / 4096 * ObjectReturns.PAGE_NANOS + MS;
      assertTrue(gap >= 2 * S && gap < 2 * S + frameAtMost, "ask " + i + " after " + gap + " ns");
    }
    // 234 s / 2 s at most, fewer as each waits for a frame to end
    long frameAtMost = 6 * MS + S / 30 + 7 * SLOT / 4096 * ObjectReturns.PAGE_NANOS + MS;
    assertTrue(asks.size() <= 118 && asks.size() >= 234 * S / (2 * S + frameAtMost), asks.size() + " asks");
  }

  @ParameterizedTest(name = "{0}: {1} FPS for 60 s in {2} MiB")
  @CsvSource({"nexuiz, 60, 256", "openarena, 120, 128", "urbanterror, 90, 192", "lightsmark, 150, 160"})
  void timedemos_alone_giveTheirFps_inLessThan384Mb(String name, double fps, long demandMib) {
    Alone alone = runAlone(WorkloadCatalog.get(name), AMPLE);
    assertEquals(fps, alone.fps(), fps * 0.002);
    assertEndsAt(60 * S, 1e9 / fps, alone);
    assertEquals(List.of(new Step.Malloc(demandMib * MIB), new Step.Free(demandMib * MIB)), alone.memorySteps());
    assertTrue(demandMib <= 384, "§4.1: only Valley needs more than 384 MB");
    assertTrue(alone.cpuNanos() < alone.endNanos() / 2, "GPU-bound");
  }

  @ParameterizedTest(name = "{0}: {1} s alone, {2} % GPU, {3} MiB")
  @CsvSource({"firefox-asteroids, 20, 40, 96", "firefox-scrolling, 25, 30, 128", "gnome-system-monitor, 15, 20, 64",
      "midori, 20, 30, 96"})
  void traces_alone_takeTheirRunTime(String name, long seconds, long gpuPercent, long demandMib) {
    Alone alone = runAlone(WorkloadCatalog.get(name), AMPLE);
    // Each 2 ms operation is CPU work; its draw runs beside the next one's, so alone the run is its CPU time, plus
    // the 10 us read-backs and throttle waits (each waits for nothing older) and the last replay's last draw.
    assertEquals(seconds * S, alone.cpuNanos());
    long waits = alone.frames().size();
    long lastDraw = 2 * MS * gpuPercent / 100;
    assertEquals(seconds * S + GballoonWorkloads.REPLAYS * lastDraw + waits * GballoonWorkloads.READBACK,
        alone.endNanos(), 1_000);
    // one wait per 20 ms of operations (ten or eleven of them) and the 15 read-backs
    long ops = seconds * S / (2 * MS);
    assertTrue(waits >= ops / 11 && waits <= ops / 10 + 15, waits + " waits for " + ops + " operations");
    long gpu = alone.frames().stream().mapToLong(Frame::gpuNanos).sum();
    assertEquals(ops * (2 * MS * gpuPercent / 100) + waits * GballoonWorkloads.READBACK, gpu);
    assertEquals(List.of(new Step.Malloc(demandMib * MIB), new Step.Free(demandMib * MIB)), alone.memorySteps());
  }

  @Test
  void aTrace_submitsWithoutWaiting_throttledAt20ms_andReadsBackAtTheEndOfEachOf15Replays() {
    Program midori = WorkloadCatalog.get("midori").start(1);
    List<Step> steps = new ArrayList<>();
    long t = 0;
    for (Step step = midori.next(t); step != null; step = midori.next(t)) {
      steps.add(step);
      if (step instanceof Step.Malloc m) ((MemoryAware) midori).held(m.bytes());
      if (step instanceof Step.CpuBurst b) t += b.nanos();
    }
    long launches = steps.stream().filter(Step.LaunchKernel.class::isInstance).count();
    assertEquals(10_000, launches, "every operation's draw is launched asynchronously");
    List<String> waits = steps.stream().filter(Step.SyncCall.class::isInstance)
        .map(c -> ((Step.SyncCall) c).kernel().name()).toList();
    assertEquals(GballoonWorkloads.REPLAYS, waits.stream().filter("midori/readback"::equals).count());
    // on a GPU that is never late, 20 s of operations see a throttle point every 20 ms (11 operations: the 11th is
    // planned at 20 ms), less those that fall on a read-back
    long throttles = waits.stream().filter("midori/throttle"::equals).count();
    assertEquals(10_000 / 11, throttles, 15);
    // a throttle wait comes before its operation's launch (it waits for what is older), a read-back after it
    for (int i = 0; i < steps.size(); i++) {
      if (steps.get(i) instanceof Step.SyncCall c) {
        boolean throttle = c.kernel().name().endsWith("/throttle");
        Step neighbour = throttle ? steps.get(i + 1) : steps.get(i - 1);
        assertInstanceOf(Step.LaunchKernel.class, neighbour, "step " + i);
      }
    }
  }

  @Test
  void aTrace_withHalfItsMemory_waitsForTheGpuBeforeEveryOperation() {
    // Midori holds 48 of its 96 MiB: before each operation the driver returns 12 objects and waits for the GPU, so
    // an operation's draw no longer runs beside the next one's CPU work; then it re-binds their 12,288 pages.
    Alone alone = runAlone(WorkloadCatalog.get("midori"), cap(48 * MIB));
    long rebind = 12_288 * ObjectReturns.PAGE_NANOS;
    assertEquals(20 * S + 10_000 * rebind, alone.cpuNanos());
    // an operation now outlasts the 20 ms throttle, so a throttle wait (another 1 x 1 read-back) may come with it
    long base = 20 * S + 10_000 * (rebind + 600_000 + GballoonWorkloads.READBACK);
    assertTrue(alone.endNanos() >= base - 20 * MS
        && alone.endNanos() <= base + 10_000 * GballoonWorkloads.READBACK + 20 * MS, alone.endNanos() + " ns");
    assertEquals(10_000L * 12, alone.returns(), "48 MiB missing: 12 objects of 4 MiB per operation");
  }

  @Test
  void npbCg_is45sOfCpuAlone_inTwoThreads_withoutGpuOrMemory() {
    Workload npb = WorkloadCatalog.get("npb-cg");
    assertEquals(2, npb.threads());
    Alone cg = runAlone(npb, AMPLE);
    assertEquals(22_500_000_000L, cg.endNanos(), "one thread: half of the 45 s");
    assertEquals(22_500_000_000L, cg.cpuNanos());
    assertEquals(List.of(), cg.memorySteps());
    assertEquals(List.of(), cg.kernels());
  }

  /** Table 2, VM1 to VM15. */
  @ParameterizedTest(name = "VM{0}: {1}, {2}, {3}")
  @CsvSource({
      "1, gnome-system-monitor, openarena, valley", "2, valley, firefox-asteroids, urbanterror",
      "3, midori, valley, nexuiz", "4, valley, firefox-scrolling, urbanterror",
      "5, valley, firefox-scrolling, lightsmark", "6, lightsmark, gnome-system-monitor, valley",
      "7, gnome-system-monitor, valley, openarena", "8, urbanterror, valley, firefox-scrolling",
      "9, midori, nexuiz, valley", "10, valley, lightsmark, firefox-scrolling",
      "11, gnome-system-monitor, openarena, valley", "12, nexuiz, firefox-asteroids, valley",
      "13, valley, openarena, firefox-asteroids", "14, midori, valley, lightsmark",
      "15, valley, nexuiz, firefox-asteroids"})
  void table2_eachVmRunsItsThreeBenchmarksInOrder(int vm, String first, String second, String third) {
    Alone sequence = runAlone(WorkloadCatalog.get("gballoon-vm" + vm), AMPLE);
    assertEquals(List.of(first, second, third), sequence.kernels());
    // One after another: the sequence lasts what its parts last alone, and each frees its memory before the next
    // asks, so the VM never holds more than the largest part needs.
    long parts = 0;
    long largest = 0;
    for (String name : List.of(first, second, third)) {
      Alone part = runAlone(WorkloadCatalog.get(name), AMPLE);
      parts += part.endNanos();
      largest = Math.max(largest, part.maxHeld());
    }
    assertEquals(parts, sequence.endNanos(), 200 * MS, "parts overlap only by their last frames' GPU work");
    assertEquals(largest, sequence.maxHeld());
  }

  @Test
  void aSequence_tellsTheRunningBenchmarkWhatItHolds_andSumsTheirReturns() {
    // VM6: Lightsmark (160 MiB), gnome (64 MiB), Valley (up to 832 MiB), in 384 MB: only Valley lacks memory.
    Alone sequence = runAlone(WorkloadCatalog.get("gballoon-vm6"), cap(6 * SLOT));
    Alone valley = runAlone(WorkloadCatalog.get("valley"), cap(6 * SLOT));
    assertEquals(valley.returns(), sequence.returns());
    assertTrue(sequence.returns() > 0);
    assertInstanceOf(MemoryAware.class, WorkloadCatalog.get("gballoon-vm6").start(1));
  }

  @Test
  void everyGballoonWorkload_isInTheCatalog() {
    for (Workload w : GballoonWorkloads.all()) {
      assertEquals(w, WorkloadCatalog.get(w.name()));
    }
    assertEquals(10 + 15, GballoonWorkloads.all().size());
  }

  @Test
  void aSequence_reportsEachBenchmarkItRan_withItsFramesOrOperationsAndItsTimes() {
    // VM6: Lightsmark (3D, 60 s), gnome-system-monitor (2D trace), Valley (3D, 234 s), one after the other
    Alone sequence = runAlone(WorkloadCatalog.get("gballoon-vm6"), AMPLE);
    List<BenchmarkRun> runs = sequence.benchmarks();
    assertEquals(List.of("lightsmark", "gnome-system-monitor", "valley"), runs.stream().map(BenchmarkRun::name).toList());
    assertEquals(List.of(true, false, true), runs.stream().map(BenchmarkRun::byFrames).toList());
    assertEquals(0, runs.get(0).startNanos());
    for (int i = 0; i < runs.size(); i++) {
      assertTrue(runs.get(i).endNanos() > runs.get(i).startNanos(), runs.get(i).toString());
      if (i > 0) assertTrue(runs.get(i).startNanos() >= runs.get(i - 1).endNanos(), runs.toString());
    }
    // gnome's trace: 15 s alone in 2 ms operations, every one counted; Lightsmark's timedemo runs 60 s at 150 FPS
    Alone gnome = runAlone(WorkloadCatalog.get("gnome-system-monitor"), AMPLE);
    assertEquals(15 * S / (2 * MS), runs.get(1).count());
    assertEquals(gnome.cpuNanos() / (2 * MS), runs.get(1).count());
    assertEquals(150, runs.get(0).rate(Long.MAX_VALUE), 5);
    // the frames or operations per second of a benchmark still running are counted up to the end of the run
    BenchmarkRun running = new BenchmarkRun("valley", true, 2 * S, -1, 30);
    assertEquals(10.0, running.rate(5 * S), 1e-9);
  }
}
