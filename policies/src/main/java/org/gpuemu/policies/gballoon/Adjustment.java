package org.gpuemu.policies.gballoon;

/** The outcome of Algorithm 1: how many slots to add or take at each end of a range, or why it cannot be done. */
public sealed interface Adjustment {
  /**
   * L and R of Algorithm 1.
   *
   * @param left   slots added before (expansion) or taken from the start of (reduction) the range
   * @param right  slots added after or taken from the end of the range
   * @param shared the sharing count of the choice: for an expansion the slots added times the other vGPUs holding
   *               them (the minimum), for a reduction the slots taken times the other vGPUs holding them (the
   *               maximum)
   */
  record Split(int left, int right, int shared) implements Adjustment {}

  /** Line (1) of either procedure returned ERROR; the reason says why. */
  record Impossible(String reason) implements Adjustment {}
}
