package org.gpuemu.policies.vmcg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.Map;
import org.gpuemu.policies.gpu.GpuDecision;
import org.gpuemu.policies.gpu.GpuPolicy;
import org.gpuemu.policies.gpu.GpuWork;
import org.gpuemu.policies.gpu.VgpuParams;
import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** XenGT's timer-based scheduler (sched.c at a71a2c7) replayed step by step; see {@link GvirtTbsPolicy}. */
class GvirtTbsPolicyTest {
  private static final long MS = 1_000_000;

  private final GvirtTbsPolicy policy = new GvirtTbsPolicy(15 * MS, 64);
  private long nextId;

  GvirtTbsPolicyTest() {
    for (int v = 0; v < 3; v++) {
      policy.addVgpu(new VgpuParams(v, "vm" + v, 1 + 3 * v)); // weights 1, 4, 7: the timer-based scheduler reads none
    }
  }

  private GpuWork queue(int vgpu, long nanos, long now) {
    GpuWork crb = new GpuWork(nextId++, vgpu, nanos, now, false);
    policy.queued(crb, now);
    return crb;
  }

  private GpuWork dispatched(long now, int inflight) {
    return assertInstanceOf(GpuDecision.Dispatch.class, policy.next(now, inflight)).work();
  }

  @AfterEach
  void invariantsHold() {
    assertEquals(java.util.List.of(), policy.checkInvariants());
  }

  @Test
  void gvirt_isRegisteredUnderItsName_withXengtsHaswellPeriod() {
    var spec = PolicyCatalog.builtIn().spec(PolicyKind.GPU, "gvirt");
    GpuPolicy created = spec.create(spec.defaults());
    assertEquals("gvirt", created.name());
    created.addVgpu(new VgpuParams(0, "vm0", 1));
    created.queued(new GpuWork(1, 0, MS, 0, false), 0);
    created.addVgpu(new VgpuParams(1, "vm1", 1));
    created.queued(new GpuWork(2, 1, MS, 0, false), 0);
    created.next(0, 0);
    // vm1 waits for the first tick, 15 ms after vm0 took the engine (VGT_TBS_DEFAULT_PERIOD, HSW)
    assertEquals(new GpuDecision.WakeAt(15 * MS), created.next(MS, 0));
  }

  @Test
  void tbs_theOwnerKeepsTheEngineUntilTheTick_evenWithNothingToRun() {
    GpuWork a = queue(0, MS, 0);
    assertEquals(a, dispatched(0, 0));
    policy.completed(a, MS, MS);
    queue(1, MS, 2 * MS);
    // vm0's ring is empty, vm1 has work: the engine idles until the timer fires (non-owner writes are held)
    assertEquals(new GpuDecision.WakeAt(15 * MS), policy.next(2 * MS, 0));
    assertEquals(0, policy.owner());
    assertEquals(1, dispatched(15 * MS, 0).vgpu());
    assertEquals(1, policy.switches());
  }

  @Test
  void tbs_nextOwnerIsTheFirstAfterTheOwnerWithWork_cyclically() {
    GpuWork a = queue(1, MS, 0);
    assertEquals(a, dispatched(0, 0)); // vm1 owns
    policy.completed(a, MS, MS);
    queue(0, MS, MS); // vm0 has work, vm2 none: after vm1 comes vm2 (empty, skipped), then vm0
    assertEquals(0, dispatched(15 * MS, 0).vgpu());
  }

  @Test
  void tbs_aSwitchWaitsForThePhysicalRingToDrain_andTheOwnerSubmitsNoMoreMeanwhile() {
    GpuWork a = queue(0, 20 * MS, 0);
    queue(0, MS, 0);
    queue(1, MS, 0);
    assertEquals(a, dispatched(0, 0));
    GpuWork b = dispatched(0, 1); // the owner submits all it holds (no budget)
    assertEquals(0, b.vgpu());
    // the tick at 15 ms requests the switch to vm1; a and b are still on the ring
    assertInstanceOf(GpuDecision.Idle.class, policy.next(15 * MS, 2));
    queue(0, MS, 16 * MS); // the owner's new CRB is held: it may not submit once a switch is requested
    policy.completed(a, 20 * MS, 20 * MS);
    assertInstanceOf(GpuDecision.Idle.class, policy.next(20 * MS, 1));
    policy.completed(b, MS, 21 * MS);
    assertEquals(1, dispatched(21 * MS, 0).vgpu());
    // the timer restarts one period after the switch
    assertEquals(36 * MS, policy.nextTick());
  }

  @Test
  void tbs_anOwnerAlone_keepsTheEngine_andTheTimerRunsOnFromItsOwnPhase() {
    GpuWork a = queue(0, MS, 0);
    assertEquals(a, dispatched(0, 0));
    policy.completed(a, MS, MS);
    queue(0, MS, 40 * MS); // ticks at 15 and 30 ms found no other vGPU with work
    assertEquals(0, dispatched(40 * MS, 0).vgpu());
    assertEquals(45 * MS, policy.nextTick());
    queue(2, MS, 41 * MS);
    assertEquals(new GpuDecision.WakeAt(45 * MS), policy.next(41 * MS, 1));
    assertEquals(0, policy.switches());
  }

  @Test
  void tbs_identicalBusyVgpus_getEqualTurnsInRunQueueOrder_whateverTheirWeights() {
    for (int v = 0; v < 3; v++) {
      for (int i = 0; i < 200; i++) queue(v, MS, 0);
    }
    long now = 0;
    int[] crbs = new int[3];
    StringBuilder owners = new StringBuilder();
    while (now < 450 * MS) {
      GpuWork crb = dispatched(now, 0);
      if (owners.isEmpty() || owners.charAt(owners.length() - 1) != (char) ('0' + crb.vgpu())) {
        owners.append(crb.vgpu());
      }
      now += MS;
      policy.completed(crb, MS, now);
      crbs[crb.vgpu()]++;
    }
    // 15 ms turns of fifteen 1 ms CRBs, in run-queue order: ten turns each in 450 ms
    assertEquals("012012012012012012012012012012", owners.toString());
    assertEquals(java.util.List.of(150, 150, 150), java.util.List.of(crbs[0], crbs[1], crbs[2]));
  }
}
