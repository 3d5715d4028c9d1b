package org.gpuemu.policies.gballoon;

import java.util.List;

/**
 * What a GPU context switch to {@code vm}'s vGPU copies from its private GTT to the physical GTT (gballoon.txt §2.1:
 * "if the entry does not exist in the physical GTT, the state is restored by copying the private GTT to the physical
 * GTT"): the high-memory slots of its range that the physical GTT holds for another vGPU (or for none yet), and the
 * guests' shared low range when another guest loaded it last.
 *
 * @param vm    the incoming vGPU
 * @param slots the high-memory slots copied, ascending
 * @param low   whether the shared low range is copied too
 */
public record CopySet(int vm, List<Integer> slots, boolean low) {
  public CopySet {
    slots = List.copyOf(slots);
  }

  /** True when the switch copies nothing. */
  public boolean isEmpty() {
    return slots.isEmpty() && !low;
  }
}
