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
