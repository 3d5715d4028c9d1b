package org.gpuemu.policies.nvidia;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.gpuemu.policies.gpu.GpuDecision;
import org.gpuemu.policies.gpu.GpuPolicy;
import org.gpuemu.policies.gpu.GpuWork;
import org.gpuemu.policies.gpu.RequestLedger;
import org.gpuemu.policies.gpu.VgpuParams;

/**
 * NVIDIA's equal share and fixed share vGPU schedulers with their default strict round-robin policy (adaptive round
 * robin). Source: NVIDIA AI Enterprise User Guide v5.0, §7 and §7.1-7.3; NVIDIA vGPU knowledge base "vGPU
 * Schedulers" (2025-10-17); NVIDIA AI Enterprise 8.1 "Scheduling Policies" (Table 37).
 *
 * <p>Rules, each with its source:
 * <ul>
 *   <li>Equal share: "The physical GPU is shared equally amongst the running vGPUs that reside on it. As vGPUs are
 *       added to or removed from a GPU, the share [...] changes accordingly" (§7.1). Each powered-on vGPU (between
 *       {@link #addVgpu} and {@link #removeVgpu}) has one turn per round, in vGPU index order.</li>
 *   <li>Fixed share: "Each vGPU is given a fixed share of the physical GPU's processing cycles, the amount of which
 *       depends on the vGPU type, which in turn determines the maximum number of vGPUs per physical GPU [...] each
 *       T4-4C vGPU is given one quarter" (§7.1). A round has {@link VgpuType#maxPerGpu} turns; a vGPU takes the first
 *       free turn when it powers on and keeps it; turns no vGPU holds stay idle. One vGPU type per GPU, since "for
 *       time-sliced vGPUs with different amounts of frame buffer on the same physical GPU [...] the fixed share
 *       scheduler is not supported" (§7.1); a vGPU beyond the type's maximum is refused.</li>
 *   <li>Both "impose a limit on GPU processing cycles used by a vGPU" (§7) and give each VM its fraction "regardless
 *       of its load" / "even when other VMs are idle" (NVAIE 8.1 Table 37): a turn whose vGPU has nothing queued
 *       leaves the GPU idle until the turn ends, and is not handed to another vGPU.</li>
 *   <li>A turn lasts the time slice 1/frequency (§7.3: "The time slice is the inverse of scheduling frequency"),
 *       frequency by default 480 Hz for types with at most 8 vGPUs per GPU, else 960 Hz (§7.3 Table 1).</li>
 *   <li>Overshoot compensation (§7.1): a turn may overshoot its slice; the scheduler keeps each vGPU's accrued
 *       overshoot, shortens that vGPU's next slice by accrued / averaging factor and subtracts the same amount from
 *       the accrued total. Averaging factor 1-60, default 33 (§7.3).</li>
 * </ul>
 * Interpretations where the vendor is silent: the emulated GPU is non-preemptive per request (the emulator's model),
 * so "preempted" at the slice end means no further request of the vGPU is dispatched and the running ones finish; the
 * time from the slice end until they have finished is the turn's overshoot, and the next turn starts then (a context
 * switch waits for the drain, as in every time-sliced policy here). A turn shortened to zero or less is skipped. The
 * legacy behaviour without strict round robin (the vGPU with the least scheduled time first, the default before
 * release 15.0) is not built. Weights and shares of the scenario are not used: NVIDIA's schedulers have none.
 */
public final class ShareSchedulerPolicy implements GpuPolicy {
  /** Equal share or fixed share. */
  public enum Share { EQUAL, FIXED }

  private final String name;
  private final Share share;
  private final VgpuType type;
  private final long sliceNanos;
  private final int averagingFactor;
  private final int maxInflight;
  private final RequestLedger ledger;
  /** Powered-on vGPUs in index order, each with its FIFO of queued requests. */
  private final TreeMap<Integer, Deque<GpuWork>> queues = new TreeMap<>();
  /** Fixed share: the vGPU holding each turn of the round, -1 for none. */
  private final int[] turns;
  private final Map<Integer, Long> accrued = new HashMap<>();
  private final Map<Integer, Long> scheduledNanos = new LinkedHashMap<>();

  private boolean started;
  /** Equal share: the vGPU whose turn it is; fixed share: the turn's index. */
  private int position = -1;
  private long turnEnd;
  private long lastCompletion;
  private long rounds;
  private long overshootNanos;

  /** A checked scheduler; {@code frequencyHz} 63-960, {@code averagingFactor} 1-60 (§7.3). */
  public ShareSchedulerPolicy(String name, Share share, VgpuType type, int frequencyHz, int averagingFactor,
      int maxInflight) {
    if (frequencyHz < VgpuSchedulerSettings.MIN_FREQUENCY_HZ || frequencyHz > VgpuSchedulerSettings.MAX_FREQUENCY_HZ) {
      throw new IllegalArgumentException(name + ": frequency must be 63-960 Hz (RmPVMRL FFF, NVIDIA AI Enterprise "
          + "User Guide v5.0 §7.3), got " + frequencyHz);
    }
    if (averagingFactor < VgpuSchedulerSettings.MIN_AVERAGING_FACTOR
        || averagingFactor > VgpuSchedulerSettings.MAX_AVERAGING_FACTOR) {
      throw new IllegalArgumentException(name + ": averaging-factor must be 1-60 (RmPVMRL AA, NVIDIA AI Enterprise "
          + "User Guide v5.0 §7.3), got " + averagingFactor);
    }
    if (maxInflight <= 0) throw new IllegalArgumentException(name + ": max-inflight must be > 0");
    this.name = name;
    this.share = share;
    this.type = type;
    this.sliceNanos = VgpuSchedulerSettings.sliceNanosOfFrequency(frequencyHz);
    this.averagingFactor = averagingFactor;
    this.maxInflight = maxInflight;
    this.ledger = new RequestLedger(name, maxInflight);
    this.turns = new int[share == Share.FIXED ? type.maxPerGpu() : 0];
    Arrays.fill(turns, -1);
  }

  @Override public String name() {
    return name;
  }

  @Override public void addVgpu(VgpuParams vgpu) {
    if (queues.containsKey(vgpu.vgpu())) throw new IllegalArgumentException(name + ": vGPU " + vgpu.vgpu() + " added twice");
    if (share == Share.FIXED) {
      int free = -1;
      for (int t = 0; t < turns.length && free < 0; t++) if (turns[t] < 0) free = t;
      if (free < 0) {
        throw new IllegalArgumentException(name + ": a GPU holds at most " + type.maxPerGpu() + " " + type.name()
            + " vGPUs (NVIDIA AI Enterprise User Guide v5.0, Appendix A), VM " + vgpu.name() + " is one more");
      }
      turns[free] = vgpu.vgpu();
    }
    queues.put(vgpu.vgpu(), new ArrayDeque<>());
    accrued.put(vgpu.vgpu(), 0L);
    scheduledNanos.putIfAbsent(vgpu.vgpu(), 0L);
  }

  @Override public void removeVgpu(int vgpu) {
    Deque<GpuWork> q = queues.get(vgpu);
    if (q == null) throw new IllegalArgumentException(name + ": unknown vGPU " + vgpu + " cannot leave");
    if (!q.isEmpty()) throw new IllegalStateException(name + ": vGPU " + vgpu + " left with requests still queued");
    queues.remove(vgpu);
    accrued.remove(vgpu);
    for (int t = 0; t < turns.length; t++) if (turns[t] == vgpu) turns[t] = -1;
  }

  @Override public void queued(GpuWork work, long now) {
    Deque<GpuWork> q = queues.get(work.vgpu());
    if (q == null) throw new IllegalArgumentException(name + ": request " + work.id() + " from unknown vGPU " + work.vgpu());
    ledger.queued(work);
    q.addLast(work);
  }

  @Override public void completed(GpuWork work, long gpuNanos, long now) {
    ledger.completed(work);
    lastCompletion = Math.max(lastCompletion, now);
  }

  @Override public GpuDecision next(long now, int inflight) {
    if (queues.isEmpty()) return GpuDecision.IDLE;
    if (!started) {
      if (!anyQueued()) return GpuDecision.IDLE;
      started = true;
      position = share == Share.FIXED ? turns.length - 1 : queues.lastKey();
      turnEnd = now;
    }
    if (now >= turnEnd) {
      if (inflight > 0) return GpuDecision.IDLE; // the turn's last requests drain first; their completion asks again
      long start = Math.max(turnEnd, lastCompletion);
      int owner = owner();
      if (owner >= 0 && lastCompletion > turnEnd) {
        accrued.merge(owner, lastCompletion - turnEnd, Long::sum);
        overshootNanos += lastCompletion - turnEnd;
      }
      if (!anyQueued()) { // nothing to run: the round stops here and starts again with the next request
        started = false;
        return GpuDecision.IDLE;
      }
      advance(start, now);
    }
    int owner = owner();
    Deque<GpuWork> q = owner >= 0 ? queues.get(owner) : null;
    if (q == null || q.isEmpty()) return new GpuDecision.WakeAt(turnEnd); // its turn idles: no one else may use it
    if (inflight >= maxInflight) return GpuDecision.IDLE;
    GpuWork head = q.removeFirst();
    ledger.dispatched(head);
    return new GpuDecision.Dispatch(head);
  }

  /**
   * Moves to the turn that holds {@code now}: turn after turn from {@code start}, each of its slice less the
   * compensation of its vGPU's accrued overshoot (§7.1), a turn of zero length skipped.
   */
  private void advance(long start, long now) {
    turnEnd = start;
    do {
      nextPosition();
      int owner = owner();
      long length = sliceNanos;
      if (owner >= 0) {
        long compensation = accrued.get(owner) / averagingFactor;
        accrued.merge(owner, -compensation, Long::sum);
        length = Math.max(0, sliceNanos - compensation);
        scheduledNanos.merge(owner, length, Long::sum);
      }
      turnEnd += length;
    } while (turnEnd <= now);
  }

  private void nextPosition() {
    if (share == Share.FIXED) {
      position = (position + 1) % turns.length;
      if (position == 0) rounds++;
      return;
    }
    Integer after = queues.higherKey(position);
    if (after == null) {
      after = queues.firstKey();
      rounds++;
    }
    position = after;
  }

  /** The vGPU whose turn it is, -1 for a fixed-share turn no vGPU holds. */
  private int owner() {
    if (share == Share.FIXED) return position >= 0 ? turns[position] : -1;
    return queues.containsKey(position) ? position : -1;
  }

  private boolean anyQueued() {
    for (Deque<GpuWork> q : queues.values()) if (!q.isEmpty()) return true;
    return false;
  }

  /** The time slice of one turn before compensation (nanoseconds). */
  public long sliceNanos() {
    return sliceNanos;
  }

  /** The fraction of the GPU one powered-on vGPU gets when every vGPU is busy. */
  public double fractionPerVgpu() {
    return share == Share.FIXED ? type.fixedShare() : 1.0 / Math.max(1, queues.size());
  }

  @Override public List<String> checkInvariants() {
    List<String> violations = new ArrayList<>(ledger.violations());
    for (Map.Entry<Integer, Long> e : accrued.entrySet()) {
      if (e.getValue() < 0) violations.add(name + ": vGPU " + e.getKey() + " has negative accrued overshoot " + e.getValue());
    }
    int held = 0;
    for (int t : turns) if (t >= 0) held++;
    if (share == Share.FIXED && held != queues.size()) {
      violations.add(name + ": " + held + " fixed-share turns held by " + queues.size() + " vGPUs");
    }
    return violations;
  }

  @Override public Map<String, Object> figures() {
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("scheduler", share == Share.FIXED ? "fixed-share" : "equal-share");
    f.put("vgpu_type", type.name());
    f.put("time_slice_us", sliceNanos / 1_000.0);
    f.put("averaging_factor", averagingFactor);
    f.put("rounds", rounds);
    f.put("overshoot_ms", overshootNanos / 1e6);
    return f;
  }
}
