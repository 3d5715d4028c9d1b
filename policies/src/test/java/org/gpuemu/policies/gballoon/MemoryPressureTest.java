package org.gpuemu.policies.gballoon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.gpuemu.policies.memory.MemoryDecision;
import org.junit.jupiter.api.Test;

/**
 * A memory-pressure fault on the slot policies: the host withdraws the top slots of the guests' 54, every
 * VM's capacity is the usable part of its range, what it held beyond is evicted, and each policy adapts as it adapts
 * to any lack of memory: gVirt's static types refuse, gBalloon grows within the usable slots. At the heal the slots
 * are the guests' again.
 */
class MemoryPressureTest {
  private static final long SLOT = 64 * SlotParams.MIB;

  /** Nine VMs of 6 slots tile the 54 slots under both policies (SlotMap.place and placeSpread). */
  private static SlotPolicy full(SlotPolicy policy) {
    for (int vm = 0; vm < 9; vm++) {
      policy.addVm(vm, "vm" + vm, 0);
      assertEquals(new MemoryDecision.Granted(6 * SLOT), policy.allocate(vm, 6 * SLOT, 0));
    }
    return policy;
  }

  private static int topVm(SlotPolicy policy) {
    return policy.ranges().entrySet().stream().filter(e -> e.getValue().start() == 48).findFirst().orElseThrow()
        .getKey();
  }

  @Test
  void static384_theVmInTheWithdrawnSlots_losesItsMemory_andIsRefusedWithTheReason_untilTheHeal() {
    SlotPolicy policy = full(new GvirtStaticPolicy(SlotParams.of(), 384));
    int top = topVm(policy);
    assertEquals(Map.of(top, 0L), policy.withdraw(6), "only the VM whose range is slots 48-53 loses memory");
    assertEquals(0, policy.allocated(top));
    MemoryDecision d = policy.allocate(top, SLOT, 0);
    MemoryDecision.Rejected refused = assertInstanceOf(MemoryDecision.Rejected.class, d);
    assertTrue(refused.reason().contains("static-384 never expands")
        && refused.reason().contains("memory pressure: the host holds slots 48-53 of 54"), refused.reason());
    policy.free(top, 6 * SLOT, 0); // the guest frees what it believed it held: the eviction's, not a violation
    assertEquals(java.util.List.of(), policy.checkInvariants());
    policy.restore();
    assertEquals(new MemoryDecision.Granted(6 * SLOT), policy.allocate(top, 6 * SLOT, 0), "healed: its range again");
    assertEquals(6 * SLOT, policy.counters().pressureEvictedBytes());
    assertEquals(java.util.List.of(), policy.checkInvariants());
  }

  @Test
  void gballoon_theVmInTheWithdrawnSlots_growsLeftIntoUsableSlots_oneByOne() {
    SlotPolicy policy = full(new GballoonPolicy(SlotParams.of()));
    int top = topVm(policy);
    assertEquals(Map.of(top, 0L), policy.withdraw(6));
    for (int i = 1; i <= 6; i++) { // expansion-slots = 1: one slot per request (§4.4), each usable
      assertEquals(new MemoryDecision.Granted(SLOT), policy.allocate(top, 6 * SLOT - policy.allocated(top), 0));
      assertEquals(new SlotRange(48 - i, 6 + i), policy.ranges().get(top), "grows to the left only");
    }
    assertEquals(6 * SLOT, policy.allocated(top), "its 6 slots of memory back, in slots it shares with its neighbour");
    assertEquals(6, policy.counters().expansions());
    assertEquals(java.util.List.of(), policy.checkInvariants());
  }

  @Test
  void gballoon_aVmStraddlingTheWithdrawnSlots_keepsItsUsablePart_andNeverGrowsIntoTheHosts() {
    GballoonPolicy policy = new GballoonPolicy(SlotParams.of());
    policy.addVm(0, "vm0", new SlotRange(44, 6));
    assertEquals(new MemoryDecision.Granted(6 * SLOT), policy.allocate(0, 6 * SLOT, 0));
    assertEquals(Map.of(0, 4 * SLOT), policy.withdraw(6), "slots 48-49 withdrawn: 2 of its 6 evicted");
    assertEquals(new MemoryDecision.Granted(SLOT), policy.allocate(0, 2 * SLOT, 0));
    assertEquals(new SlotRange(43, 7), policy.ranges().get(0));
    policy.restore();
    assertEquals(new MemoryDecision.Granted(2 * SLOT), policy.allocate(0, 2 * SLOT, 0), "healed: 7 usable slots");
  }

  @Test
  void gballoon_refusesWhenNoUsableSlotIsLeft() {
    GballoonPolicy policy = new GballoonPolicy(SlotParams.of());
    policy.addVm(0, "vm0", new SlotRange(0, 6));
    policy.withdraw(48); // 6 usable slots: all of them the VM's
    assertEquals(new MemoryDecision.Granted(6 * SLOT), policy.allocate(0, 6 * SLOT, 0));
    MemoryDecision.Rejected refused = assertInstanceOf(MemoryDecision.Rejected.class, policy.allocate(0, SLOT, 0));
    assertTrue(refused.reason().contains("no usable slot left to grow into")
        && refused.reason().contains("the host holds slots 6-53"), refused.reason());
  }
}
