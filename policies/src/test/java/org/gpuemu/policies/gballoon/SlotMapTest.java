package org.gpuemu.policies.gballoon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class SlotMapTest {
  private static SlotMap placed(int vms, int size) {
    SlotMap map = new SlotMap(GraphicsMemory.TABLE_1.guestSlots());
    for (int vm = 0; vm < vms; vm++) {
      map.place(vm, size);
    }
    return map;
  }

  @Test
  void table1_guestsShare54SlotsOf64Mb_andTheLowRange() {
    GraphicsMemory m = GraphicsMemory.TABLE_1;
    assertEquals(4096 * GraphicsMemory.MIB, m.totalBytes());
    assertEquals(3456 * GraphicsMemory.MIB, m.guestHighBytes());
    assertEquals(54, m.guestSlots());
    assertEquals(16_384, m.entriesPerSlot());
    assertEquals(16_384, m.guestLowEntries());
    assertEquals(6, m.slotsFor(384 * GraphicsMemory.MIB));
    assertEquals(16, m.slotsFor(1024 * GraphicsMemory.MIB));
    assertEquals(13, m.slotsFor(832 * GraphicsMemory.MIB));
  }

  @Test
  void placement384_nineVmsTile54Slots_theTenthIsTheFirstToShare() {
    // Figure 2: with 384 MB "the VMs start to share the GPU memory from the point when the number of VMs reaches
    // around 10".
    SlotMap nine = placed(9, 6);
    assertEquals(0, nine.sharedSlots());
    assertEquals(new SlotRange(48, 6), nine.range(8));
    SlotMap ten = placed(10, 6);
    assertEquals(new SlotRange(0, 6), ten.range(9));
    assertEquals(6, ten.sharedSlots());
  }

  @Test
  void spreadPlacement_keepsTheFirstRangesApart_andStillTilesNine() {
    SlotMap map = new SlotMap(GraphicsMemory.TABLE_1.guestSlots());
    List<Integer> starts = new java.util.ArrayList<>();
    for (int vm = 0; vm < 9; vm++) {
      starts.add(map.placeSpread(vm, 6).start());
    }
    // farthest grid start first: the map's ends, then the middle, then the quarters, then the rest
    assertEquals(List.of(0, 48, 24, 12, 36, 6, 18, 30, 42), starts);
    assertEquals(0, map.sharedSlots());
    // at 3 VMs each has room to grow to Valley's 13 slots without sharing
    SlotMap three = new SlotMap(54);
    for (int vm = 0; vm < 3; vm++) {
      three.placeSpread(vm, 6);
    }
    three.grow(0, 0, 7);
    three.grow(2, 0, 7);
    three.grow(1, 7, 0);
    assertEquals(0, three.sharedSlots());
    // a tenth cannot avoid sharing: where it overlaps least, lowest start, as gVirt places it
    assertEquals(new SlotRange(0, 6), map.placeSpread(9, 6));
  }

  @Test
  void placement1024_theFourthVmSharesTenSlots() {
    // 3 x 16 = 48 slots fit; the fourth range goes where it overlaps least: the last 16 slots, 10 of them vm 2's.
    SlotMap map = placed(4, 16);
    assertEquals(new SlotRange(38, 16), map.range(3));
    assertEquals(10, map.sharedSlots());
  }

  @Test
  void firstLoad_copiesEverySlotAndTheLowRange_aSecondNothing() {
    SlotMap map = placed(2, 6);
    assertEquals(new CopySet(0, List.of(0, 1, 2, 3, 4, 5), true), map.load(0));
    assertEquals(new CopySet(0, List.of(), false), map.load(0));
  }

  @Test
  void load_copiesOnlyTheSlotsAnotherVgpuLoadedSince() {
    SlotMap map = new SlotMap(10);
    map.put(0, new SlotRange(0, 6));
    map.put(1, new SlotRange(4, 6));
    map.load(0);
    map.load(1);
    // vm 1 overwrote slots 4 and 5 (and the low range); slots 0-3 still hold vm 0's entries.
    assertEquals(new CopySet(0, List.of(4, 5), true), map.load(0));
    assertEquals(new CopySet(1, List.of(4, 5), true), map.load(1));
  }

  @Test
  void copySet_isPure_loadChangesOwners() {
    SlotMap map = placed(2, 6);
    CopySet before = map.copySet(1);
    assertEquals(before, map.copySet(1));
    assertEquals(SlotMap.NONE, map.owner(6));
    map.load(1);
    assertEquals(1, map.owner(6));
    assertEquals(1, map.lowOwner());
  }

  @Test
  void grownSlots_areCopiedAtTheNextLoad_shrunkSlotsKeepTheirOwner() {
    SlotMap map = new SlotMap(10);
    map.put(0, new SlotRange(2, 2));
    map.load(0);
    assertEquals(new SlotRange(1, 4), map.grow(0, 1, 1));
    assertEquals(new CopySet(0, List.of(1, 4), false), map.copySet(0));
    map.load(0);
    assertEquals(new SlotRange(2, 2), map.shrink(0, 1, 1));
    assertEquals(0, map.owner(1), "a slot taken from a range keeps its entries until another vGPU loads it");
    assertEquals(List.of(), map.checkInvariants());
  }

  @Test
  void rangesMustStayInsideTheMap() {
    SlotMap map = new SlotMap(5);
    assertThrows(IllegalArgumentException.class, () -> map.put(0, new SlotRange(3, 3)));
    map.put(0, new SlotRange(3, 2));
    assertThrows(IllegalArgumentException.class, () -> map.grow(0, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> map.grow(0, 4, 0));
    assertThrows(IllegalArgumentException.class, () -> map.shrink(0, 1, 1));
    assertThrows(IllegalArgumentException.class, () -> map.put(0, new SlotRange(0, 1)), "vm 0 twice");
    assertTrue(map.checkInvariants().isEmpty());
  }

  @Test
  void occupied_countsSlotsTimesHolders_withinTheMapOnly() {
    SlotMap map = new SlotMap(5);
    map.put(1, new SlotRange(0, 3));
    map.put(2, new SlotRange(2, 3));
    assertEquals(4, map.occupied(1, 4, SlotMap.NONE)); // slots 1 and 3 once, slot 2 twice
    assertEquals(2, map.occupied(1, 4, 2));
    assertEquals(2, map.occupied(-2, 2, SlotMap.NONE));
    assertEquals(0, map.occupied(5, 9, SlotMap.NONE));
  }
}
