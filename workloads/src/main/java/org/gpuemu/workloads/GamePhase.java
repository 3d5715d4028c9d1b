package org.gpuemu.workloads;

/**
 * One part of a game or benchmark run (a 3DMark game test, or the whole of a game).
 *
 * @param name          e.g. "gt2"
 * @param durationNanos emulated length of the phase; {@link Long#MAX_VALUE} for endless
 * @param scene         mean per-frame costs
 * @param variation     how costs vary over time
 * @param batches       command batches per frame: the Direct3D runtime submits its command queue in this many
 *                      chunks (each a {@link Step.LaunchKernel} after its share of the CPU work)
 */
public record GamePhase(String name, long durationNanos, Scene scene, Variation variation, int batches) {
  public GamePhase {
    if (durationNanos <= 0) throw new IllegalArgumentException("phase duration must be > 0");
    if (batches <= 0) throw new IllegalArgumentException("batches must be > 0");
  }
}
