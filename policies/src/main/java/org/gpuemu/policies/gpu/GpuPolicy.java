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
   * A vGPU leaves (its VM stopped) after the emulator drained it: nothing of it is queued or in flight. Policies
   * that cannot forget a vGPU keep this default, which refuses, rather than silently keeping its state.
   */
  default void removeVgpu(int vgpu) {
    throw new UnsupportedOperationException(name() + ": vGPUs cannot leave during a run (vGPU " + vgpu + ")");
  }

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
}
