package org.gpuemu.policies.vgris;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyKind;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.gpu.GpuDecision;
import org.gpuemu.policies.gpu.GpuWork;
import org.gpuemu.policies.gpu.LiveChange;
import org.gpuemu.policies.gpu.VgpuParams;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class VgrisPolicyTest {
  private static final long MS = 1_000_000;
  private static final long US = 1_000;
  private static final long SECOND = 1_000 * MS;
  private static final double EXACT = 1e-12;
  private static final PresentDecision ALLOW = new PresentDecision.Allow();

  /** The reference.conf defaults of the three policies. */
  private static final Map<String, Object> DEFAULTS = Map.of(
      "max-inflight", 2L,
      "present-history", 20L,
      "period", MS,
      "fps-threshold", 30.0,
      "gpu-threshold", 0.9,
      "window", 5 * SECOND);

  private PresentGate policy;
  private long nextId;

  private PresentGate create(String name, VgpuParams... vms) {
    policy = (PresentGate) PolicyCatalog.builtIn().create(PolicyKind.GPU, name, PolicyParams.of(DEFAULTS));
    for (VgpuParams vm : vms) {
      policy.addVgpu(vm);
    }
    return policy;
  }

  private static VgpuParams vm(int vgpu, double share) {
    return new VgpuParams(vgpu, "vm" + vgpu, 1, share, VgpuParams.DEFAULT_SLA_FPS);
  }

  private static VgpuParams vm(int vgpu) {
    return new VgpuParams(vgpu, "vm" + vgpu, 1);
  }

  /** Queues one request of the vGPU, dispatches it and completes it at {@code now}, having used {@code gpuNanos}. */
  private void runOnGpu(int vgpu, long gpuNanos, long now) {
    GpuWork work = new GpuWork(nextId++, vgpu, gpuNanos, now, false);
    policy.queued(work, now);
    assertEquals(work, assertInstanceOf(GpuDecision.Dispatch.class, policy.next(now, 0)).work());
    policy.completed(work, gpuNanos, now);
  }

  /** VM 0 fine, VM 1 starving, each second for five seconds: the hybrid turns SLA-aware at 5 s. */
  private void starveVm1ForFiveSeconds() {
    for (long s = 1; s <= 5; s++) {
      boolean switched = policy.secondEnded(s * SECOND,
          List.of(new SecondReport(0, 45, 0.5), new SecondReport(1, 20, 0.4)));
      assertEquals(s == 5, switched, "second " + s);
    }
  }

  @AfterEach
  void invariantsHold() {
    if (policy != null) {
      assertEquals(List.of(), policy.checkInvariants());
    }
  }

  @Test
  void registry_vgrisNames_createPresentGates_inTheirStartingAlgorithm() {
    assertEquals(Algorithm.SLA_AWARE, create("vgris-sla").algorithm());
    assertEquals(Algorithm.PROPORTIONAL_SHARE, create("vgris-share").algorithm());
    assertEquals(Algorithm.PROPORTIONAL_SHARE, create("vgris-hybrid").algorithm());
  }

  @Test
  void sla_tellsEachAgentItsOwnTargetLatency() {
    create("vgris-sla", vm(0), new VgpuParams(1, "fast", 1, Double.NaN, 60));
    assertEquals(new PresentMode.SlaAware(33_000_000, 20), policy.presentMode(0));
    assertEquals(new PresentMode.SlaAware(16_000_000, 20), policy.presentMode(1));
  }

  @Test
  void sla_allowsEveryPresent_neverSwitches_andHasNoShares() {
    create("vgris-sla", vm(0), vm(1));
    runOnGpu(0, 500 * MS, MS);
    assertEquals(ALLOW, policy.requestPresent(0, MS));
    starveVm1ForFiveSecondsExpectingNoSwitch();
    assertEquals(List.of(), policy.switches());
    assertEquals(Map.of(), policy.shares());
  }

  private void starveVm1ForFiveSecondsExpectingNoSwitch() {
    for (long s = 1; s <= 10; s++) {
      assertFalse(policy.secondEnded(s * SECOND, List.of(new SecondReport(0, 45, 0.1), new SecondReport(1, 20, 0.1))));
    }
  }

  @Test
  void share_postponesAPresent_untilTheReplenishmentThatClearsTheDebt() {
    create("vgris-share", vm(0, 0.3), vm(1, 0.5));
    assertEquals(new PresentMode.ProportionalShare(0.3), policy.presentMode(0));
    assertEquals(ALLOW, policy.requestPresent(0, 0));

    runOnGpu(0, 2 * MS, 500 * US);
    // 0.3 ms - 2 ms = -1.7 ms; +0.3 ms per 1 ms period reaches +0.1 ms at 6 ms.
    assertEquals(new PresentDecision.PostponeUntil(6 * MS), policy.requestPresent(0, 500 * US));
    assertEquals(new PresentDecision.PostponeUntil(6 * MS), policy.requestPresent(0, 5 * MS));
    assertEquals(ALLOW, policy.requestPresent(0, 6 * MS));
    assertEquals(ALLOW, policy.requestPresent(1, 500 * US), "the other VM paid nothing");
  }

  @Test
  void share_chargesTheExpectedTimeAtDispatch_andCorrectsItAtCompletion() {
    create("vgris-share", vm(0, 0.3), vm(1, 0.5));
    GpuWork work = new GpuWork(7, 0, 2 * MS, 500 * US, false);
    policy.queued(work, 500 * US);
    policy.next(500 * US, 0);
    // charged 2 ms on dispatch, before it completes: 0.3 - 2 = -1.7 ms, positive again (+0.1) at 6 ms
    assertEquals(new PresentDecision.PostponeUntil(6 * MS), policy.requestPresent(0, 600 * US));
    // it really used 2.6 ms: the other 0.6 ms are charged at 2.5 ms, when the budget had come back to -1.1 ms:
    // -1.7 ms again, and +0.3 ms a period gives +0.1 ms at 8 ms
    policy.completed(work, 2_600 * US, 2_500 * US);
    assertEquals(new PresentDecision.PostponeUntil(8 * MS), policy.requestPresent(0, 2_500 * US));
  }

  @Test
  void share_dispatchesRequestsInArrivalOrder_evenFromAVmInDebt() {
    create("vgris-share", vm(0, 0.3), vm(1, 0.5));
    runOnGpu(0, 2 * MS, 500 * US);
    policy.queued(new GpuWork(100, 0, MS, 600 * US, false), 600 * US);
    policy.queued(new GpuWork(101, 1, MS, 700 * US, false), 700 * US);
    assertEquals(100L, assertInstanceOf(GpuDecision.Dispatch.class, policy.next(700 * US, 0)).work().id());
    assertEquals(101L, assertInstanceOf(GpuDecision.Dispatch.class, policy.next(700 * US, 1)).work().id());
    policy.completed(new GpuWork(100, 0, MS, 600 * US, false), MS, 2 * MS);
    policy.completed(new GpuWork(101, 1, MS, 700 * US, false), MS, 3 * MS);
  }

  @Test
  void share_refusesAVmThatWouldPushSharesAboveOne_andKeepsTheOthers() {
    create("vgris-share", new VgpuParams(0, "nba2012", 1, 0.6, 30));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> policy.addVgpu(new VgpuParams(1, "3dmark05", 1, 0.5, 30)));
    assertEquals("VM shares sum to 1.1, above 1: nba2012 0.6, 3dmark05 0.5", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> policy.presentMode(1));

    policy.addVgpu(new VgpuParams(1, "3dmark05", 1, 0.4, 30));
    assertEquals(new PresentMode.ProportionalShare(0.4), policy.presentMode(1));
  }

  @Test
  void share_liveChange_refillsAtTheNewShareFromTheNextPeriod_andRefusesSharesAboveOne() {
    create("vgris-share", vm(0, 0.3), vm(1, 0.5));
    runOnGpu(0, 2 * MS, 500 * US);
    assertEquals(new PresentDecision.PostponeUntil(6 * MS), policy.requestPresent(0, 500 * US), "-1.7 ms at 0.3");
    assertEquals(LiveChange.APPLIED, policy.setShare(0, 0.5, 700 * US));
    // +0.5 ms per period from the change on: -1.2 at 1 ms, -0.7 at 2 ms, -0.2 at 3 ms, +0.3 at 4 ms
    assertEquals(new PresentDecision.PostponeUntil(4 * MS), policy.requestPresent(0, MS));
    assertEquals(new PresentMode.ProportionalShare(0.5), policy.presentMode(0));
    LiveChange over = policy.setShare(1, 0.6, MS);
    assertEquals(new LiveChange.Refused("vgris-share: VM shares sum to 1.1, above 1: vm0 0.5, vm1 0.6"), over);
    assertEquals(new PresentMode.ProportionalShare(0.5), policy.presentMode(1), "a refused change changes nothing");
  }

  @Test
  void slaAndHybrid_refuseAShareChange_theirSharesAreNotConfigured() {
    create("vgris-sla", vm(0));
    assertInstanceOf(LiveChange.Refused.class, policy.setShare(0, 0.5, 0));
    create("vgris-hybrid", vm(0), vm(1));
    assertEquals(new LiveChange.Refused("vgris-hybrid: the shares are computed by the policy, not configured"),
        policy.setShare(0, 0.5, 0));
  }

  @Test
  void share_vmsWithoutAShareSplitTheRemainder_overTheVmsPresent() {
    create("vgris-share", vm(0, 0.5), vm(1), vm(2));
    assertEquals(new PresentMode.ProportionalShare(0.25), policy.presentMode(1));
    policy.removeVgpu(2);
    assertEquals(new PresentMode.ProportionalShare(0.5), policy.presentMode(1));
    assertThrows(IllegalArgumentException.class, () -> policy.requestPresent(2, 0));
  }

  @Test
  void hybrid_underSlaAware_pacesAndAllowsEveryPresent() {
    create("vgris-hybrid", vm(0), vm(1));
    assertEquals(new PresentMode.ProportionalShare(1.0), policy.presentMode(0), "§4.3: the full GPU for each VM");
    starveVm1ForFiveSeconds();
    assertEquals(new PresentMode.SlaAware(33_000_000, 20), policy.presentMode(0));
    runOnGpu(0, 50 * MS, 5 * SECOND + MS);
    assertEquals(ALLOW, policy.requestPresent(0, 5 * SECOND + MS));
  }

  @Test
  void hybrid_switchesBackWithEq2Shares_andNoDebtFromSlaAware_thenChargesAgain() {
    create("vgris-hybrid", vm(0), vm(1));
    starveVm1ForFiveSeconds();
    for (long s = 6; s <= 9; s++) {
      assertFalse(policy.secondEnded(s * SECOND, List.of(new SecondReport(0, 30, 0.2), new SecondReport(1, 30, 0.4))));
    }
    // 50 ms of GPU time finishing as SLA-aware ends: not charged, or VM 0 would wait 100 periods.
    runOnGpu(0, 50 * MS, 10 * SECOND);
    assertTrue(policy.secondEnded(10 * SECOND, List.of(new SecondReport(0, 30, 0.2), new SecondReport(1, 30, 0.4))));

    // Eq. 2 with u = (0.2, 0.4): surplus 0.2 each.
    assertEquals(0.4, assertInstanceOf(PresentMode.ProportionalShare.class, policy.presentMode(0)).share(), EXACT);
    assertEquals(0.6, policy.shares().get(1), EXACT);
    assertEquals(ALLOW, policy.requestPresent(0, 10 * SECOND));

    runOnGpu(0, MS, 10 * SECOND);
    // 0.4 ms - 1 ms = -0.6 ms, +0.4 ms a period: -0.2 ms, then +0.2 ms two periods later.
    assertEquals(new PresentDecision.PostponeUntil(10 * SECOND + 2 * MS), policy.requestPresent(0, 10 * SECOND));
    assertEquals(List.of(
        new AlgorithmSwitch(5 * SECOND, Algorithm.PROPORTIONAL_SHARE, Algorithm.SLA_AWARE),
        new AlgorithmSwitch(10 * SECOND, Algorithm.SLA_AWARE, Algorithm.PROPORTIONAL_SHARE)), policy.switches());
  }

  @Test
  void hybrid_givesEveryVmTheFullGpu_asVmsJoinAndLeave_untilEq2() {
    create("vgris-hybrid", vm(0), vm(1), vm(2, 0.9));
    assertEquals(1.0, policy.shares().get(2), EXACT, "the hybrid ignores a configured share");
    policy.removeVgpu(1);
    assertEquals(Map.of(0, 1.0, 2, 1.0), policy.shares());
    policy.addVgpu(vm(3));
    assertEquals(1.0, policy.shares().get(3), EXACT);
  }

  @Test
  void remove_isRefusedWhileTheVmsRequestsAreQueued() {
    create("vgris-hybrid", vm(0), vm(1));
    GpuWork work = new GpuWork(1, 1, MS, 0, false);
    policy.queued(work, 0);
    assertThrows(IllegalStateException.class, () -> policy.removeVgpu(1));
    assertEquals(new PresentMode.ProportionalShare(1.0), policy.presentMode(1), "VM 1 is still there");
    policy.next(0, 0);
    policy.completed(work, MS, MS);
  }

  @Test
  void remove_aCompletionAfterTheVmLeft_isReportedAsAViolation() {
    PresentGate share = create("vgris-share", vm(0), vm(1));
    policy = null;
    GpuWork work = new GpuWork(7, 1, MS, 0, false);
    share.queued(work, 0);
    share.next(0, 0);
    share.removeVgpu(1);
    share.completed(work, MS, MS);
    assertEquals(List.of("vgris-share: request 7 completed after vGPU 1 left"), share.checkInvariants());
  }

  @Test
  void reports_fromUnknownVgpusOrTwiceFromOne_areRefused() {
    create("vgris-hybrid", vm(0));
    IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
        () -> policy.secondEnded(SECOND, List.of(new SecondReport(4, 30, 0.1))));
    assertEquals("vgris-hybrid: unknown vGPU 4", unknown.getMessage());
    IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
        () -> policy.secondEnded(SECOND, List.of(new SecondReport(0, 30, 0.1), new SecondReport(0, 30, 0.1))));
    assertEquals("vgris-hybrid: vGPU 0 reported twice in one second", twice.getMessage());
  }

  @Test
  void presentModeOf_aPolicyThatIsNoGate_isPassThrough() {
    assertEquals(new PresentMode.PassThrough(),
        PresentGate.presentModeOf(PolicyCatalog.builtIn().create(PolicyKind.GPU, "fcfs", PolicyParams.of(DEFAULTS)), 0));
    create("vgris-sla", vm(0));
    assertEquals(new PresentMode.SlaAware(33_000_000, 20), PresentGate.presentModeOf(policy, 0));
  }

  @Test
  void params_eachPolicyReadsOnlyWhatItUses() {
    VgrisPolicy.slaAware(PolicyParams.of(Map.of("max-inflight", 2L, "present-history", 20L)));
    VgrisPolicy.proportionalShare(PolicyParams.of(Map.of("max-inflight", 2L, "period", MS)));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> VgrisPolicy.hybrid(PolicyParams.of(Map.of("max-inflight", 2L, "period", MS, "present-history", 20L))));
    assertTrue(e.getMessage().contains("'fps-threshold' missing"), e.getMessage());
  }

  @Test
  void params_windowMustBeWholeSeconds_andGpuThresholdAFraction() {
    assertEquals("vgris-hybrid: parameter 'window' must be a whole number of seconds (VMs report once a second), "
        + "got 2500000000 ns", hybridWith("window", 2_500 * MS).getMessage());
    assertEquals("vgris-hybrid: parameter 'gpu-threshold' must be in (0, 1], got 1.5",
        hybridWith("gpu-threshold", 1.5).getMessage());
    assertEquals("vgris-hybrid: parameter 'max-inflight' must be > 0, got 0",
        hybridWith("max-inflight", 0L).getMessage());
  }

  private static IllegalArgumentException hybridWith(String key, Object value) {
    Map<String, Object> params = new HashMap<>(DEFAULTS);
    params.put(key, value);
    return assertThrows(IllegalArgumentException.class, () -> VgrisPolicy.hybrid(PolicyParams.of(params)));
  }
}
