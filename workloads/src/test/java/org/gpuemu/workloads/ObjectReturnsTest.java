package org.gpuemu.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The guest driver's object returns for a frame that does not fit (gballoon.txt §3.1). */
class ObjectReturnsTest {
  private static final long MIB = 1024L * 1024;
  private static final long SLOT = 64 * MIB;

  @Test
  void aFrameThatFits_returnsNothing_andWaitsForNothing() {
    assertEquals(ObjectReturns.Cost.NONE, ObjectReturns.of(6 * SLOT, 6 * SLOT, 4 * MIB, 2_000));
    assertEquals(ObjectReturns.Cost.NONE, ObjectReturns.of(2 * SLOT, 6 * SLOT, 4 * MIB, 2_000));
    assertFalse(ObjectReturns.Cost.NONE.waits());
  }

  @Test
  void valleysFirstScene_in384Mb_cyclesItsThreeMissingSlotsThroughTheGtt_everyFrame() {
    // Figure 9's first scene needs 9 slots; gVirt-384 holds 6: 192 MiB are returned and bound again each frame.
    ObjectReturns.Cost cost = ObjectReturns.of(9 * SLOT, 6 * SLOT, 4 * MIB, 2_000);
    assertEquals(48, cost.objects(), "192 MiB in objects of 4 MiB");
    assertEquals(3 * SLOT / 4096, cost.pages(), "one GTT entry per 4 KiB page: 49,152");
    assertEquals(49_152L * 2_000, cost.rebindNanos(), "98.3 ms of trapped GTT writes");
    assertTrue(cost.waits(), "it waits for the GPU to finish with what it returns");
  }

  @Test
  void theCost_growsWithTheDeficit_pagePerPage_andRoundsPartialObjectsAndPagesUp() {
    ObjectReturns.Cost small = ObjectReturns.of(4 * MIB + 1, 4 * MIB, 4 * MIB, 1_000);
    assertEquals(1, small.objects());
    assertEquals(1, small.pages());
    assertEquals(1_000, small.rebindNanos());
    ObjectReturns.Cost last = ObjectReturns.of(13 * SLOT, 6 * SLOT, 4 * MIB, 1_000);
    assertEquals(112, last.objects());
    assertEquals(7 * 16_384L * 1_000, last.rebindNanos());
  }

  @Test
  void badArguments_areRefused() {
    assertThrows(IllegalArgumentException.class, () -> ObjectReturns.of(-1, 0, 4 * MIB, 1));
    assertThrows(IllegalArgumentException.class, () -> ObjectReturns.of(1, 0, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> ObjectReturns.of(1, 0, 4 * MIB, -1));
  }
}
