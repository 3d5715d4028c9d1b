package org.gpuemu.policies.vgris;

/** What a VM's agent does with each {@code Present} the guest calls, while the current algorithm is in force. */
public sealed interface PresentMode {
  /** Present goes straight to the vGPU: the policy does not intercept it (every non-VGRIS policy). */
  record PassThrough() implements PresentMode {}

  /**
   * SLA-aware (VGRIS §3.2): Flush, then sleep {@link SlaPacer#sleepBeforePresent} so the frame lasts
   * {@code targetLatencyNanos}, then Present; the Present cost is predicted from the last {@code presentHistory}.
   */
  record SlaAware(long targetLatencyNanos, int presentHistory) implements PresentMode {}

  /**
   * Proportional share (VGRIS §3.2): before each Present ask {@link PresentGate#requestPresent}; {@code share} is
   * the VM's current s_i.
   */
  record ProportionalShare(double share) implements PresentMode {}
}
