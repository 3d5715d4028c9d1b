package org.gpuemu.workloads;

/**
 * A stretch of a game with fixed per-frame costs, as emulated nanoseconds.
 *
 * @param cpuNanos   CPU time per frame (game logic, draw-call recording)
 * @param gpuNanos   GPU time per frame alone on the whole GPU
 * @param pacingNanos time per frame the game spends neither on CPU nor waiting for the GPU (frame pacing, I/O,
 *                   its other threads); it is why a game that is not GPU- or CPU-bound still has a finite FPS
 */
public record Scene(long cpuNanos, long gpuNanos, long pacingNanos) {
  public Scene {
    if (cpuNanos <= 0 || gpuNanos <= 0 || pacingNanos < 0) {
      throw new IllegalArgumentException("scene needs cpu > 0, gpu > 0, pacing >= 0: " + this);
    }
  }

  /**
   * The scene of a game measured alone (vgris.txt Table 1): at {@code fps} the frame lasts T = 1/fps; the GPU is
   * busy {@code gpuUsage}·T and the CPU {@code cpuUsage}·T per frame. CPU and GPU work overlap (Direct3D queues
   * frames asynchronously), so the frame is as long as its CPU part plus pacing: pacing = T − cpu. Run alone,
   * such a game reproduces its FPS, GPU usage and CPU usage; under contention its GPU work may no longer fit T.
   */
  public static Scene fromUsage(double fps, double gpuUsage, double cpuUsage) {
    double frame = 1e9 / fps;
    long gpu = Math.round(frame * gpuUsage);
    long cpu = Math.round(frame * cpuUsage);
    long pacing = Math.max(0, Math.round(frame) - cpu);
    return new Scene(cpu, gpu, pacing);
  }

  /**
   * A frame loop aiming at {@code fps}: after its CPU work the frame sleeps what is left of 1/fps, as
   * {@link #fromUsage} paces the catalog's games; {@code fps = 0} is unpaced (frames back to back).
   */
  public static Scene paced(double fps, long cpuNanos, long gpuNanos) {
    long pacing = fps > 0 ? Math.max(0, Math.round(1e9 / fps) - cpuNanos) : 0;
    return new Scene(cpuNanos, gpuNanos, pacing);
  }

  /** A GPU-bound scene: the GPU is busy the whole frame, the CPU for {@code cpuNanos}, no pacing. */
  public static Scene gpuBound(double fps, long cpuNanos) {
    return new Scene(cpuNanos, Math.round(1e9 / fps), 0);
  }

  /** The same scene with its CPU and GPU costs multiplied by {@code factor} (scene complexity). */
  public Scene scaled(double factor) {
    return new Scene(Math.max(1, Math.round(cpuNanos * factor)), Math.max(1, Math.round(gpuNanos * factor)),
        pacingNanos);
  }
}
