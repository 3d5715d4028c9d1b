package org.gpuemu.policies.cpu;

/** What a physical core does next. */
public sealed interface CpuDecision {
  /** Run this vCPU for at most {@code sliceNanos} of emulated time (it may finish or block earlier). */
  record Run(int vcpu, long sliceNanos) implements CpuDecision {}

  /** No runnable vCPU. */
  record Idle() implements CpuDecision {}

  /** The one {@link Idle} the policies return (a policy is asked at every event: no new one each time). */
  CpuDecision IDLE = new Idle();
}
