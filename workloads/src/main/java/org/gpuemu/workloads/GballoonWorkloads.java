package org.gpuemu.workloads;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The workloads of gBalloon (Park et al., gballoon.txt §4: Intel HD Graphics 530, guests of 2 vCPUs): the 3D
 * benchmarks measured in FPS (Unigine Valley, Nexuiz, Openarena, Urbanterror, Lightsmark), the 2D cairo-perf-trace
 * replays measured in run time (Firefox-asteroids, Firefox-scrolling, gnome-system-monitor, Midori), NPB cg on the
 * CPU, and Table 2's per-VM sequences of three.
 *
 * <p>Memory. Every GPU benchmark touches a working set of high global graphics memory (its demand) and allocates
 * it with {@link Step.Malloc}; it learns what its VM holds through {@link MemoryAware#held}. While it holds less
 * than its demand its guest driver returns objects to render each frame (§3.1: "the same objects are frequently
 * returned"): {@code ceil(deficit / OBJECT_BYTES)} returns per frame or operation, in eviction rounds each of which
 * waits for the GPU and then re-binds what it returned at a CPU cost per page ({@link ObjectReturns}, the round's
 * size and the page's cost fitted to Figures 6, 8 and 10). It asks for the
 * deficit again (step 1 of Figure 3) at most every {@link #ASK_INTERVAL}; when it finishes it frees what it holds.
 *
 * <p>The paper reports only normalised figures, so the absolute frame rates, run times and demands below are
 * assumptions, said so next to each; what the paper does constrain is kept: only Valley needs more than the 384 MB
 * every VM starts with (§4.1: the others "require a small amount of high global graphics memory"), Valley rises to
 * 13 slots (832 MB, Figure 9), and 2D benchmarks lean on the GPU less than 3D ones (Figure 6: under gVirt-1024 the
 * 3D benchmarks lose 50 % or more, the 2D ones 25 %). Frames are deterministic (the seed is unused): the paper
 * reports averages only. {@code GballoonWorkloadsTest} replays each from its steps.
 */
public final class GballoonWorkloads {
  private static final long S = 1_000_000_000L;
  private static final long MS = 1_000_000L;
  private static final long US = 1_000L;
  static final long MIB = 1024L * 1024;
  /** gVirt's slot (gballoon.txt §2.1). */
  static final long SLOT = 64 * MIB;
  /**
   * The guest driver asks for more memory at most this often while it lacks some. Figure 9: "the gBalloon expands
   * three slots in 2 second intervals" (one slot per request, §4.4 "the slots are increased one by one").
   */
  static final long ASK_INTERVAL = 2 * S;
  /** The eviction round ({@link ObjectReturns#EVICTION_BYTES}). */
  static final long EVICTION_BYTES = ObjectReturns.EVICTION_BYTES;
  /** What re-binding a returned object costs the guest per GTT page ({@link ObjectReturns#PAGE_NANOS}). */
  static final long PAGE_NANOS = ObjectReturns.PAGE_NANOS;
  /** The size of a returned memory object (assumed: a 1024 × 1024 RGBA texture), for counting returns. */
  static final long OBJECT_BYTES = 4 * MIB;
  /**
   * A Valley scene (assumed): Valley's benchmark mode flies through its 18 scenes in about four minutes, taken as
   * equal scenes of 13 s (234 s); Figure 9's first scene must last at least the 4 s of its three expansions.
   */
  static final long VALLEY_SCENE = 13 * S;
  /**
   * Valley's demand per scene, in slots (Figure 9): a sharp rise in the first scene that takes three slot-by-slot
   * expansions from the 6 slots every VM starts with (9), then one slot "for several scenes": 12 slots from the
   * 10th scene, and 13 (832 MB) at most. The scenes where 10, 11 and 13 slots begin (4th, 7th, 14th) are assumed,
   * evenly between.
   */
  static final List<Integer> VALLEY_SLOTS = List.of(9, 9, 9, 10, 10, 10, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 13, 13);
  /** How long a 3D timedemo other than Valley runs (assumed: FPS is what the paper measures, over a fixed time). */
  static final long TIMEDEMO = 60 * S;
  /**
   * One operation of a 2D trace replay: a batch of drawing calls, its CPU work (cairo's tessellation and the X
   * server's driver) and then its GPU part submitted without waiting (assumed length; see {@link Bench2d} for how a
   * replay reaches the GPU).
   */
  static final long OP = 2 * MS;
  /**
   * How far the guest's submissions may run ahead of the GPU: the i915 driver's throttle waits for the requests its
   * client emitted more than 20 ms ago (Linux drivers/gpu/drm/i915, {@code DRM_I915_THROTTLE_JIFFIES} =
   * msecs_to_jiffies(20), "chosen to prevent the CPU getting more than a frame ahead of the GPU"), which the Intel X
   * driver calls while it renders.
   */
  static final long THROTTLE = 20 * MS;
  /**
   * The replays of one 2D benchmark run: cairo-perf-trace replays a trace {@code CAIRO_PERF_ITERATIONS_DEFAULT} = 15
   * times (cairo perf/cairo-perf-trace.c) and times each replay up to a synchronising read-back.
   */
  static final int REPLAYS = 15;
  /** The GPU part of the throttle wait and of the end-of-replay read-back: a 1 × 1 pixel, next to nothing. */
  static final long READBACK = 10 * US;

  private GballoonWorkloads() {}

  /** Every gBalloon workload. */
  public static List<Workload> all() {
    List<Workload> benchmarks = List.of(valley(),
        // The 3D timedemos of the Phoronix Test Suite (§4), GPU-bound. FPS alone on an HD 530 in a VM, CPU per
        // frame and working set are assumed (the paper gives only normalised FPS and says each fits in 384 MB).
        timedemo("nexuiz", "Nexuiz", 60, 4 * MS, 256 * MIB),
        timedemo("openarena", "Openarena", 120, 2 * MS, 128 * MIB),
        timedemo("urbanterror", "Urbanterror", 90, 3 * MS, 192 * MIB),
        timedemo("lightsmark", "Lightsmark", 150, 1500 * US, 160 * MIB),
        // The cairo-perf-trace replays (§4), each a run of 2 ms operations of CPU work (Bench2d: CPU-bound). Run
        // times alone, the GPU's busy share and working sets are assumed: asteroids animates sprites (40 %),
        // scrolling and Midori redraw pages (30 %), gnome's graphs are mostly CPU (20 %).
        trace("firefox-asteroids", "Firefox-asteroids", 20 * S, 0.4, 96 * MIB),
        trace("firefox-scrolling", "Firefox-scrolling", 25 * S, 0.3, 128 * MIB),
        trace("gnome-system-monitor", "gnome-system-monitor", 15 * S, 0.2, 64 * MIB),
        trace("midori", "Midori", 20 * S, 0.3, 96 * MIB),
        // NPB cg (§4.3): class B's 75 outer x 25 conjugate-gradient iterations, about 45 s of CPU on an i7-6700 core
        // (assumed), in OpenMP threads, one per vCPU of the guest (Table 1: 2), each 1,875 bursts of 12 ms (the
        // threads' barriers are not modelled). No GPU work; it measures what GTT copies cost the CPU.
        new CpuBench("npb-cg", "NPB cg class B (gballoon §4.3): 45 s of CPU in 2 threads, no GPU (assumed)", 12 * MS,
            1875, 2));
    List<Workload> all = new ArrayList<>(benchmarks);
    all.addAll(table2(benchmarks));
    return List.copyOf(all);
  }

  /** Unigine Valley (§4, Figures 9-10): 18 scenes of {@link #VALLEY_SCENE} rising to 13 slots. */
  private static Workload valley() {
    // 30 FPS alone with all the memory it needs (assumed for an HD 530 at the benchmark's default settings),
    // GPU-bound, 6 ms of CPU per frame (assumed).
    Scene frame = Scene.gpuBound(30, 6 * MS);
    List<Stage> scenes = new ArrayList<>();
    for (int i = 0; i < VALLEY_SLOTS.size(); i++) {
      scenes.add(new Stage("scene" + (i + 1), VALLEY_SCENE, frame, VALLEY_SLOTS.get(i) * SLOT));
    }
    return new Bench3d("valley", "Unigine Valley (gballoon Fig. 9): 18 scenes of 13 s rising to 13 slots (832 MB), "
        + "30 FPS alone with all of it", scenes);
  }

  private static Workload timedemo(String name, String title, double fps, long cpuNanos, long demandBytes) {
    return new Bench3d(name, title + " timedemo (gballoon §4): " + Math.round(fps) + " FPS alone for 60 s, GPU-bound, "
        + demandBytes / MIB + " MiB (assumed)",
        List.of(new Stage("run", TIMEDEMO, Scene.gpuBound(fps, cpuNanos), demandBytes)));
  }

  private static Workload trace(String name, String title, long runNanos, double gpuShare, long demandBytes) {
    return new Bench2d(name, title + " cairo trace (gballoon §4): " + runNanos / S + " s alone, CPU-bound, the GPU busy "
        + Math.round(gpuShare * 100) + " % of it, submitted asynchronously, " + demandBytes / MIB + " MiB (assumed)",
        OP, Math.round(OP * gpuShare), runNanos / OP, demandBytes);
  }

  /** Table 2: the benchmarks each of the 15 VMs runs one after another ({@code gballoon-vm1} ... {@code -vm15}). */
  private static List<Workload> table2(List<Workload> benchmarks) {
    String[][] rows = {
        {"gnome-system-monitor", "openarena", "valley"},       // VM1
        {"valley", "firefox-asteroids", "urbanterror"},        // VM2
        {"midori", "valley", "nexuiz"},                        // VM3
        {"valley", "firefox-scrolling", "urbanterror"},        // VM4
        {"valley", "firefox-scrolling", "lightsmark"},         // VM5
        {"lightsmark", "gnome-system-monitor", "valley"},      // VM6
        {"gnome-system-monitor", "valley", "openarena"},       // VM7
        {"urbanterror", "valley", "firefox-scrolling"},        // VM8
        {"midori", "nexuiz", "valley"},                        // VM9
        {"valley", "lightsmark", "firefox-scrolling"},         // VM10
        {"gnome-system-monitor", "openarena", "valley"},       // VM11
        {"nexuiz", "firefox-asteroids", "valley"},             // VM12
        {"valley", "openarena", "firefox-asteroids"},          // VM13
        {"midori", "valley", "lightsmark"},                    // VM14
        {"valley", "nexuiz", "firefox-asteroids"}};            // VM15
    List<Workload> sequences = new ArrayList<>();
    for (int vm = 1; vm <= rows.length; vm++) {
      List<Workload> parts = new ArrayList<>();
      for (String name : rows[vm - 1]) {
        parts.add(benchmarks.stream().filter(b -> b.name().equals(name)).findFirst().orElseThrow());
      }
      sequences.add(new Sequence("gballoon-vm" + vm,
          "gBalloon Table 2, VM" + vm + ": " + String.join(", then ", rows[vm - 1]), parts));
    }
    return sequences;
  }

  /**
   * One stretch of a 3D benchmark.
   *
   * @param nanos       how long it lasts
   * @param frame       a frame's costs with all the memory it needs
   * @param demandBytes the high graphics memory it touches
   */
  record Stage(String name, long nanos, Scene frame, long demandBytes) {
    Stage {
      if (nanos <= 0 || demandBytes <= 0) throw new IllegalArgumentException(name + ": needs time and memory > 0");
    }
  }

  /** A 3D benchmark: its stages in order, each for its time, frames as fast as they go; FPS is its figure. */
  record Bench3d(String name, String description, List<Stage> stages) implements Workload {
    Bench3d {
      stages = List.copyOf(stages);
    }

    /** The stage at {@code sinceStart}, or none once all have run. */
    Optional<Stage> stageAt(long sinceStart) {
      long t = sinceStart;
      for (Stage stage : stages) {
        if (t < stage.nanos()) return Optional.of(stage);
        t -= stage.nanos();
      }
      return Optional.empty();
    }

    @Override public Program start(long seed) {
      return new GballoonPrograms.Frames(this);
    }
  }

  /**
   * A 2D trace replay (cairo-perf-trace, gballoon.txt §4): {@code ops} operations in {@link #REPLAYS} replays; its run
   * time is its figure. How it reaches the GPU, from cairo's and Linux's sources: cairo-perf-trace runs the whole
   * trace through cairo's script interpreter between starting and stopping its timer, and only at the stop
   * synchronises with the target (perf/cairo-perf-trace.c; for X targets a 1 × 1 XGetImage, cairo commit "add a new
   * cairo_perf_timer_set_finalize ... 1x1 XGetImage"): X requests are asynchronous, and the X driver submits its batch
   * buffers without waiting. So an operation is its CPU work then its GPU part launched asynchronously; the guest
   * waits (a synchronous call) only (a) when its oldest unfinished submission is {@link #THROTTLE} old, the i915
   * throttle (modelled as a wait for everything submitted: the GPU runs a vGPU's requests in order, so the
   * request 20 ms old finishes in the same turn as the later ones), and (b) at the end of each replay (the read-back).
   * CPU-bound: cairo's null backend, which interprets a trace without rendering, takes 43 % (bound) to 66 %
   * (firefox-world-map) of the replay time of its direct GPU backend, and rendering everything on the CPU (the image
   * backend) takes only 16-21 % longer than rendering on the GPU (cairo commit "binary traces", its cairo-perf-trace
   * null / drm / image timings): a replay's time is mostly CPU work. So an operation is {@code cpuNanos} of CPU, and
   * its GPU part ({@code gpuNanos}, the GPU's busy share alone) runs beside the next operations' CPU work.
   */
  record Bench2d(String name, String description, long cpuNanos, long gpuNanos, long ops, long demandBytes)
      implements Workload {
    Bench2d {
      if (cpuNanos <= 0 || gpuNanos <= 0 || ops <= 0 || demandBytes <= 0) {
        throw new IllegalArgumentException(name + ": needs CPU, GPU, operations and memory > 0");
      }
    }

    @Override public Program start(long seed) {
      return new GballoonPrograms.Operations(this);
    }
  }

  /** A CPU benchmark: {@code bursts} bursts of CPU work, no GPU; its run time is its figure. */
  /** CPU work only: each of {@code threads} threads runs {@code bursts} bursts of {@code burstNanos}. */
  record CpuBench(String name, String description, long burstNanos, long bursts, int threads) implements Workload {
    @Override public Program start(long seed) {
      long[] left = {bursts};
      Step burst = new Step.CpuBurst(burstNanos);
      return now -> left[0]-- > 0 ? burst : null;
    }
  }

  /** Benchmarks run one after another in one VM (Table 2); each frees its memory before the next starts. */
  record Sequence(String name, String description, List<Workload> parts) implements Workload {
    Sequence {
      parts = List.copyOf(parts);
    }

    @Override public Program start(long seed) {
      return new GballoonPrograms.Chain(parts, seed);
    }
  }
}
