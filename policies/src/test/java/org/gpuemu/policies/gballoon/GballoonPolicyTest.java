package org.gpuemu.policies.gballoon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.gpuemu.policies.memory.MemoryDecision;
import org.junit.jupiter.api.Test;

class GballoonPolicyTest {
  private static final long MIB = SlotParams.MIB;
  private static final long MS = SlotParams.MS;
  private static final long SLOT = 64 * MIB;
  private static final long PERIOD = 500 * MS;
  private static final int CPUS = 8;

  /** A policy whose VMs' first ranges lie side by side from slot 0 (as gVirt packs them), so that growth shares. */
  private static GballoonPolicy policy(int vms, Object... overrides) {
    GballoonPolicy policy = new GballoonPolicy(SlotParams.of(overrides));
    int size = policy.initialSlots();
    for (int vm = 0; vm < vms; vm++) {
      policy.addVm(vm, "vm" + vm, new SlotRange(vm * size, size));
    }
    return policy;
  }

  @Test
  void joiningVms_arePlacedApart_soThatTheyGrowWithoutSharing() {
    GballoonPolicy policy = new GballoonPolicy(SlotParams.of());
    for (int vm = 0; vm < 3; vm++) {
      policy.addVm(vm, "vm" + vm, 1024 * MIB);
    }
    assertEquals(Map.of(0, new SlotRange(0, 6), 1, new SlotRange(48, 6), 2, new SlotRange(24, 6)), policy.ranges());
    for (int vm = 0; vm < 3; vm++) {
      expand(policy, vm, 3);
    }
    // Valley's first scene: 9 slots each, none shared (packed side by side, 6 of them would be)
    assertEquals(Map.of(0, new SlotRange(0, 9), 1, new SlotRange(45, 9), 2, new SlotRange(24, 9)), policy.ranges());
    assertEquals(0, policy.switchTo(0).set().slots().size() + policy.switchTo(1).set().slots().size()
        + policy.switchTo(2).set().slots().size() - 27, "each slot copied once, at its vGPU's first load");
    assertEquals(0, policy.switchTo(0).set().slots().size());
  }

  /**
   * Ends the period at {@code end} after copies took {@code copyNanos} of it on a host of {@code cpus} CPUs:
   * R_copy = copy / (0.5 s x cpus), and without steal f = R_copy / 12.5.
   */
  private static Profile period(GballoonPolicy policy, long end, long copyNanos, int cpus) {
    policy.copyTime(copyNanos);
    return policy.periodEnded(end, cpus);
  }

  /** Grants {@code vm} {@code slots} slots beyond its initial six, holding all of them. */
  private static void expand(GballoonPolicy policy, int vm, int slots) {
    policy.allocate(vm, 6 * SLOT - policy.allocated(vm), 0);
    for (int i = 0; i < slots; i++) {
      assertEquals(new MemoryDecision.Granted(SLOT), policy.allocate(vm, SLOT, 0));
    }
  }

  @Test
  void figure4_vgpu4AsksForTwoSlots_andGetsTheTwoOnItsLeft() {
    // Figure 4 end to end: a 320 MB host of five slots; vGPU1-vGPU4 (VMs 1-4) hold 2, 2, 2 and 1 slots where the
    // text puts them; vGPU4 uses its slot and needs two more (Q = 2 allowed).
    GballoonPolicy policy = new GballoonPolicy(SlotParams.of("high-memory", 320 * MIB, "dom0-high-memory", 0L,
        "initial-high-memory", 64 * MIB, "expansion-slots", 2L));
    policy.addVm(1, "vGPU1", new SlotRange(0, 2));
    policy.addVm(2, "vGPU2", new SlotRange(2, 2));
    policy.addVm(3, "vGPU3", new SlotRange(3, 2));
    policy.addVm(4, "vGPU4", new SlotRange(2, 1));
    assertEquals(new MemoryDecision.Granted(SLOT), policy.allocate(4, SLOT, 0));

    assertEquals(new MemoryDecision.Granted(2 * SLOT), policy.allocate(4, 2 * SLOT, 1));

    assertEquals(new SlotRange(0, 3), policy.ranges().get(4));
    assertEquals(3 * SLOT, policy.allocated(4));
    assertEquals(1, policy.counters().expansions());
    assertEquals(List.of(), policy.checkInvariants());
  }

  @Test
  void figure3_aGuestLackingMemory_getsOneMoreSlotPerRequest() {
    // Every VM starts with 384 MB (§4.4); the guest needs 192 MiB more, the host adds one slot (§4.4 "one by one")
    // and the guest gets 64 MiB of it now, the rest at its next requests.
    GballoonPolicy policy = policy(1);
    assertEquals(new MemoryDecision.Granted(384 * MIB), policy.allocate(0, 384 * MIB, 0));
    assertEquals(new MemoryDecision.Granted(SLOT), policy.allocate(0, 3 * SLOT, 1));
    assertEquals(new SlotRange(0, 7), policy.ranges().get(0));
    assertEquals(new MemoryDecision.Granted(SLOT), policy.allocate(0, 2 * SLOT, 2));
    assertEquals(new SlotRange(0, 8), policy.ranges().get(0));
  }

  @Test
  void expansion_growsWhereItSharesLeast() {
    // vm0 [0, 6) can only grow right, into vm1's slot 6. vm1 [6, 12) then could take slot 5 (vm0's) or slot 12
    // (vm2's): a tie, the first candidate (right) wins. Next it takes slot 13 (vm2's) over slot 5 (vm0's) likewise.
    GballoonPolicy policy = policy(3);
    expand(policy, 0, 1);
    expand(policy, 1, 2);
    assertEquals(Map.of(0, new SlotRange(0, 7), 1, new SlotRange(6, 8), 2, new SlotRange(12, 6)), policy.ranges());
  }

  @Test
  void expansion_overTheLastSlot_isRefused() {
    GballoonPolicy policy = policy(1, "initial-high-memory", 3456 * MIB);
    policy.allocate(0, 3456 * MIB, 0);
    assertEquals(new MemoryDecision.Rejected("vm 'vm0': lack of memory: holds 3456 MiB, all of its 3456 MiB of high "
        + "memory; expansion refused: the VM already spans all 54 slots"), policy.allocate(0, MIB, 1));
  }

  @Test
  void beforeTheFirstPeriod_fIsZero_andExpansionsAreApproved() {
    GballoonPolicy policy = policy(1);
    assertEquals(Band.BELOW_LOW, policy.band());
    assertEquals(0, policy.f());
  }

  @Test
  void belowThresholdLow_nothingIsReduced() {
    // R_copy = 150 / (500 x 8) = 3.75 %: f = 0.3.
    GballoonPolicy policy = policy(2);
    expand(policy, 0, 2);
    policy.free(0, 8 * SLOT, 0);
    Profile p = period(policy, PERIOD, 150 * MS, CPUS);
    assertEquals(0.3, p.f(), 1e-12);
    assertEquals(Band.BELOW_LOW, policy.band());
    assertEquals(List.of(), p.reductions());
  }

  @Test
  void betweenThresholds_theExpandedVmWithTheLowestUtilisation_givesUpAnUnusedSlot() {
    // vm0: 8 slots all in use; vm1: 8 slots holding 200 MiB (39 %); vm2: 6 slots holding nothing (0 %, but never
    // expanded). R_copy = 300 / 4000 = 7.5 %: f = 0.6, between 0.5 and 1.
    GballoonPolicy policy = policy(3);
    expand(policy, 0, 2);
    expand(policy, 1, 2);
    policy.free(1, 8 * SLOT - 200 * MIB, 0);
    assertEquals(new SlotRange(6, 8), policy.ranges().get(1));
    Profile p = period(policy, PERIOD, 300 * MS, CPUS);
    assertEquals(0.6, p.f(), 1e-12);
    assertEquals(Band.BETWEEN, policy.band());
    // vm1 [6, 14): its slot 6 is shared with vm0 and slot 13 with vm2, a tie: Algorithm 1 takes the right end.
    assertEquals(List.of(new SlotChange(1, new SlotRange(6, 8), new SlotRange(6, 7), 0)), p.reductions());
    assertEquals(200 * MIB, policy.allocated(1));
  }

  @Test
  void betweenThresholds_memoryInUseIsNotTaken() {
    GballoonPolicy policy = policy(2);
    expand(policy, 0, 3);
    expand(policy, 1, 1);
    policy.free(1, 32 * MIB, 0); // vm1 has half a slot free: no whole slot unused
    assertEquals(List.of(), period(policy, PERIOD, 300 * MS, CPUS).reductions());
    assertEquals(Map.of(0, new SlotRange(0, 9), 1, new SlotRange(6, 7)), policy.ranges());
  }

  @Test
  void aboveThresholdHigh_expansionsAreRefused_butWhatFitsIsGranted() {
    // R_copy = 500 / (500 x 4) = 25 %: f = 2.
    GballoonPolicy policy = policy(1);
    policy.allocate(0, 320 * MIB, 0);
    period(policy, PERIOD, 500 * MS, 4);
    assertEquals(Band.ABOVE_HIGH, policy.band());
    assertEquals(new MemoryDecision.Granted(SLOT), policy.allocate(0, 2 * SLOT, 1));
    assertEquals(new MemoryDecision.Rejected("vm 'vm0': lack of memory: holds 384 MiB, all of its 384 MiB of high "
        + "memory; expansion refused: f(W, R_copy) = 2.000 is above threshold-high 1.0"), policy.allocate(0, SLOT, 2));
    assertEquals(new SlotRange(0, 6), policy.ranges().get(0));
    assertEquals(2, policy.counters().expansionsRefused());
  }

  @Test
  void aboveThresholdHigh_theLargestVmLosesTwoSlots_inUseOrNot() {
    // vm0 grew right to [0, 9) over vm1's slots 6-8; vm1 grew right to [6, 13). Both use every slot.
    GballoonPolicy policy = policy(2);
    expand(policy, 0, 3);
    expand(policy, 1, 1);
    Profile p = period(policy, PERIOD, 450 * MS, CPUS);
    assertEquals(0.9, p.f(), 1e-12, "R_copy = 450 / 4000 = 11.25 %");
    assertEquals(List.of(), p.reductions(), "between the thresholds memory in use is kept");
    policy.stealTime(0, 0, 300 * MS);
    policy.stealTime(1, 0, PERIOD);
    p = period(policy, 2 * PERIOD, 500 * MS, CPUS);
    assertEquals(1 + 160 / 2200.0, p.f(), 1e-12, "W = 60 % + 100 %, R_copy = 12.5 %");
    assertEquals(Band.ABOVE_HIGH, policy.band());
    // vm0 has the most slots; Algorithm 1 takes the two at its right end, both shared with vm1.
    assertEquals(List.of(new SlotChange(0, new SlotRange(0, 9), new SlotRange(0, 7), 2 * SLOT)), p.reductions());
    assertEquals(7 * SLOT, policy.allocated(0));
    assertEquals(2 * SLOT, policy.counters().evictedBytes());
    assertEquals(List.of(), policy.checkInvariants());
  }

  @Test
  void aboveThresholdHigh_neverBelowTheInitialSize() {
    GballoonPolicy policy = policy(2);
    expand(policy, 0, 1);
    Profile p = period(policy, PERIOD, 500 * MS, 4);
    assertEquals(List.of(new SlotChange(0, new SlotRange(0, 7), new SlotRange(0, 6), SLOT)), p.reductions(),
        "one slot above its initial 6 is all vm0 can lose");
    assertEquals(List.of(), period(policy, 2 * PERIOD, 500 * MS, 4).reductions(), "nobody is above 384 MB now");
  }

  @Test
  void evictedMemory_mayBeFreedByItsGuest_moreIsReported() {
    GballoonPolicy policy = policy(1);
    expand(policy, 0, 2);
    period(policy, PERIOD, 500 * MS, 4);
    assertEquals(6 * SLOT, policy.allocated(0));
    policy.free(0, 8 * SLOT, 1); // the guest frees what it believed it held: 6 held + 2 evicted
    assertEquals(List.of(), policy.checkInvariants());
    policy.allocate(0, SLOT, 2);
    policy.free(0, 2 * SLOT, 3);
    assertEquals(List.of("gballoon: vm 'vm0' freed 128 MiB while holding 64 MiB (0 bytes taken by reductions; "
        + "clamped to 0)"), policy.checkInvariants());
  }

  @Test
  void w_clampsAVcpusStealToThePeriod_andRestartsEachPeriod() {
    GballoonPolicy policy = policy(1);
    policy.stealTime(0, 0, 800 * MS); // reported late, partly from before: at most the whole period
    policy.stealTime(0, 1, 125 * MS);
    Profile p = policy.periodEnded(PERIOD, CPUS);
    assertEquals(125, p.w(), 1e-9);
    assertEquals(125 / 2200.0, p.f(), 1e-12);
    assertEquals(0, policy.periodEnded(2 * PERIOD, CPUS).w());
  }

  @Test
  void periods_mustMoveForward() {
    GballoonPolicy policy = policy(1);
    policy.periodEnded(PERIOD, CPUS);
    assertThrows(IllegalArgumentException.class, () -> policy.periodEnded(PERIOD, CPUS));
    assertThrows(IllegalArgumentException.class, () -> policy.copyTime(-1));
  }

  @Test
  void parameters_areChecked() {
    assertEquals("thresholds need low < high, got 1.0 and 0.5", assertThrows(IllegalArgumentException.class,
        () -> new GballoonPolicy(SlotParams.of("threshold-low", 1.0, "threshold-high", 0.5))).getMessage());
    assertEquals("gballoon: parameter 'initial-high-memory' must be whole slots of 64 MiB, got 104857600",
        assertThrows(IllegalArgumentException.class,
            () -> new GballoonPolicy(SlotParams.of("initial-high-memory", 100 * MIB))).getMessage());
    assertThrows(IllegalArgumentException.class, () -> new GballoonPolicy(SlotParams.of("expansion-slots", 0L)));
  }
}
