package org.gpuemu.policies.gpu;

import java.util.List;

/**
 * A GPU time-sharing policy: events in, decisions out. Never reads a clock, never sleeps; every time it is given
 * is emulated nanoseconds since the run started. Driven by one GpuScheduler actor, so not thread-safe.
 */
public interface GpuPolicy {
  /** Stable registry name ("fcfs", "round-robin", ...). */
  String name();

  /** A vGPU joins (before any of its work is queued). */
  void addVgpu(VgpuParams vgpu);

  /**
   * A vGPU leaves (its VM stopped) after the emulator drained it: nothing of it is queued or in flight. Every
   * policy must forget it (a VM may stop mid-run, VGRIS Figure 11).
   */
  void removeVgpu(int vgpu);

  /** A request was queued on a vGPU's ring. */
  void queued(GpuWork work, long now);

  /** A dispatched request finished; {@code gpuNanos} is the GPU time it was accounted. */
  void completed(GpuWork work, long gpuNanos, long now);

  /**
   * The next decision. {@code inflight} is how many dispatched requests have not completed yet; the caller
   * asks again after every event and whenever a {@link GpuDecision.WakeAt} time is reached, and dispatches at
   * most one request per call.
   */
  GpuDecision next(long now, int inflight);

  /**
   * VM {@code vgpu}'s weight becomes {@code weight} (&gt; 0) from the next decision on (a change during the run, the
   * live dashboard's control). Refused by default: a policy that weighs no VM has nothing to change.
   */
  default LiveChange setWeight(int vgpu, int weight, long now) {
    return new LiveChange.Refused(name() + " gives no VM a weight");
  }

  /**
   * VM {@code vgpu}'s GPU share becomes {@code share} (in (0, 1]) from the next decision on, as {@link #setWeight}.
   * Refused by default: a policy without proportional shares has nothing to change.
   */
  default LiveChange setShare(int vgpu, double share, long now) {
    return new LiveChange.Refused(name() + " has no configured shares");
  }

  /** Violations of the policy's own invariants (empty when consistent). */
  List<String> checkInvariants();

  /**
   * The policy's own figures at the end of a run (counts, totals), written to summary.json under the policy's name
   * beside the emulator's; keys in snake_case, values numbers or strings. None by default.
   */
  default java.util.Map<String, Object> figures() {
    return java.util.Map.of();
  }
}
