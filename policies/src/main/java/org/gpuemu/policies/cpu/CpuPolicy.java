package org.gpuemu.policies.cpu;

import java.util.List;

/**
 * A CPU scheduling policy for one physical core: events in, decisions out; no clocks, no threads.
 * The CpuScheduler actor asks {@link #pick} whenever the core is free and reports what ran with {@link #ran}.
 */
public interface CpuPolicy {
  String name();

  /** A vCPU becomes runnable (it has a CPU burst, spins, or was woken). Idempotent for an already runnable vCPU. */
  void runnable(int vcpu, int weight, long now);

  /** A vCPU leaves the run queue (burst done, blocked). Idempotent. */
  void blocked(int vcpu, long now);

  /** Which runnable vCPU runs next, and for how long at most. The picked vCPU stays runnable until blocked. */
  CpuDecision pick(long now);

  /** The vCPU given by the last pick ran for {@code nanos} of emulated time. */
  void ran(int vcpu, long nanos, long now);

  /**
   * Whether {@code woken}, just made runnable, takes the core from {@code running} now (CFS's wakeup preemption).
   * The caller has reported with {@link #ran} what {@code running} ran so far. Default: never.
   */
  default boolean preempts(int woken, int running, long now) {
    return false;
  }

  /**
   * Makes a runnable {@code vcpu} the next pick, once (a coscheduling request: the GPU needs that vCPU now). It
   * still pays for what it runs, so fairness holds over time. Default: ignored.
   */
  default void boost(int vcpu, long now) {}

  /**
   * The running {@code vcpu} yields the core at {@code now} (a guest waiting for a reply gives up the rest of its
   * slice, FairGV §5.4.3's Credit-hs): it stays runnable, and the next {@link #pick} prefers another runnable vCPU as
   * the policy defines it. Default: ignored (the vCPU may be picked again at once).
   */
  default void yielded(int vcpu, long now) {}

  /** Violations of the policy's own invariants (empty when consistent). */
  List<String> checkInvariants();
}
