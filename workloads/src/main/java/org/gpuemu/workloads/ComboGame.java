package org.gpuemu.workloads;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A cloud game as COMBO co-locates it (combo.txt §6.2: "The cloud games contain RT kernels and CD kernels"): frames
 * released at a fixed rate, each a short CPU burst and then its render kernels, CUDA-core (CD) kernels first and
 * the ray-tracing (RT) kernel last ("Games commonly first uses CUDA Cores for traditional rendering, and then
 * perform ray tracing through RT Cores", §1), then {@code Present}.
 *
 * <p>Each frame renders a {@link RenderScene}; its kernels' solo durations on the whole GPU follow Eq. 4 exactly,
 * {@code rt = a × height × width × sample} and {@code cd = b × height × width × num_triangle}, with the game's own
 * coefficients a and b chosen so that its mean scene renders in {@code meanRenderNanos} with {@code rtShare} of
 * it ray tracing. The paper's predictor fits Eq. 4 within 5.16 %; here Eq. 4 is the ground truth, so a predictor
 * fitted on {@link #profile()} is exact and every QoS miss an emulation shows comes from scheduling, not from
 * prediction error. The load moves from frame to frame by the game's {@link LoadTrace}, which scales samples and
 * triangles together.
 *
 * <p>Frames are paced at a fixed rate from the program's start, frame k due at k/fps (a deterministic frequency,
 * §1): the program sleeps until then, and when it is late it renders at once without skipping frames.
 */
public final class ComboGame implements Workload {
  /** Table 2: every game runs at 2560×1440. */
  public static final int WIDTH = 2560;
  public static final int HEIGHT = 1440;
  /**
   * The mean scene: 1 ray sample per pixel (OptiX samples' default) and 1,000,000 triangles. Assumed; only the
   * products a × samples and b × triangles matter, and the coefficients are derived from the render times.
   */
  static final RenderScene MEAN_SCENE = new RenderScene(WIDTH, HEIGHT, 1.0, 1_000_000);
  /** CD kernels per frame (G-buffer, lighting, post-processing, composition; assumed). */
  static final int CD_KERNELS = 4;
  /** Figure 5's PTB render kernel: 128 threads per block, one thread per pixel. */
  static final int THREADS_PER_BLOCK = 128;
  /** Offline profiling (§6.1, §6.7): frames at this many load levels, evenly from the trace's lowest to highest. */
  static final int PROFILE_LEVELS = 9;

  private final String name;
  private final String description;
  private final double fps;
  private final long meanRenderNanos;
  private final double rtShare;
  private final long cpuNanos;
  private final LoadTrace trace;
  /** Eq. 4's a: nanoseconds per pixel-sample. */
  private final double a;
  /** Eq. 4's b: nanoseconds per pixel-triangle. */
  private final double b;

  /**
   * Every frame of a game: released {@code fps} times a second, its mean scene rendering in {@code meanRenderNanos}
   * on the whole GPU, {@code rtShare} of it in the RT kernel, after {@code cpuNanos} of CPU work.
   */
  public record Frames(double fps, long meanRenderNanos, double rtShare, long cpuNanos) {}

  /** A game whose frames are {@code frames}, their load moving by {@code trace}. */
  public ComboGame(String name, String description, Frames frames, LoadTrace trace) {
    double fps = frames.fps();
    long meanRenderNanos = frames.meanRenderNanos();
    double rtShare = frames.rtShare();
    long cpuNanos = frames.cpuNanos();
    if (!(fps > 0) || Double.isInfinite(fps)) throw new IllegalArgumentException(name + ": fps must be > 0: " + fps);
    if (meanRenderNanos <= 0 || cpuNanos <= 0) throw new IllegalArgumentException(name + ": times must be > 0");
    if (!(rtShare > 0 && rtShare < 1)) throw new IllegalArgumentException(name + ": RT share must be in (0, 1)");
    this.name = name;
    this.description = description;
    this.fps = fps;
    this.meanRenderNanos = meanRenderNanos;
    this.rtShare = rtShare;
    this.cpuNanos = cpuNanos;
    this.trace = trace;
    this.a = meanRenderNanos * rtShare / MEAN_SCENE.pixelSamples();
    this.b = meanRenderNanos * (1 - rtShare) / MEAN_SCENE.pixelTriangles();
  }

  @Override public String name() { return name; }

  @Override public String description() { return description; }

  /** Frames per second; the QoS target of a frame is 1/fps. */
  public double fps() { return fps; }

  /** Render time of the mean scene on the whole GPU. */
  public long meanRenderNanos() { return meanRenderNanos; }

  /** The RT kernel's share of the mean scene's render time. */
  public double rtShare() { return rtShare; }

  public LoadTrace trace() { return trace; }

  /** Solo duration of a scene's RT kernel on the whole GPU: Eq. 4's time_rt. */
  public long rtNanos(RenderScene scene) {
    return Math.max(1, Math.round(a * scene.pixelSamples()));
  }

  /** Solo duration of a scene's CD kernels together on the whole GPU: Eq. 4's time_cuda. */
  public long cdNanos(RenderScene scene) {
    return Math.max(CD_KERNELS, Math.round(b * scene.pixelTriangles()));
  }

  /** The scene of every frame of a run started with {@code seed}: what the host knows before a frame launches. */
  public SceneTrace scenes(long seed) {
    return new SceneTrace(trace.levels(seed ^ name.hashCode()));
  }

  /** One frame measured offline: its scene and its kernels' solo durations on the whole GPU. */
  public record ProfiledFrame(RenderScene scene, long rtNanos, long cdNanos) {}

  /** Offline profile for fitting Eq. 4: frames at {@value #PROFILE_LEVELS} load levels spanning the trace's range. */
  public List<ProfiledFrame> profile() {
    List<ProfiledFrame> frames = new ArrayList<>();
    for (int i = 0; i < PROFILE_LEVELS; i++) {
      double factor = trace.low() + (trace.high() - trace.low()) * i / (PROFILE_LEVELS - 1);
      RenderScene scene = MEAN_SCENE.scaled(factor);
      frames.add(new ProfiledFrame(scene, rtNanos(scene), cdNanos(scene)));
    }
    return List.copyOf(frames);
  }

  @Override public Program start(long seed) {
    return new FrameLoop(scenes(seed));
  }

  /** The scenes of one run, frame by frame; any frame may be asked for again. */
  public final class SceneTrace {
    private final LoadTrace.Levels levels;

    private SceneTrace(LoadTrace.Levels levels) {
      this.levels = levels;
    }

    /** The scene of frame {@code frame} (0-based). */
    public RenderScene scene(long frame) {
      return MEAN_SCENE.scaled(levels.factor(frame));
    }
  }

  private final class FrameLoop implements Program {
    private final SceneTrace scenes;
    private final ArrayDeque<Step> pending = new ArrayDeque<>();
    private final int blocks = (int) (MEAN_SCENE.pixels() / THREADS_PER_BLOCK);
    private long frame;
    /** The time of the first step: frames are paced from it (the vCPU passes its clock, which a VM that starts
     * late has advanced before the program's first step). */
    private long startedAt = -1;

    private FrameLoop(SceneTrace scenes) {
      this.scenes = scenes;
    }

    @Override public Step next(long emulatedNanos) {
      if (startedAt < 0) startedAt = emulatedNanos;
      if (pending.isEmpty()) plan(emulatedNanos);
      return pending.poll();
    }

    private void plan(long now) {
      long due = startedAt + Math.round(frame * 1e9 / fps);
      if (due > now) pending.add(new Step.Sleep(due - now));
      pending.add(new Step.CpuBurst(cpuNanos));
      RenderScene scene = scenes.scene(frame);
      long cd = cdNanos(scene);
      long each = cd / CD_KERNELS;
      for (int i = 0; i < CD_KERNELS; i++) {
        long nanos = i < CD_KERNELS - 1 ? each : cd - each * (CD_KERNELS - 1);
        pending.add(new Step.LaunchKernel(new KernelSpec(name + "/cd", KernelType.CD, blocks, nanos)));
      }
      pending.add(new Step.LaunchKernel(new KernelSpec(name + "/rt", KernelType.RT, blocks, rtNanos(scene))));
      pending.add(new Step.Present());
      frame++;
    }
  }
}
