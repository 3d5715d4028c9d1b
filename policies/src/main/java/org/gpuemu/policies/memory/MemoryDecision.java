package org.gpuemu.policies.memory;

/** The answer to a guest's GPU memory allocation. */
public sealed interface MemoryDecision {
  record Granted(long bytes) implements MemoryDecision {}

  /** Refused; the reason reaches the guest and the run's report. */
  record Rejected(String reason) implements MemoryDecision {}
}
