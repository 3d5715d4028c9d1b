package org.gpuemu.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every VMCG workload replayed alone from its steps gives the frame rate or run time the paper leads to. */
class VmcgWorkloadsTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000_000_000L;
  private static final long SEED = 1;
  /** Frames a guest may have unfinished before Present blocks (reference.conf's command-buffer). */
  private static final int COMMAND_BUFFER = 2;

  /** What one VM did alone: frames finished by the horizon, when its program ended, its CPU and GPU totals. */
  private record Alone(long frames, long endNanos, long cpuNanos, long gpuNanos, long longestCrbNanos) {
    double fps(long horizon) {
      return frames * 1e9 / horizon;
    }
  }

  /**
   * Runs a program on one CPU and a GPU of its own: CPU bursts and sleeps take their time, CRBs run on the GPU in
   * order as soon as it is free, a synchronous call waits for the GPU to finish everything queued, and Present
   * blocks while more than {@link #COMMAND_BUFFER} frames are unfinished. Stops at {@code horizon} or at the end.
   */
  private static Alone runAlone(Workload workload, long horizon) {
    Program program = workload.start(SEED);
    long t = 0;
    long gpuFree = 0;
    long frames = 0;
    long cpu = 0;
    long gpu = 0;
    long longest = 0;
    ArrayDeque<Long> unfinished = new ArrayDeque<>();
    for (Step step = program.next(0); step != null && t < horizon; step = program.next(t)) {
      KernelSpec crb = step instanceof Step.LaunchKernel l ? l.kernel()
          : step instanceof Step.SyncCall c ? c.kernel()
          : step instanceof Step.Present p ? p.tail() : null;
      if (crb != null) {
        gpuFree = Math.max(gpuFree, t) + crb.soloNanos();
        gpu += crb.soloNanos();
        longest = Math.max(longest, crb.soloNanos());
      }
      if (step instanceof Step.CpuBurst b) {
        t += b.nanos();
        cpu += b.nanos();
      } else if (step instanceof Step.Sleep z) {
        t += z.nanos();
      } else if (step instanceof Step.SyncCall) {
        t = gpuFree;
      } else if (step instanceof Step.Present) {
        frames += gpuFree <= horizon ? 1 : 0;
        unfinished.add(gpuFree);
        while (unfinished.size() > COMMAND_BUFFER) {
          t = Math.max(t, unfinished.poll());
        }
      }
    }
    return new Alone(frames, t, cpu, gpu, longest);
  }

  private static Workload workload(String name) {
    return WorkloadCatalog.get(name);
  }

  @ParameterizedTest(name = "{0}: {1} FPS alone")
  @CsvSource({
      "passmark-3d, 312, 60, 0.005",      // Fig. 8: 312 FPS in one DomU under VMCG
      "teapot, 744, 60, 0.005",           // §6.2: GPU-bound at the three native processes' total
      "gears, 200, 60, 0.005",            // assumed (the paper gives no figure)
      "heaven3d, 15, 1200, 0.01",         // Fig. 8: 15 FPS in one DomU under VMCG
      "3dmark-hd4600, 40, 1200, 0.05",    // assumed; scenes vary ±15 %
      "opengl-flight, 120, 1200, 0.03",   // assumed; scenes vary ±10 %
      "dehazing-1080p, 25, 60, 0.001",    // §6.4: 25 FPS in one DomU under VMCG
      "dehazing-768, 65.92, 60, 0.001"})  // §6.6: 1080p's 40 ms scaled by 1024x768 / 1920x1080
  void frameWorkloads_alone_giveTheirFrameRate(String name, double fps, long seconds, double tolerance) {
    Alone alone = runAlone(workload(name), seconds * S);
    assertEquals(fps, alone.fps(seconds * S), fps * tolerance, name);
  }

  @Test
  void passmark_threeVmsSharingTheGpu_getThePapersFrameRates() {
    // Fig. 9: under VMCG three PassMark VMs get 109-115 FPS each; with the GPU fully shared each gets
    // 1/(3 × GPU per frame).
    Alone alone = runAlone(workload("passmark-3d"), 60 * S);
    double each = 1e9 / (3.0 * alone.gpuNanos() / alone.frames());
    assertTrue(each >= 109 && each <= 115, "three PassMark VMs at " + each + " FPS each");
  }

  @Test
  void teapot_threeVmsSharingTheGpu_total744Fps() {
    // §6.2: three teapot processes on the native GPU total 744 FPS; VMCG's three DomUs 714 (96 %).
    Alone alone = runAlone(workload("teapot"), 60 * S);
    assertEquals(744, 1e9 / (alone.gpuNanos() / (double) alone.frames()), 744 * 0.005);
  }

  @Test
  void gears_isNotGpuBound_evenInSixVms() {
    // VMCG and gVirt perform alike on gears (§6.2): six VMs of it still leave the GPU some room.
    Alone alone = runAlone(workload("gears"), 60 * S);
    double gpuShare = alone.gpuNanos() / 60e9;
    assertTrue(6 * gpuShare < 1, "six gears VMs need " + 6 * gpuShare + " of the GPU");
  }

  /** Table 2's three VMCG DomU times per benchmark. */
  @ParameterizedTest(name = "rodinia-{0}")
  @CsvSource({
      "srad, 1.448, 1.412, 1.4", "backprop, 0.206, 0.216, 0.212", "hotspot3d, 0.373, 0.345, 0.365",
      "nw, 0.377, 0.393, 0.384", "bfs, 1.658, 1.694, 1.596", "lavamd, 2.239, 2.124, 2.102",
      "leukocyte, 4.803, 4.956, 4.911", "particlefilter, 0.202, 0.204, 0.189", "nn, 0.162, 0.139, 0.158",
      "btree, 0.164, 0.171, 0.168", "dwt2d, 0.458, 0.434, 0.44", "hotspot, 1.144, 1.13, 1.123",
      "pathfinder, 0.296, 0.287, 0.295", "gaussian, 0.194, 0.193, 0.199"})
  void rodinia_isGpuBound_andThreeVmsSharingTheGpuTakeItsTable2Time(String bench, double t1, double t2,
      double t3) {
    double table2 = (t1 + t2 + t3) / 3 * 1e9;
    Alone alone = runAlone(workload("rodinia-" + bench), Long.MAX_VALUE);
    assertEquals(table2, 3.0 * alone.gpuNanos(), table2 * 0.001, "three VMs' GPU work is the Table 2 time");
    assertEquals(alone.gpuNanos() * VmcgWorkloads.RODINIA_ENQUEUE_PER_GPU, alone.cpuNanos(), table2 * 0.001,
        "enqueueing takes a third of the GPU time");
    // Alone the GPU is busy from the first CRB to the read-back: an iteration's first enqueueing is all that adds.
    assertTrue(alone.endNanos() < 1.1 * alone.gpuNanos(), "GPU-bound alone: " + alone);
    assertTrue(alone.endNanos() >= alone.gpuNanos(), "the GPU work is the least a run takes");
    // Three VMs together ask the GPU for more than any one VM's run alone: GPU-bound together.
    assertTrue(3.0 * alone.gpuNanos() > 2 * alone.endNanos(), "GPU-bound with three VMs: " + alone);
    assertTrue(alone.longestCrbNanos() <= VmcgWorkloads.MAX_CRB_NANOS, "CRBs of at most 2 ms");
  }

  @Test
  void theCatalogHoldsEveryVmcgWorkload_with14RodiniaBenchmarks() {
    List<Workload> all = VmcgWorkloads.all();
    assertEquals(14, all.stream().filter(w -> w.name().startsWith("rodinia-")).count());
    assertEquals(22, all.size());
    for (Workload w : all) {
      assertEquals(w.description(), WorkloadCatalog.get(w.name()).description(), w.name() + " is in the catalog");
      assertTrue(w.description().contains("vmcg"), w.name() + " names its source");
    }
  }

  @Test
  void noCrbIsLongerThanAGameBatch_soTheGpuCanBeSharedBetweenThem() {
    // Compute CRBs are cut at 2 ms; a game's batches are its frame's GPU time over round(GPU / 2 ms) batches,
    // at most 3 ms (heaven3d: 66.7 ms in 33 batches of 2.02 ms).
    for (Workload w : VmcgWorkloads.all()) {
      long horizon = w.name().startsWith("rodinia-") ? Long.MAX_VALUE : 10 * S;
      Alone alone = runAlone(w, horizon);
      assertTrue(alone.longestCrbNanos() <= 3 * MS, w.name() + " has a CRB of " + alone.longestCrbNanos() + " ns");
    }
  }
}
