package org.gpuemu.policies.vmcg;

import java.util.SortedMap;
import java.util.TreeMap;

/**
 * VMCG's credit model (vmcg.txt §4.1, Eq. 1-2). A VM's part of the GPU grows exponentially with the product of its
 * PCI-E bandwidth occupancy and graphics memory size and linearly with the command request blocks (CRBs) waiting
 * in its pending queue:
 *
 * <pre>
 *   part_i = (e^(BW_i·MSIZE_i) + NUM_i) / (e^(BW·MSIZE) + Σ_j NUM_j),   TIME_i = part_i·TIME,   CREDIT_i = part_i·CREDIT
 * </pre>
 *
 * <p>Normalisation, which the paper leaves open (it gives no units): BW_i is the VM's share of the PCI-E bandwidth,
 * BW_i/BW, and MSIZE_i its share of the graphics memory, MSIZE_i/MSIZE, both in [0, 1], so BW = MSIZE = 1 and the
 * denominator's term is e. Raw units would make e^(BW·MSIZE) overflow (16 GB/s × 2 GB) or depend on the unit
 * chosen; with shares, one VM that holds the whole bus, all the memory and every pending CRB gets exactly TIME and
 * CREDIT, and a VM with no traffic and no memory weighs e^0 = 1, as much as one pending CRB.
 *
 * <p>The parts are kept as the paper writes them, not rescaled to sum to 1: Σ_i e^(x_i) is not e^(Σ_i x_i), so with
 * several VMs Σ_i CREDIT_i differs from CREDIT by (Σ_i e^(x_i) − e)/(e + Σ_j NUM_j) of CREDIT, a few percent once
 * dozens of CRBs wait. Credits are whole: CREDIT_i is rounded to the nearest integer, and a VM with CRBs pending
 * gets at least 1, so that no VM is starved by rounding (the paper's objection to BAND, §7, is that a VM may never
 * get the GPU).
 *
 * <p>Priorities. Figures 16-17 give three VMs priorities 1:1:1 and 4:2:1, and §6.3's λ measures throughput shares
 * against them, but Eq. 1-2 have no priority term. VMCG's credits are "inspired by the idea of credit-based
 * scheduling that is used to guarantee CPU resource scheduling fairness in Xen" (§3), where each domain's credits
 * per accounting period are proportional to its weight. So a VM's part is multiplied by its priority over the mean
 * priority of the VMs: part_i · p_i / p̄. With equal priorities the factor is exactly 1 and Eq. 1-2 are as printed
 * (the 34/33/33 example holds); with 4:2:1 and equal demands the credits follow 4:2:1 (factors 12/7, 6/7, 3/7),
 * and their sum stays that of the unweighted parts.
 */
public final class CreditModel {
  /** e^(BW·MSIZE) with BW = MSIZE = 1 (shares of the whole bus and memory). */
  private static final double WHOLE_GPU = Math.E;

  private CreditModel() {}

  /**
   * What Eq. 1-2 know about one VM.
   *
   * @param bwShare     BW_i/BW: the VM's share of the PCI-E bandwidth, in [0, 1]
   * @param memoryShare MSIZE_i/MSIZE: the VM's share of the graphics memory, in [0, 1]
   * @param pendingCrbs NUM_i: CRBs in the VM's pending queue (req[i]), &gt;= 0
   * @param priority    the VM's priority (its Xen weight), &gt; 0; only its ratio to the others' matters
   */
  public record Demand(double bwShare, double memoryShare, long pendingCrbs, double priority) {
    public Demand {
      checkShare("PCI-E bandwidth", bwShare);
      checkShare("graphics memory", memoryShare);
      if (pendingCrbs < 0) {
        throw new IllegalArgumentException("pending CRBs must be >= 0, got " + pendingCrbs);
      }
      if (!(priority > 0) || Double.isInfinite(priority)) {
        throw new IllegalArgumentException("priority must be finite and > 0, got " + priority);
      }
    }

    /** A VM of priority 1 (all VMs alike: Eq. 1-2 as printed). */
    public Demand(double bwShare, double memoryShare, long pendingCrbs) {
      this(bwShare, memoryShare, pendingCrbs, 1);
    }
  }

  /** Fails unless {@code share} (of the bus or of the memory) is in [0, 1]. */
  static void checkShare(String what, double share) {
    if (!(share >= 0 && share <= 1)) {
      throw new IllegalArgumentException(what + " share must be in [0, 1], got " + share);
    }
  }

  /** part_i of Eq. 1-2 for every VM, by vGPU, times its priority over the mean priority. */
  public static SortedMap<Integer, Double> parts(SortedMap<Integer, Demand> demands) {
    long totalPending = demands.values().stream().mapToLong(Demand::pendingCrbs).sum();
    double denominator = WHOLE_GPU + totalPending;
    double meanPriority = demands.values().stream().mapToDouble(Demand::priority).average().orElse(1);
    SortedMap<Integer, Double> parts = new TreeMap<>();
    demands.forEach((vgpu, d) -> parts.put(vgpu, (Math.exp(d.bwShare() * d.memoryShare()) + d.pendingCrbs())
        / denominator * (d.priority() / meanPriority)));
    return parts;
  }

  /** Eq. 1: TIME_i, the GPU time each VM is entitled to out of {@code totalNanos} (TIME), in whole nanoseconds. */
  public static SortedMap<Integer, Long> times(SortedMap<Integer, Demand> demands, long totalNanos) {
    SortedMap<Integer, Long> times = new TreeMap<>();
    parts(demands).forEach((vgpu, part) -> times.put(vgpu, Math.round(part * totalNanos)));
    return times;
  }

  /** Eq. 2: CREDIT_i out of {@code totalCredits} (CREDIT), rounded, at least 1 for a VM with CRBs pending. */
  public static SortedMap<Integer, Long> credits(SortedMap<Integer, Demand> demands, long totalCredits) {
    SortedMap<Integer, Long> credits = new TreeMap<>();
    parts(demands).forEach((vgpu, part) -> {
      long credit = Math.round(part * totalCredits);
      credits.put(vgpu, demands.get(vgpu).pendingCrbs() > 0 ? Math.max(1, credit) : credit);
    });
    return credits;
  }
}
