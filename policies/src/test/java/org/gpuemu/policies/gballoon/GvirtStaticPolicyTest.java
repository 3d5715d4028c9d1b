package org.gpuemu.policies.gballoon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.gpuemu.policies.memory.MemoryDecision;
import org.junit.jupiter.api.Test;

class GvirtStaticPolicyTest {
  private static final long MIB = SlotParams.MIB;
  private static final long MS = SlotParams.MS;

  private static GvirtStaticPolicy policy(int typeMib, int vms) {
    GvirtStaticPolicy policy = new GvirtStaticPolicy(SlotParams.of(), typeMib);
    for (int vm = 0; vm < vms; vm++) {
      policy.addVm(vm, "vm" + vm, 1024 * MIB);
    }
    return policy;
  }

  @Test
  void types_giveEveryVmTheirSlots_whateverItsCap() {
    // 384 MB = 6 slots, 1024 MB = 16 (gVirt-384 and gVirt-1024 of §4); memory-cap (1 GiB here) is not read.
    assertEquals(Map.of(0, new SlotRange(0, 6), 1, new SlotRange(6, 6)), policy(384, 2).ranges());
    assertEquals(Map.of(0, new SlotRange(0, 16), 1, new SlotRange(16, 16)), policy(1024, 2).ranges());
    assertEquals(new SlotRange(0, 32), policy(2048, 1).ranges().get(0));
    assertEquals("static-512", policy(512, 1).name());
  }

  @Test
  void allocation_isGrantedUpToTheType_thenRefused_neverExpanded() {
    GvirtStaticPolicy policy = policy(384, 1);
    assertEquals(new MemoryDecision.Granted(256 * MIB), policy.allocate(0, 256 * MIB, 0));
    // 192 MiB asked, 128 MiB left: the guest gets what fits and returns objects for the rest.
    assertEquals(new MemoryDecision.Granted(128 * MIB), policy.allocate(0, 192 * MIB, 1));
    assertEquals(new MemoryDecision.Rejected("vm 'vm0': lack of memory: holds 384 MiB, all of its 384 MiB of high "
        + "memory; static-384 never expands: 384 MiB per VM"), policy.allocate(0, 64 * MIB, 2));
    assertEquals(new SlotRange(0, 6), policy.ranges().get(0));
    assertEquals(384 * MIB, policy.allocated(0));
    assertEquals(2, policy.counters().expansionsRefused());
    assertEquals(0, policy.counters().expansions());
  }

  @Test
  void zeroBytes_isAGrantedNoOp_evenWhenFull() {
    GvirtStaticPolicy policy = policy(384, 1);
    policy.allocate(0, 384 * MIB, 0);
    assertEquals(new MemoryDecision.Granted(0), policy.allocate(0, 0, 1));
  }

  @Test
  void switches_copyPricedSlots_andAreCounted() {
    GvirtStaticPolicy policy = policy(384, 10);
    // vm 9 shares vm 0's slots 0-5 (ten 6-slot VMs in 54 slots).
    assertEquals(6, policy.switchTo(0).set().slots().size());
    GttCopy copy = policy.switchTo(9);
    assertEquals(new CopySet(9, List.of(0, 1, 2, 3, 4, 5), true), copy.set());
    assertEquals(7 * 3_200_000L, copy.cpuNanos());
    assertEquals(new SlotCounters(2, 12, 2, 14 * 3_200_000L, 0, 0, 0, 0, 0, 0), policy.counters());
  }

  @Test
  void periods_measureWAndRcopy_butNeverReduce() {
    GvirtStaticPolicy policy = policy(1024, 4);
    policy.stealTime(0, 0, 250 * MS);
    policy.stealTime(0, 0, 250 * MS);
    policy.stealTime(1, 1, 100 * MS);
    policy.copyTime(400 * MS);
    // W: vm0's vCPU waited the whole 0.5 s (100 %), vm1's a fifth (20 %); R_copy = 400 / (500 x 8) = 10 %;
    // f = 120 / 2200 + 10 / 12.5 = 0.8545: gBalloon would shrink here, gVirt does not.
    Profile p = policy.periodEnded(500 * MS, 8);
    assertEquals(120, p.w(), 1e-9);
    assertEquals(10, p.rcopy(), 1e-9);
    assertEquals(120 / 2200.0 + 0.8, p.f(), 1e-12);
    assertEquals(List.of(), p.reductions());
    Profile next = policy.periodEnded(1000 * MS, 8);
    assertEquals(new Profile(1000 * MS, 500 * MS, 0, 0, 0, List.of()), next, "sums start again each period");
    assertEquals(List.of(), policy.checkInvariants());
  }

  @Test
  void overFree_isClampedAndReported() {
    GvirtStaticPolicy policy = policy(384, 1);
    policy.allocate(0, 64 * MIB, 0);
    policy.free(0, 128 * MIB, 1);
    assertEquals(0, policy.allocated(0));
    assertEquals(List.of("static-384: vm 'vm0' freed 128 MiB while holding 64 MiB (0 bytes taken by reductions; "
        + "clamped to 0)"), policy.checkInvariants());
  }

  @Test
  void onlyGvtgTypesExist_andVmsMustBeKnown() {
    assertEquals("no GVT-g type of 768 MiB; types: [384, 512, 1024, 2048]",
        assertThrows(IllegalArgumentException.class, () -> new GvirtStaticPolicy(SlotParams.of(), 768))
            .getMessage());
    GvirtStaticPolicy policy = policy(384, 1);
    assertThrows(IllegalArgumentException.class, () -> policy.switchTo(3));
    assertThrows(IllegalArgumentException.class, () -> policy.addVm(0, "again", 0));
    assertThrows(IllegalArgumentException.class, () -> policy.stealTime(5, 0, MS));
  }

  @Test
  void layoutParameters_areChecked_withThePolicysName() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new GvirtStaticPolicy(SlotParams.of("dom0-high-memory", 100 * MIB), 384));
    assertEquals("static-384: high memory 4026531840 and Dom0's 104857600 must be whole slots of 67108864 bytes",
        e.getMessage());
  }
}
