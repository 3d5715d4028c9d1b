package org.gpuemu.policies.gpu;

/**
 * What a policy made of a change to a VM's weight or share during a run ({@link GpuPolicy#setWeight},
 * {@link GpuPolicy#setShare}; the live dashboard's controls): applied from the next decision on, or refused with the
 * reason (a policy that weighs no VM, a share that would take the shares over 1).
 */
public sealed interface LiveChange {
  /** The change is in force from the next decision on. */
  record Applied() implements LiveChange {}

  /** The change was not made, and why. */
  record Refused(String reason) implements LiveChange {}

  LiveChange APPLIED = new Applied();
}
