package org.gpuemu.policies.fairgv;

/** The GPU scheduler's answer to a Pegasus coscheduling request (fairgv.txt Algorithm 2). */
public sealed interface CoscheduleOutcome {
  /** {@code GPU_context_switch(curr_vgpu, target_vgpu)}: the target holds the GPU now ({@code from} -1: nobody did). */
  record Switched(int from, int to) implements CoscheduleOutcome {}

  /** The target already holds the GPU. */
  record AlreadyRunning(int vgpu) implements CoscheduleOutcome {}

  /** {@code continue_running(curr_vgpu)}: the fairness condition failed. */
  record Refused(int target, long targetCredit, int maxVgpu, long maxCredit) implements CoscheduleOutcome {
    /** Why, in words. */
    public String reason() {
      return "vGPU " + target + " has credit " + targetCredit + " below the maximum " + maxCredit + " of vGPU "
          + maxVgpu;
    }
  }
}
