package org.gpuemu.policies.fairgv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class StartTagsTest {
  private static final long MS = 1_000_000;

  private final StartTags tags = new StartTags();

  @AfterEach
  void invariantsHold() {
    assertEquals(List.of(), tags.checkInvariants());
  }

  /** Runs the vGPU with the smallest start tag for one 10 ms quantum; returns its finish tag. */
  private long runQuantum(List<Integer> order) {
    int v = tags.first().getAsInt();
    order.add(v);
    return tags.charge(v, 10 * MS);
  }

  /**
   * A hung kernel (explore's fairgv finding: a gpu-hang of vm1 in fairgv/non-congested-mm.conf, weights 1:2:3): the
   * watchdog resets the engine after 2 s and the 2 s are vm1's execution length, so F = S + 2 s / 1. Fair queuing
   * then serves vm2 and vm3, always backlogged, until their tags pass vm1's: 2 s x 2 and 2 s x 3 of GPU, 10 s in which
   * vm1 is not served. The rule of §3.2.1 applied to a long quantum, not a defect: a liveness bound of 5 s is wrong
   * for fair queuing after a hang.
   */
  @Test
  void aHungQuantumOfTwoSeconds_isPaidBackToTheOthers_beforeTheHungVgpuRunsAgain() {
    tags.join(1, 1);
    tags.join(2, 2);
    tags.join(3, 3);
    tags.wake(1);
    tags.wake(2);
    tags.wake(3);
    tags.charge(1, 2_000 * MS);
    long othersServed = 0;
    while (tags.first().getAsInt() != 1) {
      tags.charge(tags.first().getAsInt(), 10 * MS);
      othersServed += 10 * MS;
    }
    assertEquals(10_000 * MS, othersServed, 10 * MS);
  }

  @Test
  void firstEligible_isTheSmallestStartTagAmongThoseAccepted_inTagOrder() {
    tags.join(1, 1);
    tags.join(2, 1);
    tags.join(3, 1);
    tags.wake(1);
    tags.wake(2);
    tags.wake(3);
    tags.charge(1, 10 * MS);
    tags.charge(2, 5 * MS);
    assertEquals(OptionalInt.of(3), tags.first(v -> true), "tags 10, 5, 0");
    assertEquals(OptionalInt.of(2), tags.first(v -> v != 3));
    assertEquals(OptionalInt.empty(), tags.first(v -> false));
  }

  @Test
  void figure4_tagsAndVirtualTime_replayExactly() {
    // Figure 4: vGPU 1 of weight 1, vGPU 2 of weight 2, 10 ms quanta, vGPU 1 first on equal tags.
    tags.join(1, 1);
    tags.join(2, 2);
    tags.wake(1);
    tags.wake(2);
    List<Integer> order = new ArrayList<>();

    assertEquals(10 * MS, runQuantum(order), "F1 = 0 + 10/1");
    assertEquals(5 * MS, runQuantum(order), "F2 = 0 + 10/2");
    assertEquals(10 * MS, runQuantum(order), "vGPU 2 again: 5 < 10");
    assertEquals(20 * MS, runQuantum(order), "equal tags (10, 10): vGPU 1 first");
    assertEquals(15 * MS, runQuantum(order));
    assertEquals(20 * MS, runQuantum(order));
    assertEquals(30 * MS, runQuantum(order), "vGPU 1 runs from 60 to 70 ms");
    assertEquals(List.of(1, 2, 2, 1, 2, 2, 1), order, "each vGPU gets GPU time in proportion to its weight");

    tags.block(1); // at 70 ms
    assertEquals(20 * MS, tags.virtualTime(), "only vGPU 2 is active");
    assertEquals(25 * MS, runQuantum(order)); // 70-80
    assertEquals(30 * MS, runQuantum(order)); // 80-90
    assertEquals(35 * MS, runQuantum(order)); // 90-100; vGPU 2 runs again from 100 with start tag 35

    tags.wake(1); // at 105 ms
    assertEquals(35 * MS, tags.startTag(1), "the woken vGPU 1 gets the current virtual time, 35");
    assertEquals(35 * MS, tags.virtualTime());
    assertEquals(40 * MS, tags.charge(2, 10 * MS), "vGPU 2's quantum ends at 110");
    assertEquals(OptionalInt.of(1), tags.first(), "vGPU 1 is scheduled in the next turn");
  }

  @Test
  void wakingVgpu_aheadOfTheVirtualTime_keepsItsOwnTag() {
    tags.join(0, 1);
    tags.join(1, 1);
    tags.wake(0);
    tags.wake(1);
    tags.charge(0, 50 * MS);
    tags.block(0);
    tags.wake(0);
    // Virtual time is vGPU 1's 0; forcing vGPU 0 down to it would erase the 50 ms it was just charged.
    assertEquals(50 * MS, tags.startTag(0));
    assertEquals(OptionalInt.of(1), tags.first());
  }

  @Test
  void virtualTime_isTheMinimumActiveStartTag_andHoldsWhenNobodyIsActive() {
    tags.join(0, 1);
    tags.join(1, 3);
    tags.wake(0);
    tags.wake(1);
    tags.charge(0, 9 * MS);
    tags.charge(1, 9 * MS);
    assertEquals(3 * MS, tags.virtualTime(), "min(9, 9/3)");
    tags.block(1);
    assertEquals(9 * MS, tags.virtualTime(), "vGPU 1 no longer holds it back");
    tags.block(0);
    assertEquals(9 * MS, tags.virtualTime(), "nobody active: the last value");
    tags.join(2, 1);
    assertEquals(9 * MS, tags.startTag(2), "a newcomer starts at the virtual time");
  }

  @Test
  void charge_carriesTheRemainderOfTheDivisionByWeight() {
    tags.join(0, 3);
    tags.wake(0);
    tags.charge(0, 1);
    tags.charge(0, 1);
    assertEquals(0, tags.startTag(0), "2 ns at weight 3 is less than one weight-1 ns");
    tags.charge(0, 1);
    assertEquals(1, tags.startTag(0), "3 ns at weight 3 is one: nothing was lost to rounding");
  }

  @Test
  void blockedVgpu_leavesTheSortedSet() {
    tags.join(0, 1);
    tags.join(1, 1);
    tags.wake(0);
    tags.wake(1);
    tags.block(0);
    assertFalse(tags.isActive(0));
    assertEquals(OptionalInt.of(1), tags.first());
    tags.block(1);
    assertTrue(tags.first().isEmpty());
  }

  @Test
  void weightsMustBePositive_andVgpusKnown() {
    assertThrows(IllegalArgumentException.class, () -> tags.join(0, 0));
    assertThrows(IllegalArgumentException.class, () -> tags.wake(7));
    tags.join(0, 1);
    assertThrows(IllegalArgumentException.class, () -> tags.join(0, 1));
    assertThrows(IllegalArgumentException.class, () -> tags.charge(0, -1));
  }

  @Test
  void setWeight_liveChange_keepsTheTagSoFar_andChargesLaterQuantaAtTheNewWeight() {
    // Figure 4's pair at weights 1 and 1; vGPU 2 becomes weight 2 after the first two quanta
    tags.join(1, 1);
    tags.join(2, 1);
    tags.wake(1);
    tags.wake(2);
    assertEquals(10 * MS, tags.charge(1, 10 * MS));
    assertEquals(10 * MS, tags.charge(2, 10 * MS));
    tags.setWeight(2, 2);
    assertEquals(10 * MS, tags.startTag(2), "what vGPU 2 ran so far was charged at weight 1");
    assertEquals(2, tags.weight(2));
    assertEquals(15 * MS, tags.charge(2, 10 * MS), "F = 10 + 10/2 at the new weight");
    assertEquals(20 * MS, tags.charge(1, 10 * MS), "vGPU 1 is charged as before");
  }

  @Test
  void setWeight_carriedRemainder_isTurnedIntoTagAtTheNewWeight() {
    tags.join(1, 3);
    tags.wake(1);
    assertEquals(3, tags.charge(1, 10), "10 / 3 = 3, remainder 1");
    tags.setWeight(1, 1);
    assertEquals(4, tags.startTag(1), "the carried 1 ns becomes tag at weight 1");
    assertThrows(IllegalArgumentException.class, () -> tags.setWeight(1, 0));
  }
}
