package org.gpuemu.policies.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpuemu.policies.PolicyParams;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RoundRobinPolicyTest {
  private static final long MS = 1_000_000;
  private static final long SLICE = 16 * MS;

  private RoundRobinPolicy policy;

  private RoundRobinPolicy roundRobin(long maxPerSlice, long maxInflight, int vgpus) {
    policy = new RoundRobinPolicy(PolicyParams.of(
        Map.of("slice", SLICE, "max-kernels-per-slice", maxPerSlice, "max-inflight", maxInflight)));
    for (int v = 0; v < vgpus; v++) {
      policy.addVgpu(new VgpuParams(v, "vm" + v, 1));
    }
    return policy;
  }

  private static GpuWork work(long id, int vgpu) {
    return new GpuWork(id, vgpu, MS, 0, false);
  }

  private static GpuWork dispatched(GpuDecision decision) {
    return assertInstanceOf(GpuDecision.Dispatch.class, decision).work();
  }

  @AfterEach
  void invariantsHold() {
    assertEquals(List.of(), policy.checkInvariants());
  }

  @Test
  void roundRobin_switchesOnlyAfterInflightDrains() {
    roundRobin(100, 2, 2);
    GpuWork a1 = work(1, 0);
    GpuWork a2 = work(2, 0);
    policy.queued(a1, 0);
    policy.queued(a2, 0);
    policy.queued(work(3, 1), 0);

    assertEquals(a1, dispatched(policy.next(0, 0)));
    assertEquals(a2, dispatched(policy.next(0, 1)));
    assertEquals(0, policy.owner());

    // vGPU 0's queue is empty, so it loses the GPU; but one of its requests still runs: no switch yet,
    // although the hardware queue has room for vGPU 1's request.
    policy.completed(a1, MS, MS);
    assertInstanceOf(GpuDecision.Idle.class, policy.next(MS, 1));
    assertEquals(0, policy.owner());
    assertEquals(0, policy.switches());

    policy.completed(a2, MS, 2 * MS);
    assertEquals(3L, dispatched(policy.next(2 * MS, 0)).id());
    assertEquals(1, policy.owner());
    assertEquals(1, policy.switches());
  }

  @Test
  void roundRobin_limitsKernelsPerSlice() {
    roundRobin(2, 4, 2);
    GpuWork a1 = work(1, 0);
    GpuWork a2 = work(2, 0);
    policy.queued(a1, 0);
    policy.queued(a2, 0);
    policy.queued(work(3, 0), 0);
    GpuWork b1 = work(4, 1);
    policy.queued(b1, 0);

    dispatched(policy.next(0, 0));
    dispatched(policy.next(0, 1));
    // Two dispatched = the limit; the slice (16 ms) and the hardware queue (4) both still have room.
    assertInstanceOf(GpuDecision.Idle.class, policy.next(0, 2));

    policy.completed(a1, MS, MS);
    policy.completed(a2, MS, 2 * MS);
    assertEquals(b1, dispatched(policy.next(2 * MS, 0)));
    policy.completed(b1, MS, 3 * MS);
    assertEquals(3L, dispatched(policy.next(3 * MS, 0)).id(), "vGPU 0 gets its third request in its next turn");
    assertEquals(2, policy.switches());
  }

  @Test
  void roundRobin_keepsOwnerWhenNobodyElseWaits() {
    roundRobin(2, 1, 3);
    for (long id = 1; id <= 5; id++) {
      policy.queued(work(id, 1), 0);
    }
    // 10 ms per request: the 16 ms slice expires after two requests and so does the per-slice limit, yet with
    // nobody else waiting vGPU 1 gets fresh slices and never switches away.
    long now = 0;
    List<Long> order = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      GpuWork w = dispatched(policy.next(now, 0));
      order.add(w.id());
      now += 10 * MS;
      policy.completed(w, 10 * MS, now);
    }
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L), order);
    assertEquals(1, policy.owner());
    assertEquals(0, policy.switches());

    // Its queue is empty but it stays owner: more work before anyone else's continues without a switch.
    assertInstanceOf(GpuDecision.Idle.class, policy.next(now, 0));
    policy.queued(work(6, 1), now);
    assertEquals(6L, dispatched(policy.next(now, 0)).id());
    assertEquals(0, policy.switches());
  }

  @Test
  void roundRobin_overrunPastSliceIsAllowedButNextDispatchSwitches() {
    roundRobin(100, 1, 2);
    GpuWork a1 = work(1, 0);
    GpuWork a2 = work(2, 0);
    policy.queued(a1, 0);
    policy.queued(a2, 0);
    policy.queued(work(3, 1), 0);

    dispatched(policy.next(0, 0));
    policy.completed(a1, 15 * MS, 15 * MS);
    // At 15 ms the slice (0..16 ms) has not expired: a2 is dispatched although it will run until 25 ms.
    assertEquals(a2, dispatched(policy.next(15 * MS, 0)));
    policy.queued(work(4, 0), 20 * MS);
    policy.completed(a2, 10 * MS, 25 * MS);

    // vGPU 0 still has work (request 4) but its slice is over: vGPU 1 runs next.
    assertEquals(3L, dispatched(policy.next(25 * MS, 0)).id());
    assertEquals(1, policy.switches());
  }

  @Test
  void roundRobin_newSliceStartsWhenTheSwitchHappens() {
    roundRobin(100, 1, 2);
    GpuWork a1 = work(1, 0);
    policy.queued(a1, 0);
    for (long id = 2; id <= 4; id++) {
      policy.queued(work(id, 1), 0);
    }
    policy.queued(work(5, 0), 0);

    dispatched(policy.next(0, 0));
    policy.completed(a1, 30 * MS, 30 * MS);
    GpuWork b1 = dispatched(policy.next(30 * MS, 0));
    assertEquals(1, policy.owner());
    policy.completed(b1, 15 * MS, 45 * MS);
    // 45 ms is 15 ms into vGPU 1's slice that started at the switch (30 ms), not at 16 or 32 ms.
    GpuWork b2 = dispatched(policy.next(45 * MS, 0));
    assertEquals(3L, b2.id());
    policy.completed(b2, MS, 46 * MS);
    assertEquals(5L, dispatched(policy.next(46 * MS, 0)).id(), "at 46 ms the slice has expired");
  }

  @Test
  void roundRobin_sliceStartsWhenTheIncomingContextIsInPlace_notAtTheDispatchDecision() {
    // gballoon.txt §2.1: the mediator restores the next vGPU's state (gScale: copies its GTT entries) between
    // quanta. vGPU 1's first request is dispatched at 10 ms but starts only at 50 ms, after a 40 ms switch, and ends
    // at 60 ms: its slice runs from 50 ms, so at 60 ms it goes on although 50 ms passed since the decision.
    roundRobin(100, 1, 2);
    GpuWork a1 = work(1, 0);
    policy.queued(a1, 0);
    dispatched(policy.next(0, 0));
    GpuWork b1 = work(2, 1);
    policy.queued(b1, 0);
    policy.queued(work(3, 1), 0);
    policy.completed(a1, 10 * MS, 10 * MS);
    assertEquals(b1, dispatched(policy.next(10 * MS, 0)));
    policy.queued(work(4, 0), 20 * MS);
    policy.completed(b1, 10 * MS, 60 * MS);
    assertEquals(3L, dispatched(policy.next(60 * MS, 0)).id(), "10 ms into vGPU 1's slice");
    policy.completed(work(3, 1), 7 * MS, 67 * MS);
    assertEquals(4L, dispatched(policy.next(67 * MS, 0)).id(), "17 ms into it: vGPU 0's turn");
  }

  @Test
  void roundRobin_rotatesInCyclicIndexOrder_skippingVgpusWithoutWork() {
    roundRobin(1, 1, 4);
    // Limit 1: every dispatch ends a turn. vGPU 2 never has work.
    policy.queued(work(1, 0), 0);
    policy.queued(work(2, 1), 0);
    policy.queued(work(3, 3), 0);
    policy.queued(work(4, 3), 0);
    policy.queued(work(5, 0), 0);

    List<Integer> owners = new ArrayList<>();
    List<Long> order = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      GpuWork w = dispatched(policy.next(i * MS, 0));
      owners.add(policy.owner());
      order.add(w.id());
      policy.completed(w, MS, (i + 1) * MS);
    }
    // Lowest index first, then 1, skip 2, 3, wrap to 0, and 3 again: not arrival order (which would be 1..5).
    assertEquals(List.of(0, 1, 3, 0, 3), owners);
    assertEquals(List.of(1L, 2L, 3L, 5L, 4L), order);
    assertEquals(4, policy.switches(), "taking the unowned GPU first is not a switch");
  }

  @Test
  void roundRobin_waitsForHardwareCapacity_withoutGivingUpItsSlice() {
    roundRobin(100, 1, 2);
    GpuWork a1 = work(1, 0);
    policy.queued(a1, 0);
    policy.queued(work(2, 0), 0);
    policy.queued(work(3, 1), 0);

    dispatched(policy.next(0, 0));
    assertInstanceOf(GpuDecision.Idle.class, policy.next(MS, 1), "hardware queue full");
    policy.completed(a1, 2 * MS, 2 * MS);
    assertEquals(2L, dispatched(policy.next(2 * MS, 0)).id(), "vGPU 0 still owns a running slice");
    assertEquals(0, policy.switches());
  }

  @Test
  void roundRobin_isIdleWithoutOwnerWhenNobodyHasWork() {
    roundRobin(4, 2, 2);
    assertInstanceOf(GpuDecision.Idle.class, policy.next(0, 0));
    assertEquals(-1, policy.owner());
  }

  @Test
  void roundRobin_whenTheOwnerLeaves_rotationResumesAfterIt_asASwitch() {
    roundRobin(4, 2, 4);
    policy.queued(work(1, 1), 0);
    GpuWork w = dispatched(policy.next(0, 0));
    assertEquals(1, policy.owner());
    policy.completed(w, MS, MS);
    policy.removeVgpu(1);
    policy.queued(work(2, 0), MS);
    policy.queued(work(3, 3), MS);
    assertEquals(3, dispatched(policy.next(MS, 0)).vgpu(), "the next after index 1 with work is 3");
    assertEquals(1, policy.switches());
    assertEquals(List.of(), policy.checkInvariants());
    assertThrows(IllegalArgumentException.class, () -> policy.removeVgpu(1));
  }

  @Test
  void roundRobin_refusesToLetAVgpuLeaveWithQueuedWork() {
    roundRobin(4, 2, 4);
    policy.queued(work(1, 2), 0);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> policy.removeVgpu(2));
    assertEquals("round-robin: vGPU 2 left with requests still queued", e.getMessage());
  }
}
