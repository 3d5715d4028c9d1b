package org.gpuemu.workloads;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The workloads of VMCG (Tan et al., vmcg.txt §6: Intel HD 4600, one vCPU per DomU) as streams of command request
 * blocks (CRBs, one GPU step each). Frame-based ones are {@link GameWorkload}s, whose frames reach the GPU in
 * chunks of about 2 ms ({@link WorkloadCatalog#batchesOf}); compute ones are {@link CrbRun}s. Each is sized so that
 * alone it gives the single-VM frame rate or run time written next to it ({@code VmcgWorkloadsTest} replays every
 * one from its steps), derived from the paper's figures where it gives any and assumed, and said so, where not.
 */
public final class VmcgWorkloads {
  private static final long MS = 1_000_000L;
  private static final long US = 1_000L;
  private static final long ENDLESS = Long.MAX_VALUE;
  /** The longest CRB: the GPU is not preempted, so compute work is cut like a game's frame (about 2 ms). */
  static final long MAX_CRB_NANOS = 2 * MS;
  /**
   * Rodinia: the guest's CPU time to enqueue a CRB over the CRB's GPU time. Assumed (the paper gives no CPU figures):
   * below 1, so a benchmark is GPU-bound alone, and small enough that two VMs sharing one core (three DomUs on two
   * cores, as in passmark-3vms.conf) still enqueue faster than the shared GPU runs their CRBs. See {@link #rodinia}.
   */
  static final double RODINIA_ENQUEUE_PER_GPU = 1.0 / 3;

  private VmcgWorkloads() {}

  /** Every VMCG workload. */
  public static List<Workload> all() {
    List<Workload> list = new ArrayList<>();
    graphics(list);
    dehazing(list);
    rodinia(list);
    return List.copyOf(list);
  }

  /**
   * 2D/3D graphics (§6.2, §6.6). Each frame: CPU work, then its GPU work in ~2 ms batches, then Present; pacing is
   * what is left of the frame when the application runs below what its GPU work allows.
   */
  private static void graphics(List<Workload> list) {
    // PassMark 3D (simple), Fig. 8-9: 312 FPS alone under VMCG (309-314; 325 natively), and three VMs 109-115 FPS
    // each, 330 in all, more than one VM's 312: so one VM alone is not GPU-bound. A benchmark renders as fast as it
    // can (no pacing), so alone it is CPU-bound: 1/312 s = 3.2 ms of CPU per frame (Direct3D runtime, driver and
    // gVirt's trapped submissions on the guest's one vCPU), overlapping 3.0 ms of GPU per frame (three VMs sharing
    // the GPU fully: 1/(3 × 3.0 ms) = 111 FPS each). Stable: 'ideal' ±2 % per frame.
    list.add(frames("passmark-3d", "PassMark 3D simple (vmcg Fig. 8-9): CPU-bound at 312 FPS alone, GPU 3.0 ms/frame",
        new Scene(Math.round(1e9 / 312), 3 * MS, 0), Variation.ideal()));
    // 3D teapot (mesa demo), §6.2: three native processes total 744 FPS with the GPU saturated, so a frame costs
    // 1/744 s = 1.344 ms of GPU; alone it is GPU-bound at 744 FPS (three VMs: 248 each, the paper's VMCG 237-241).
    // CPU 0.3 ms per frame (assumed; teapot is 'much more GPU intensive' than gears).
    list.add(frames("teapot", "3D teapot (vmcg §6.2): GPU-bound, 744 FPS alone (three native processes total 744)",
        Scene.gpuBound(744, 300 * US), Variation.ideal()));
    // 3D gears (mesa demo), §6.2: the paper gives no frame rate, but VMCG and gVirt perform alike on it while VMCG
    // gains 10 % on teapot, and teapot VMs out-render gears VMs (Fig. 11): so gears is not GPU-bound. Assumed:
    // 200 FPS alone, CPU-bound (4.5 ms CPU + 0.5 ms pacing per frame), 0.8 ms GPU per frame; even six VMs then
    // need only 6 × 200 × 0.8 ms = 96 % of the GPU.
    list.add(frames("gears", "3D gears (vmcg §6.2): CPU-bound, 200 FPS alone, GPU 0.8 ms per frame (assumed)",
        Scene.fromUsage(200, 0.16, 0.9), Variation.ideal()));
    // Heaven3D (DirectX), Fig. 8: 15 FPS alone under VMCG (14-15; 17 natively): GPU-bound at 1/15 s = 66.7 ms per
    // frame (33 batches), 5 ms CPU (assumed). Scenes vary by ±3 %, the paper's 14-15 FPS band.
    list.add(frames("heaven3d", "Unigine Heaven 3D (vmcg Fig. 8): GPU-bound, 15 FPS alone",
        Scene.gpuBound(15, 5 * MS), Variation.reality(0.97, 1.03)));
    // 3DMark (DirectX), Fig. 7: the text gives no frame rate. Assumed: its graphics tests run about 40 FPS on an
    // HD 4600, GPU-bound (25 ms per frame), 4 ms CPU, scenes varying ±15 % like the 3DMark tests of vgris §4.
    list.add(frames("3dmark-hd4600", "3DMark on an HD 4600 (vmcg Fig. 7, 17): GPU-bound, ~40 FPS alone (assumed)",
        Scene.gpuBound(40, 4 * MS), Variation.reality(0.85, 1.15)));
    // OpenGL flight (mesa demo), Fig. 16-17: no frame rate given. Assumed: 120 FPS alone, GPU-bound (8.3 ms per
    // frame), 2 ms CPU, scenes varying ±10 % as the view changes.
    list.add(frames("opengl-flight", "OpenGL 3D simulated flight (vmcg Fig. 16-17): GPU-bound, 120 FPS (assumed)",
        Scene.gpuBound(120, 2 * MS), Variation.reality(0.9, 1.1)));
  }

  private static Workload frames(String name, String description, Scene scene, Variation variation) {
    GamePhase phase = new GamePhase("run", ENDLESS, scene, variation, WorkloadCatalog.batchesOf(scene));
    return new GameWorkload(name, description, List.of(phase), false);
  }

  /**
   * OpenCL dehazing of a video (§6.4, §6.6), frame by frame: decode on the CPU, upload and five dehazing kernels
   * (dark channel, atmospheric light, transmission, guided filter, recovery) as CRBs, a blocking read-back of the
   * result (the frame's last CRB), Present. Only the sum matters to the schedulers, so: at 1920x1080, 25 FPS alone
   * under VMCG (22 under gVirt, 5 on the CPU alone): 40 ms per frame, of which 8 ms CPU (assumed) and 32 ms GPU
   * (16 CRBs of 2 ms). At 1024x768 (§6.6, no frame rate given) every part scales with the pixels (0.379): 15.2 ms
   * per frame, 66 FPS.
   */
  private static void dehazing(List<Workload> list) {
    list.add(new CrbRun("dehazing-1080p",
        "OpenCL dehazing of 1920x1080 video (vmcg §6.4): 25 FPS alone, 8 ms CPU + 32 ms GPU per frame",
        8 * MS, 0, 32 * MS, 1, true, ENDLESS));
    double pixels = (1024.0 * 768) / (1920.0 * 1080);
    list.add(new CrbRun("dehazing-768",
        "OpenCL dehazing of 1024x768 video (vmcg §6.6): 1080p's costs scaled by pixels, 66 FPS alone",
        Math.round(8 * MS * pixels), 0, Math.round(32 * MS * pixels), 1, true, ENDLESS));
  }

  /**
   * The 14 Rodinia benchmarks of Table 2 (OpenCL), each a finite run: {@code iterations} of [the iteration's
   * kernels as CRBs, each enqueued by the guest's runtime on its vCPU, then a blocking read-back]. Table 2 times
   * "the same data processing concurrently in each DomU" (§6.4), three VMs at once under gVirt and VMCG; it gives
   * no time alone. OpenCL benchmarks on an integrated GPU are GPU-bound: a CRB's enqueueing (building its command
   * buffer and writing the ring tail, which gVirt traps) takes {@link #RODINIA_ENQUEUE_PER_GPU} of the CRB's GPU
   * time (assumed), so alone a benchmark keeps the GPU busy from its first CRB to its read-back, and three copies
   * queue for the one GPU the whole time. Sharing it fairly, each VM then ends after its own GPU work three times
   * over: a benchmark's GPU work is a third of its Table 2 time (the mean of the three VMCG DomUs), and alone it
   * takes a little over a third (its GPU work plus one CRB's enqueueing per iteration). Every iteration ends with a
   * blocking read-back (Rodinia's reductions, BFS's stop flag, a frame's result); an iteration has at least as
   * many CRBs as the benchmark launches kernels per iteration (approximate counts for the default inputs) and
   * none longer than {@link #MAX_CRB_NANOS}.
   */
  private static void rodinia(List<Workload> list) {
    // name, Table 2 VMCG DomU times (s), iterations with a read-back, kernel launches per iteration
    // 100 diffusion steps: prepare, reduce, srad, srad2
    rodinia(list, new TableRow("srad", 1.448, 1.412, 1.4, 100, 4));
    // forward pass, then weight adjustment
    rodinia(list, new TableRow("backprop", 0.206, 0.216, 0.212, 2, 1));
    // 100 time steps, read back at the end
    rodinia(list, new TableRow("hotspot3d", 0.373, 0.345, 0.365, 1, 100));
    // 2 x 128 - 1 anti-diagonals of 16x16 blocks
    rodinia(list, new TableRow("nw", 0.377, 0.393, 0.384, 1, 255));
    // one level per iteration, stop flag read back
    rodinia(list, new TableRow("bfs", 1.658, 1.694, 1.596, 12, 2));
    // one large kernel, cut into 2 ms CRBs
    rodinia(list, new TableRow("lavamd", 2.239, 2.124, 2.102, 1, 1));
    // per video frame: detection and tracking
    rodinia(list, new TableRow("leukocyte", 4.803, 4.956, 4.911, 5, 2));
    // per frame: likelihood, sum, normalise, resample
    rodinia(list, new TableRow("particlefilter", 0.202, 0.204, 0.189, 10, 4));
    // one distance kernel
    rodinia(list, new TableRow("nn", 0.162, 0.139, 0.158, 1, 1));
    // the j and k queries (B+tree)
    rodinia(list, new TableRow("btree", 0.164, 0.171, 0.168, 2, 1));
    // three levels, rows and columns
    rodinia(list, new TableRow("dwt2d", 0.458, 0.434, 0.44, 1, 6));
    // pyramid steps over the grid
    rodinia(list, new TableRow("hotspot", 1.144, 1.13, 1.123, 1, 30));
    // 100 rows in pyramids of 20
    rodinia(list, new TableRow("pathfinder", 0.296, 0.287, 0.295, 1, 5));
    // 2 (N - 1) launches for N = 64
    rodinia(list, new TableRow("gaussian", 0.194, 0.193, 0.199, 1, 126));
  }

  /**
   * A Rodinia benchmark's row of vmcg Table 2: its times (s) in the three VMCG DomUs, and its iterations with a
   * read-back and kernel launches per iteration (approximate counts for the default inputs).
   */
  private record TableRow(String bench, double t1, double t2, double t3, int iterations, int launches) {}

  private static void rodinia(List<Workload> list, TableRow row) {
    String bench = row.bench();
    int iterations = row.iterations();
    int launches = row.launches();
    double threeVms = (row.t1() + row.t2() + row.t3()) / 3;
    long gpu = Math.round(threeVms / 3 * 1e9 / iterations);
    CrbRun shape = new CrbRun("rodinia-" + bench, "", 0, 0, gpu, launches, false, iterations);
    long enqueue = Math.round(gpu * RODINIA_ENQUEUE_PER_GPU / shape.crbs());
    String description = String.format(Locale.ROOT,
        "Rodinia %s (vmcg Table 2: %.3f s for three VMs under VMCG): GPU-bound, %.3f s alone",
        bench, threeVms, iterations * (gpu + enqueue) / 1e9);
    list.add(new CrbRun("rodinia-" + bench, description, 0, enqueue, gpu, launches, false, iterations));
  }

  /**
   * A GPGPU program as CRBs: {@code iterations} of [CPU work, the iteration's GPU work as CRBs, optional Present].
   * The GPU work is cut into at least {@code launches} CRBs of equal length and at most {@link #MAX_CRB_NANOS}
   * each; every CRB is preceded by {@code enqueueNanos} of CPU work (the guest's runtime building and submitting
   * it); all are asynchronous launches but the last, a synchronous call (the blocking read-back) that waits for
   * everything before it. Alone, an iteration therefore lasts its CPU work, the first CRB's enqueueing and its GPU
   * work, as long as enqueueing a CRB takes less than running one.
   *
   * @param cpuNanos     CPU work at the start of every iteration (0: none)
   * @param enqueueNanos CPU work before every CRB (0: none)
   * @param gpuNanos     GPU work of an iteration (&gt; 0)
   * @param launches     fewest CRBs per iteration (&gt; 0)
   * @param present      whether each iteration ends with Present (a displayed frame)
   * @param iterations   how many; {@link Long#MAX_VALUE} for endless
   */
  record CrbRun(String name, String description, long cpuNanos, long enqueueNanos, long gpuNanos, int launches,
      boolean present, long iterations) implements Workload {
    CrbRun {
      if (cpuNanos < 0 || enqueueNanos < 0 || gpuNanos <= 0 || launches <= 0 || iterations <= 0) {
        throw new IllegalArgumentException(name + ": needs CPU >= 0, GPU > 0, launches > 0, iterations > 0");
      }
    }

    /** CRBs per iteration. */
    int crbs() {
      return (int) Math.max(launches, (gpuNanos + MAX_CRB_NANOS - 1) / MAX_CRB_NANOS);
    }

    @Override public Program start(long seed) {
      KernelSpec crb = KernelSpec.cd(name + "/crb", Math.max(1, gpuNanos / crbs()));
      ArrayDeque<Step> pending = new ArrayDeque<>();
      long[] started = {0};
      return now -> {
        if (pending.isEmpty()) {
          if (started[0]++ >= iterations) return null;
          if (cpuNanos > 0) pending.add(new Step.CpuBurst(cpuNanos));
          for (int i = 1; i <= crbs(); i++) {
            if (enqueueNanos > 0) pending.add(new Step.CpuBurst(enqueueNanos));
            pending.add(i < crbs() ? new Step.LaunchKernel(crb) : new Step.SyncCall(crb));
          }
          if (present) pending.add(new Step.Present());
        }
        return pending.poll();
      };
    }
  }
}
