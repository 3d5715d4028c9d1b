package org.gpuemu.emulator.bench;

import org.gpuemu.workloads.ComputeLoop;
import org.gpuemu.workloads.GamePhase;
import org.gpuemu.workloads.GameWorkload;
import org.gpuemu.workloads.Scene;
import org.gpuemu.workloads.Workload;

/**
 * What a workload achieves alone on an ideal emulator (no timer lateness, no message latency): FairGV's
 * "aggregated overhead" baseline, applied to the emulator itself. Derived from the workload's own figures and the
 * emulated machine's rules, never measured:
 *
 * <ul>
 *   <li>a compute loop ({@link ComputeLoop}) runs CPU work, launches, then a synchronous call that waits for
 *       everything queued: an iteration is CPU + all its kernels back to back (with {@code sync-wait = poll}, so no
 *       wake-up slot), and its rate is in kernels per second;
 *   <li>a single-phase game ({@link GameWorkload}) queues frames (Direct3D's command buffer), so a frame lasts as
 *       long as the longer of its CPU side (CPU bursts + pacing) and its GPU side (its batches), and its rate is in
 *       frames per second. Per-frame jitter averages out; scene variation does not (multi-phase or varying games
 *       have no analytic ideal here).
 * </ul>
 *
 * @param unit "kernels/s" or "fps"
 * @param perSecond the ideal rate, per emulated second
 * @param gpuUsage the GPU's busy fraction at that rate: the rate's continuous proxy (GPU time is accounted to the
 *     nanosecond, frames and kernels only by whole units), used to measure a run against the ideal
 * @param shortestStepNanos the shortest timed step the guest itself waits for (a CPU burst, a sleep, a synchronous
 *     call's GPU work): the bench's scale criterion keeps p99 timer lateness under a tenth of it
 */
record Ideal(String unit, double perSecond, double gpuUsage, long shortestStepNanos) {

  /** The ideal of a workload alone; {@link IllegalArgumentException} when it has none. */
  static Ideal of(Workload workload) {
    if (workload instanceof ComputeLoop loop) return ofLoop(loop);
    if (workload instanceof GameWorkload game) return ofGame(game);
    throw new IllegalArgumentException("no analytic ideal for workload " + workload.name());
  }

  private static Ideal ofLoop(ComputeLoop loop) {
    long gpu = loop.asyncPerIter() * loop.kernelNanos() + loop.syncNanos();
    long iteration = loop.cpuNanos() + gpu;
    return new Ideal("kernels/s", (loop.asyncPerIter() + 1) * 1e9 / iteration, (double) gpu / iteration,
        Math.min(loop.cpuNanos(), gpu));
  }

  private static Ideal ofGame(GameWorkload game) {
    if (game.phases().size() != 1 || game.phases().get(0).variation().sceneLow()
        != game.phases().get(0).variation().sceneHigh()) {
      throw new IllegalArgumentException("no analytic ideal for " + game.name()
          + ": only single-phase games with a fixed scene have one");
    }
    GamePhase phase = game.phases().get(0);
    Scene s = phase.scene();
    int b = phase.batches();
    // As the frame loop splits them: whole nanoseconds per batch, at least one.
    long cpuEach = Math.max(1, s.cpuNanos() / b);
    long gpuEach = Math.max(1, s.gpuNanos() / b);
    long cpuSide = b * cpuEach + s.pacingNanos();
    long gpuSide = b * gpuEach;
    long frame = Math.max(cpuSide, gpuSide);
    long shortest = s.pacingNanos() > 0 ? Math.min(cpuEach, s.pacingNanos()) : cpuEach;
    return new Ideal("fps", 1e9 / frame, (double) gpuSide / frame, shortest);
  }
}
