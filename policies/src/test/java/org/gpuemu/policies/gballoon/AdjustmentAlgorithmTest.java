package org.gpuemu.policies.gballoon;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class AdjustmentAlgorithmTest {
  /**
   * Figure 4 (§3.3): five slots (320 MB); vGPU1 to vGPU4 hold two, two, two and one. The text fixes where: vGPU1
   * holds slots 1-2, vGPU4 slot 3, vGPU2 slots 3-4 and vGPU3 slots 4-5 (counting from 1 as the paper does; here
   * from 0). vGPU n is VM n.
   */
  private static SlotMap figure4() {
    SlotMap map = new SlotMap(5);
    map.put(1, new SlotRange(0, 2));
    map.put(2, new SlotRange(2, 2));
    map.put(3, new SlotRange(3, 2));
    map.put(4, new SlotRange(2, 1));
    return map;
  }

  @Test
  void figure4_vgpu4ExpandingTwoSlots_goesLeft() {
    // Two to the left: shares slots 1 and 2 with vGPU1, two shared slots in total.
    assertEquals(new Adjustment.Split(2, 0, 2), AdjustmentAlgorithm.expansion(figure4(), 4, 2));
  }

  @Test
  void figure4_theThreeWaysToExpand_countThreeThreeAndTwoSharedSlots() {
    // L = 0 (two right): slot 4 with vGPU2 and vGPU3, slot 5 with vGPU3: 3. L = 1: slot 2 with vGPU1, slot 4 with
    // vGPU2 and vGPU3: 3. L = 2 (two left): slots 1 and 2 with vGPU1: 2.
    assertArrayEquals(new int[] {3, 3, 2}, AdjustmentAlgorithm.expansionCounts(figure4(), 4, 2));
  }

  @Test
  void figure4_expansionApplied_vgpu4HoldsSlots1To3() {
    SlotMap map = figure4();
    Adjustment.Split split = (Adjustment.Split) AdjustmentAlgorithm.expansion(map, 4, 2);
    assertEquals(new SlotRange(0, 3), map.grow(4, split.left(), split.right()));
    // Slots 1 and 2 (vGPU1, vGPU4) and 3 and 4 (vGPU2 with vGPU4, vGPU3) are now shared; slot 5 is vGPU3's alone.
    assertEquals(4, map.sharedSlots());
  }

  @Test
  void figure4_reducingVgpu3ByOneSlot_takesSlot4NotSlot5() {
    // vGPU3 holds slots 4-5; slot 4 is shared with vGPU2, slot 5 with nobody: taking slot 4 (L = 1) removes one
    // shared slot, taking slot 5 (L = 0) none.
    SlotMap map = figure4();
    assertArrayEquals(new int[] {0, 1}, AdjustmentAlgorithm.reductionCounts(map, 3, 1));
    assertEquals(new Adjustment.Split(1, 0, 1), AdjustmentAlgorithm.reduction(map, 3, 1));
  }

  @Test
  void reduction_countsOnlyTheOtherVgpus() {
    // vGPU4's own slot 3 is shared with vGPU2 only: 1, not 2 (line 6: j ≠ K).
    assertEquals(new Adjustment.Split(0, 1, 1), AdjustmentAlgorithm.reduction(figure4(), 4, 1));
  }

  @Test
  void expansion_atTheMapsEnd_mustGoLeft() {
    // vGPU3 holds the last two slots: line (3)'s first L is Q − min(Q, M − P − S) = 2 − 0 = 2.
    SlotMap map = figure4();
    assertArrayEquals(new int[] {3}, AdjustmentAlgorithm.expansionCounts(map, 3, 2));
    assertEquals(new Adjustment.Split(2, 0, 3), AdjustmentAlgorithm.expansion(map, 3, 2));
  }

  @Test
  void expansion_atTheMapsStart_mustGoRight() {
    // vGPU1 starts at slot 0: L ranges up to min(Q, P) = 0; the two slots after it (2 and 3 here, the paper's 3
    // and 4) are held by two vGPUs each.
    assertEquals(new Adjustment.Split(0, 2, 4), AdjustmentAlgorithm.expansion(figure4(), 1, 2));
  }

  @Test
  void expansion_tiesKeepTheFirstCandidate_theRightSide() {
    // Alone in the middle of an empty map every split shares nothing; the strict '>' keeps L = 0.
    SlotMap map = new SlotMap(10);
    map.put(0, new SlotRange(4, 2));
    assertEquals(new Adjustment.Split(0, 3, 0), AdjustmentAlgorithm.expansion(map, 0, 3));
  }

  @Test
  void reduction_tiesKeepTheFirstCandidate_theRightSide() {
    SlotMap map = new SlotMap(10);
    map.put(0, new SlotRange(4, 4));
    assertEquals(new Adjustment.Split(0, 2, 0), AdjustmentAlgorithm.reduction(map, 0, 2));
  }

  @Test
  void expansion_pastTheMap_isAnError() {
    // Line (1): S_K + Q > M.
    assertEquals(new Adjustment.Impossible("vGPU 4 has 1 slots; 5 more exceed the 5 slots"),
        AdjustmentAlgorithm.expansion(figure4(), 4, 5));
  }

  @Test
  void reduction_ofMoreThanTheRange_isAnError() {
    assertEquals(new Adjustment.Impossible("vGPU 4 has 1 slots, fewer than 2"),
        AdjustmentAlgorithm.reduction(figure4(), 4, 2));
  }

  @Test
  void adjustments_needAtLeastOneSlot() {
    assertThrows(IllegalArgumentException.class, () -> AdjustmentAlgorithm.expansion(figure4(), 4, 0));
    assertThrows(IllegalArgumentException.class, () -> AdjustmentAlgorithm.reduction(figure4(), 4, 0));
  }
}
