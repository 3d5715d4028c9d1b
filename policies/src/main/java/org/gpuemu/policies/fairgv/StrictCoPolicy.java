package org.gpuemu.policies.fairgv;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.gpu.GpuDecision;
import org.gpuemu.policies.gpu.GpuWork;
import org.gpuemu.policies.gpu.LiveChange;
import org.gpuemu.policies.gpu.VgpuParams;

/**
 * Pegasus's strict coscheduling, FairGV's baseline {@code strict-co} (fairgv.txt §3.2.3, Algorithms 1–2, §5.3:
 * "The algorithm of Strict coscheduling is from Pegasus and is based on Credit scheduling"): a {@link CreditPolicy}
 * whose CPU scheduler, when it picks a vCPU of a VM with a vGPU, asks the GPU scheduler to switch to that vGPU
 * ({@link #coschedule}). The GPU scheduler does so only if the target's credit is at least the maximum credit of
 * the others (Algorithm 2's fairness condition check); the preempted vGPU goes to the tail of the run queue
 * "without fully spending its time slice", and the target starts a fresh slice.
 *
 * <p>Interpretations: "the others" are the vGPUs contending for the GPU (the holder and the run queue), since the
 * condition is about which vGPU should be running; with no other contender the switch is granted. The guests poll
 * ({@link GuestWait#POLL}): coscheduling exists to put a polling vCPU and its vGPU online together, and §5.4.3
 * contrasts it with Credit-poll's useless spinning rather than with Credit-hs.
 *
 * <p>Parameters: those of {@link CreditPolicy}.
 */
public final class StrictCoPolicy implements CpuCentricCoscheduling, GuestWaitRule {
  /** Registry name. */
  public static final String NAME = "strict-co";

  private final CreditPolicy credit;

  /** Reads the parameters of {@link CreditPolicy}. */
  public StrictCoPolicy(PolicyParams params) {
    this.credit = new CreditPolicy(NAME, GuestWait.POLL, params);
  }

  /**
   * Algorithm 2's decision: switch from {@code current} to {@code target} when the target's credit is at least the
   * maximum of {@code others} (vGPU to credit, the target not among them).
   */
  public static CoscheduleOutcome algorithm2(int current, int target, long targetCredit, Map<Integer, Long> others) {
    if (current == target) return new CoscheduleOutcome.AlreadyRunning(target);
    int maxVgpu = -1;
    long maxCredit = Long.MIN_VALUE;
    for (Map.Entry<Integer, Long> e : new TreeMap<>(others).entrySet()) {
      if (e.getValue() > maxCredit) {
        maxVgpu = e.getKey();
        maxCredit = e.getValue();
      }
    }
    return maxVgpu < 0 || targetCredit >= maxCredit
        ? new CoscheduleOutcome.Switched(current, target)
        : new CoscheduleOutcome.Refused(target, targetCredit, maxVgpu, maxCredit);
  }

  @Override
  public CoscheduleOutcome coschedule(int targetVgpu, long now) {
    if (!credit.contains(targetVgpu)) {
      throw new IllegalArgumentException(NAME + ": coscheduling request for unknown vGPU " + targetVgpu);
    }
    credit.advance(now);
    Map<Integer, Long> others = new TreeMap<>();
    for (int v : credit.contenders(targetVgpu)) {
      others.put(v, credit.credit(v));
    }
    CoscheduleOutcome outcome = algorithm2(credit.owner(), targetVgpu, credit.credit(targetVgpu), others);
    if (outcome instanceof CoscheduleOutcome.Switched) credit.switchTo(targetVgpu, now);
    return outcome;
  }

  @Override
  public GuestWait guestWait() {
    return GuestWait.POLL;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void addVgpu(VgpuParams vgpu) {
    credit.addVgpu(vgpu);
  }

  @Override
  public LiveChange setWeight(int vgpu, int weight, long now) {
    return credit.setWeight(vgpu, weight, now);
  }

  @Override
  public void removeVgpu(int vgpu) {
    credit.removeVgpu(vgpu);
  }

  @Override
  public void queued(GpuWork work, long now) {
    credit.queued(work, now);
  }

  @Override
  public void completed(GpuWork work, long gpuNanos, long now) {
    credit.completed(work, gpuNanos, now);
  }

  @Override
  public GpuDecision next(long now, int inflight) {
    return credit.next(now, inflight);
  }

  @Override
  public List<String> checkInvariants() {
    return credit.checkInvariants();
  }

  /** The vGPU holding the GPU, or -1. */
  public int owner() {
    return credit.owner();
  }

  /** A vGPU's credit, in nanoseconds of GPU time. */
  public long credit(int vgpu) {
    return credit.credit(vgpu);
  }
}
