package org.gpuemu.workloads;

/**
 * One benchmark a program ran (or runs): its name, whether it counts frames (a 3D benchmark, measured in FPS) or
 * operations (a 2D trace, measured by its run time), when it started and ended (model time; -1: still running) and
 * how many frames or operations it issued.
 */
public record BenchmarkRun(String name, boolean byFrames, long startNanos, long endNanos, long count) {
  public BenchmarkRun {
    if (startNanos < 0 || count < 0) throw new IllegalArgumentException(name + ": start and count must be >= 0");
  }

  /** Its frames or operations per second up to its end, or up to {@code runEndNanos} while it runs (0: no time). */
  public double rate(long runEndNanos) {
    long end = endNanos >= 0 ? endNanos : runEndNanos;
    return end > startNanos ? count / ((end - startNanos) / 1e9) : 0;
  }
}
