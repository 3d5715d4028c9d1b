package org.gpuemu.policies.vgris;

/** Whether a VM's {@code Present} may go now. */
public sealed interface PresentDecision {
  /** Present now. */
  record Allow() implements PresentDecision {}

  /** Hold the Present; ask again at this emulated time (the next replenishment that leaves budget). */
  record PostponeUntil(long nanos) implements PresentDecision {}
}
