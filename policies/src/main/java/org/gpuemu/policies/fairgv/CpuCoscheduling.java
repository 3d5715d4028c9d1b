package org.gpuemu.policies.fairgv;

import java.util.List;

/**
 * The CPU scheduler's part of FairGV's GPU-centric coscheduling (fairgv.txt Algorithm 4, §4.3): on a {@link
 * CoscheduleRequest} it unblocks the vCPU if it is idle (blocked after hybrid spinning) and tickles the core the
 * vCPU is on, so the core's scheduler picks again. It does not force the pick: a vCPU just woken has the lowest
 * virtual runtime under a CFS-like policy and runs "immediately", yet the CPU policy stays in charge of CPU fairness.
 */
public final class CpuCoscheduling {
  /** What the CPU scheduler does. */
  public sealed interface Action {
    /** {@code wakeup_vcpu}: make the blocked vCPU runnable. */
    record Wake(int vcpu) implements Action {}

    /** {@code resched_cpu}: the core picks its next vCPU now. */
    record Reschedule(int core) implements Action {}
  }

  private CpuCoscheduling() {}

  /** Algorithm 4 for the requested vCPU, on {@code core}, currently {@code idle} (blocked) or not. */
  public static List<Action> algorithm4(int vcpu, int core, boolean idle) {
    return idle
        ? List.of(new Action.Wake(vcpu), new Action.Reschedule(core))
        : List.of(new Action.Reschedule(core));
  }
}
