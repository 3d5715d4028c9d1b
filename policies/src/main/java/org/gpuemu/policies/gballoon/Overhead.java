package org.gpuemu.policies.gballoon;

import java.util.Collection;

/**
 * How gBalloon measures the overhead of GPU memory sharing (gballoon.txt §3.2, Eq. 1-3). Rates are in percent, as
 * the paper writes them.
 */
public final class Overhead {
  private Overhead() {}

  /**
   * One vCPU over a profiling period: w_ij, its steal time (runnable in the ready queue, waiting for a physical CPU),
   * and s_ij, the time it spent in the other queues (running, blocked, idle).
   */
  public record VcpuTime(long stealNanos, long otherNanos) {
    public VcpuTime {
      if (stealNanos < 0 || otherNanos < 0) {
        throw new IllegalArgumentException("steal and other time must be >= 0, got " + stealNanos + ", " + otherNanos);
      }
    }
  }

  /**
   * Eq. 1: R_copy = C / (t × N) × 100 %, the share of the host's CPU time spent copying GTT entries, with C the CPU
   * time the copies took in the period t and N the host's CPUs.
   */
  public static double rcopy(long copyNanos, long periodNanos, int cpus) {
    if (copyNanos < 0 || periodNanos <= 0 || cpus < 1) {
      throw new IllegalArgumentException("Eq. 1 needs C >= 0, t > 0 and N >= 1, got " + copyNanos + ", "
          + periodNanos + ", " + cpus);
    }
    return 100.0 * copyNanos / ((double) periodNanos * cpus);
  }

  /**
   * Eq. 2: W = Σ_i Σ_j w_ij / (w_ij + s_ij) %, summed (not averaged) over every vCPU of every VM, so W can exceed
   * 100 %. A vCPU with no time at all (w + s = 0) adds nothing.
   */
  public static double w(Collection<VcpuTime> vcpus) {
    double sum = 0;
    for (VcpuTime v : vcpus) {
      long total = v.stealNanos() + v.otherNanos();
      sum += total == 0 ? 0 : (double) v.stealNanos() / total;
    }
    return 100 * sum;
  }

  /**
   * Eq. 3: f(W, R_copy) = α·W + β·R_copy with α and β the reciprocals of the largest W and R_copy of the platform,
   * so each term is about 0 to 1 and f about 0 to 2.
   */
  public static double f(double w, double rcopy, double maxW, double maxRcopy) {
    if (!(maxW > 0) || !(maxRcopy > 0)) {
      throw new IllegalArgumentException("Eq. 3 needs max W and max R_copy > 0, got " + maxW + ", " + maxRcopy);
    }
    return w / maxW + rcopy / maxRcopy;
  }
}
