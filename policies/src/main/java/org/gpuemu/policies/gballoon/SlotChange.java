package org.gpuemu.policies.gballoon;

/**
 * One change of a VM's high memory by gBalloon.
 *
 * @param vm           the VM
 * @param before       its range before
 * @param after        its range after
 * @param evictedBytes bytes the VM held beyond its new size, which its guest driver had to return (only a reduction
 *                     above Threshold_high takes memory in use)
 */
public record SlotChange(int vm, SlotRange before, SlotRange after, long evictedBytes) {
  /** Slots gained (positive) or lost (negative). */
  public int delta() {
    return after.size() - before.size();
  }
}
