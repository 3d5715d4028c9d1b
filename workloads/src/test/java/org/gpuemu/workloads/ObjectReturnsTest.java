package org.gpuemu.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The guest driver's object returns for a frame that does not fit (gballoon.txt §3.1). */
class ObjectReturnsTest {
  private static final long MIB = 1024L * 1024;
  private static final long SLOT = 64 * MIB;

  @Test
  void aFrameThatFits_returnsNothing_andWaitsForNothing() {
    assertEquals(ObjectReturns.Cost.NONE, ObjectReturns.of(6 * SLOT, 6 * SLOT, 4 * MIB, 64 * MIB, 0, 17));
    assertEquals(ObjectReturns.Cost.NONE, ObjectReturns.of(2 * SLOT, 6 * SLOT, 4 * MIB, 64 * MIB, 0, 17));
    assertFalse(ObjectReturns.waitsBefore(0, 17, 0));
  }

  @Test
  void valleysFirstScene_in384Mb_returnsItsThreeMissingSlots_inEvictionRoundsThatEachWait() {
    // Figure 9's first scene needs 9 slots; gVirt-384 holds 6: 192 MiB are returned each frame, 48 objects of 4 MiB,
    // in rounds of 64 MiB: 3 waits for the GPU among the frame's 17 batches.
    ObjectReturns.Cost cost = ObjectReturns.of(9 * SLOT, 6 * SLOT, 4 * MIB, 64 * MIB, 0, 17);
    assertEquals(48, cost.objects());
    assertEquals(3, cost.waits());
    // scene 18 lacks 7 slots: 112 objects, 7 waits
    assertEquals(new ObjectReturns.Cost(112, 7, 0), ObjectReturns.of(13 * SLOT, 6 * SLOT, 4 * MIB, 64 * MIB, 0, 17));
  }

  @Test
  void reBinding_costsEveryReturnedPage_whateverTheRounds() {
    // 48 objects of 4 MiB are 49,152 pages of 4 KiB; at 2 µs a page the frame's re-binding costs 98.3 ms of CPU
    assertEquals(49_152L * 2_000, ObjectReturns.of(9 * SLOT, 6 * SLOT, 4 * MIB, 64 * MIB, 2_000, 17).rebindNanos());
    assertEquals(49_152L * 2_000, ObjectReturns.of(9 * SLOT, 6 * SLOT, 4 * MIB, 8 * MIB, 2_000, 17).rebindNanos());
    // a partial object is returned whole: 1 object, 1,024 pages
    assertEquals(1_024L * 500, ObjectReturns.of(4 * MIB + 1, 4 * MIB, 4 * MIB, 64 * MIB, 500, 17).rebindNanos());
    assertEquals(0, ObjectReturns.of(6 * SLOT, 6 * SLOT, 4 * MIB, 64 * MIB, 2_000, 17).rebindNanos());
    assertThrows(IllegalArgumentException.class, () -> ObjectReturns.of(1, 0, 4 * MIB, 64 * MIB, -1, 1));
  }

  @Test
  void aFrameWaitsAtMostOncePerBatch_andPartialObjectsAndRoundsCountWhole() {
    assertEquals(new ObjectReturns.Cost(1, 1, 0), ObjectReturns.of(4 * MIB + 1, 4 * MIB, 4 * MIB, 64 * MIB, 0, 17));
    assertEquals(new ObjectReturns.Cost(112, 2, 0), ObjectReturns.of(13 * SLOT, 6 * SLOT, 4 * MIB, 4 * MIB, 0, 2));
  }

  @Test
  void theWaits_areSpreadEvenlyOverTheBatches_theFirstBeforeBatch0() {
    for (int waits = 1; waits <= 17; waits++) {
      int w = waits;
      long count = IntStream.range(0, 17).filter(b -> ObjectReturns.waitsBefore(b, 17, w)).count();
      assertEquals(waits, count, waits + " waits");
      assertTrue(ObjectReturns.waitsBefore(0, 17, waits));
    }
    // 3 waits in 17 batches: before batches 0, 6 and 12
    assertEquals(java.util.List.of(0, 6, 12),
        IntStream.range(0, 17).filter(b -> ObjectReturns.waitsBefore(b, 17, 3)).boxed().toList());
  }

  @Test
  void badArguments_areRefused() {
    assertThrows(IllegalArgumentException.class, () -> ObjectReturns.of(-1, 0, 4 * MIB, 64 * MIB, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> ObjectReturns.of(1, 0, 0, 64 * MIB, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> ObjectReturns.of(1, 0, 4 * MIB, 0, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> ObjectReturns.of(1, 0, 4 * MIB, 64 * MIB, 0, 0));
  }
}
