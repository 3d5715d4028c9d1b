package org.gpuemu.policies.gpu;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.gpuemu.policies.ParamChecks;
import org.gpuemu.policies.PolicyParams;

/**
 * Default driver sharing: one global first-come first-serve queue for all vGPUs. This is the baseline of VGRIS
 * §2.2 ("the default GPU scheduling mechanism in Direct3D runtime library tends to allocate resources on a
 * first-come first-serve manner") and of VMCG §1-2 (gVirt's shared command request block queue in Dom0, where "a
 * request block is scheduled in its arrival sequence").
 *
 * <p>Interpretations: arrival order is the order of {@link #queued} calls (the caller delivers them in emulated
 * time order), so there are no ties to break. {@code max-inflight} models the depth of the hardware queue: the
 * head is dispatched while fewer than that many requests are in flight. The per-guest bounded command buffer that
 * makes {@code Present} block is the emulator's vGPU, not this policy. Weights are ignored, as in the baseline. A
 * vGPU may leave once drained; one with requests still queued may not.
 *
 * <p>Parameters: {@code max-inflight} (count, &gt; 0).
 */
public final class FcfsPolicy implements GpuPolicy {
  /** Registry name. */
  public static final String NAME = "fcfs";
  /** Parameter: how many dispatched requests may be in flight at once (a count). */
  public static final String MAX_INFLIGHT = "max-inflight";

  private final int maxInflight;
  private final Set<Integer> vgpus = new HashSet<>();
  private final Deque<GpuWork> queue = new ArrayDeque<>();
  private final RequestLedger ledger;

  /** Reads {@code max-inflight}. */
  public FcfsPolicy(PolicyParams params) {
    this(ParamChecks.positiveCount(params, NAME, MAX_INFLIGHT));
  }

  /** An FCFS queue whose caller already read and checked {@code max-inflight} (VGRIS dispatches through one). */
  public FcfsPolicy(int maxInflight) {
    this.maxInflight = maxInflight;
    this.ledger = new RequestLedger(NAME, maxInflight);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void addVgpu(VgpuParams vgpu) {
    if (!vgpus.add(vgpu.vgpu())) {
      throw new IllegalArgumentException(NAME + ": vGPU " + vgpu.vgpu() + " added twice");
    }
  }

  @Override
  public void removeVgpu(int vgpu) {
    if (!vgpus.contains(vgpu)) {
      throw new IllegalArgumentException(NAME + ": unknown vGPU " + vgpu + " cannot leave");
    }
    if (queue.stream().anyMatch(w -> w.vgpu() == vgpu)) {
      throw new IllegalStateException(NAME + ": vGPU " + vgpu + " left with requests still queued");
    }
    vgpus.remove(vgpu);
  }

  @Override
  public void queued(GpuWork work, long now) {
    if (!vgpus.contains(work.vgpu())) {
      throw new IllegalArgumentException(NAME + ": request " + work.id() + " from unknown vGPU " + work.vgpu());
    }
    ledger.queued(work);
    queue.addLast(work);
  }

  @Override
  public void completed(GpuWork work, long gpuNanos, long now) {
    ledger.completed(work);
  }

  @Override
  public GpuDecision next(long now, int inflight) {
    if (queue.isEmpty() || inflight >= maxInflight) {
      return GpuDecision.IDLE;
    }
    GpuWork head = queue.removeFirst();
    ledger.dispatched(head);
    return new GpuDecision.Dispatch(head);
  }

  @Override
  public List<String> checkInvariants() {
    return ledger.violations();
  }
}
