package org.gpuemu.policies.fairgv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyKind;
import java.util.List;
import java.util.Map;
import org.gpuemu.policies.gpu.VgpuParams;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class StrictCoPolicyTest {
  private static final long MS = 1_000_000;

  private StrictCoPolicy policy;
  private GpuBench gpu;

  private void strictCo(int vgpus) {
    policy = (StrictCoPolicy) PolicyCatalog.builtIn().create(PolicyKind.GPU, "strict-co", CreditPolicyTest.params(1));
    for (int v = 0; v < vgpus; v++) policy.addVgpu(new VgpuParams(v, "vm" + v, 1));
    gpu = new GpuBench(policy);
  }

  @AfterEach
  void invariantsHold() {
    if (policy != null) assertEquals(List.of(), policy.checkInvariants());
  }

  @Test
  void algorithm2_switches_whenTheTargetsCreditIsAtLeastTheMaximumOfTheOthers() {
    Map<Integer, Long> others = Map.of(0, 5 * MS, 2, 7 * MS);
    assertEquals(new CoscheduleOutcome.Switched(0, 1), StrictCoPolicy.algorithm2(0, 1, 8 * MS, others));
    assertEquals(new CoscheduleOutcome.Switched(0, 1), StrictCoPolicy.algorithm2(0, 1, 7 * MS, others),
        "equal to the maximum is enough: target_credit >= max_credit");
  }

  @Test
  void algorithm2_keepsTheCurrentVgpu_whenAnotherHasMoreCredit_andSaysWhy() {
    CoscheduleOutcome outcome = StrictCoPolicy.algorithm2(0, 1, 6 * MS, Map.of(0, 5 * MS, 2, 7 * MS));
    assertEquals(new CoscheduleOutcome.Refused(1, 6 * MS, 2, 7 * MS), outcome);
    assertEquals("vGPU 1 has credit 6000000 below the maximum 7000000 of vGPU 2",
        ((CoscheduleOutcome.Refused) outcome).reason());
  }

  @Test
  void algorithm2_withoutContenders_switches_andForTheRunningVgpuChangesNothing() {
    assertEquals(new CoscheduleOutcome.Switched(-1, 1), StrictCoPolicy.algorithm2(-1, 1, -9 * MS, Map.of()));
    assertEquals(new CoscheduleOutcome.AlreadyRunning(1), StrictCoPolicy.algorithm2(1, 1, 0, Map.of(0, MS)));
  }

  @Test
  void coschedule_preemptsTheHolder_whichGoesToTheRunQueuesTail_withoutSpendingItsSlice() {
    strictCo(3);
    for (int i = 0; i < 100; i++) {
      for (int v = 0; v < 3; v++) gpu.queue(v, MS);
    }
    gpu.runUntil(5 * MS); // vGPU 0 holds the GPU from 0 and has burned 5 ms
    assertEquals(0, policy.owner());

    // vGPU 1's credit (0) is the maximum with vGPU 2's (0); vGPU 0 has -5 ms.
    assertEquals(new CoscheduleOutcome.Switched(0, 1), policy.coschedule(1, gpu.now));
    assertEquals(1, policy.owner());
    // vGPU 0 asks back at 6 ms: -5 ms against vGPU 2's 0: refused, vGPU 1 keeps the GPU.
    gpu.runUntil(6 * MS);
    assertEquals(new CoscheduleOutcome.Refused(0, -5 * MS, 2, 0), policy.coschedule(0, gpu.now));
    assertEquals(1, policy.owner());
    assertEquals(new CoscheduleOutcome.AlreadyRunning(1), policy.coschedule(1, gpu.now));

    // vGPU 1's fresh slice runs 5-35 ms; then the run queue is [2, 0]: vGPU 0 went to the tail.
    gpu.runUntil(35 * MS);
    assertEquals(2, policy.owner());
  }

  @Test
  void coschedule_ofAnUnknownVgpu_isRefused() {
    strictCo(1);
    assertThrows(IllegalArgumentException.class, () -> policy.coschedule(4, 0));
  }

  @Test
  void guests_poll() {
    strictCo(1);
    assertEquals(GuestWait.POLL, policy.guestWait());
  }
}
