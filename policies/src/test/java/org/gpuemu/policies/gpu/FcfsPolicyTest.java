package org.gpuemu.policies.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpuemu.policies.PolicyParams;
import org.junit.jupiter.api.Test;

class FcfsPolicyTest {
  private static final long MS = 1_000_000;

  private static FcfsPolicy fcfs(long maxInflight, int vgpus) {
    FcfsPolicy policy = new FcfsPolicy(PolicyParams.of(Map.of("max-inflight", maxInflight)));
    for (int v = 0; v < vgpus; v++) {
      policy.addVgpu(new VgpuParams(v, "vm" + v, 1));
    }
    return policy;
  }

  private static GpuWork work(long id, int vgpu, long queuedAt) {
    return new GpuWork(id, vgpu, 2 * MS, queuedAt, false);
  }

  @Test
  void fcfs_dispatchesInGlobalArrivalOrder_acrossVgpus() {
    FcfsPolicy policy = fcfs(10, 3);
    // Interleaved so that grouping by vGPU (1,4 then 2 then 3) or by vGPU index (2,1,4,3) would both differ.
    policy.queued(work(1, 1, 0), 0);
    policy.queued(work(2, 0, 1), 1);
    policy.queued(work(3, 2, 2), 2);
    policy.queued(work(4, 1, 3), 3);

    List<Long> order = new ArrayList<>();
    for (int inflight = 0; inflight < 4; inflight++) {
      order.add(((GpuDecision.Dispatch) policy.next(3, inflight)).work().id());
    }

    assertEquals(List.of(1L, 2L, 3L, 4L), order);
    assertInstanceOf(GpuDecision.Idle.class, policy.next(3, 4), "queue is empty");
  }

  @Test
  void fcfs_holdsTheHeadWhileTheHardwareQueueIsFull_andResumesOnCompletion() {
    FcfsPolicy policy = fcfs(2, 2);
    GpuWork first = work(1, 0, 0);
    policy.queued(first, 0);
    policy.queued(work(2, 1, 0), 0);
    policy.queued(work(3, 0, 0), 0);

    assertInstanceOf(GpuDecision.Dispatch.class, policy.next(0, 0));
    assertInstanceOf(GpuDecision.Dispatch.class, policy.next(0, 1));
    // max-inflight 2: the third waits for a completion even though it is queued.
    assertInstanceOf(GpuDecision.Idle.class, policy.next(0, 2));

    policy.completed(first, 2 * MS, 2 * MS);
    assertEquals(3L, ((GpuDecision.Dispatch) policy.next(2 * MS, 1)).work().id());
    assertTrue(policy.checkInvariants().isEmpty(), policy.checkInvariants()::toString);
  }

  @Test
  void fcfs_isIdleWhenNothingIsQueued() {
    assertInstanceOf(GpuDecision.Idle.class, fcfs(2, 1).next(0, 0));
  }

  @Test
  void fcfs_refusesWorkFromAVgpuThatNeverJoined() {
    FcfsPolicy policy = fcfs(2, 1);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> policy.queued(work(1, 5, 0), 0));
    assertTrue(e.getMessage().contains("unknown vGPU 5"), e.getMessage());
  }

  @Test
  void fcfs_reportsACompletionOfARequestThatWasNeverDispatched() {
    FcfsPolicy policy = fcfs(2, 1);
    policy.queued(work(1, 0, 0), 0);
    policy.completed(work(1, 0, 0), MS, MS);
    assertEquals(List.of("fcfs: request 1 completed but was not in flight"), policy.checkInvariants());
  }

  @Test
  void fcfs_reportsARequestQueuedTwice() {
    FcfsPolicy policy = fcfs(2, 1);
    policy.queued(work(7, 0, 0), 0);
    policy.queued(work(7, 0, 0), 0);
    assertEquals(List.of("fcfs: request 7 of vGPU 0 queued twice"), policy.checkInvariants());
  }

  @Test
  void fcfs_needsMaxInflight_andRejectsZero() {
    IllegalArgumentException missing =
        assertThrows(IllegalArgumentException.class, () -> new FcfsPolicy(PolicyParams.empty()));
    assertTrue(missing.getMessage().contains("'max-inflight' missing"), missing.getMessage());

    IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
        () -> new FcfsPolicy(PolicyParams.of(Map.of("max-inflight", 0L))));
    assertEquals("fcfs: parameter 'max-inflight' must be > 0, got 0", zero.getMessage());
  }

  @Test
  void fcfs_forgetsAVgpuThatLeft_soItsLaterWorkIsRefused() {
    FcfsPolicy policy = fcfs(2, 2);
    policy.removeVgpu(1);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> policy.queued(work(1, 1, 0), 0));
    assertTrue(e.getMessage().contains("unknown vGPU 1"), e.getMessage());
    policy.queued(work(2, 0, 0), 0);
    assertEquals(2L, ((GpuDecision.Dispatch) policy.next(0, 0)).work().id(), "the other vGPU is unaffected");
  }

  @Test
  void fcfs_refusesToLetAVgpuLeaveWhileItsRequestsAreQueued() {
    FcfsPolicy policy = fcfs(2, 2);
    policy.queued(work(1, 0, 0), 0);
    policy.queued(work(2, 1, 0), 0);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> policy.removeVgpu(1));
    assertEquals("fcfs: vGPU 1 left with requests still queued", e.getMessage());

    assertInstanceOf(GpuDecision.Dispatch.class, policy.next(0, 0));
    assertInstanceOf(GpuDecision.Dispatch.class, policy.next(0, 1));
    policy.removeVgpu(1);
  }

  @Test
  void fcfs_refusesToRemoveAVgpuThatNeverJoined() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> fcfs(2, 1).removeVgpu(3));
    assertEquals("fcfs: unknown vGPU 3 cannot leave", e.getMessage());
  }
}
