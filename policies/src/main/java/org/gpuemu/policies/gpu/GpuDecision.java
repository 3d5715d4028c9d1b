package org.gpuemu.policies.gpu;

/** What the GPU scheduler does next. */
public sealed interface GpuDecision {
  /** Hand this request to the GPU now. */
  record Dispatch(GpuWork work) implements GpuDecision {}

  /** Nothing may be dispatched until an event arrives (a request queued or completed). */
  record Idle() implements GpuDecision {}

  /** The one {@link Idle} the policies return (a policy is asked at every event: no new one each time). */
  GpuDecision IDLE = new Idle();

  /** Nothing may be dispatched now; ask again at this emulated time (a budget refills, a slice ends). */
  record WakeAt(long nanos) implements GpuDecision {}
}
