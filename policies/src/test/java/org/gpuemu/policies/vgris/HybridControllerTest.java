package org.gpuemu.policies.vgris;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.gpuemu.policies.gpu.VgpuParams;
import org.junit.jupiter.api.Test;

class HybridControllerTest {
  private static final long SECOND = 1_000_000_000L;
  private static final double EXACT = 1e-12;
  private static final double GOOD_FPS = 45;
  private static final double LOW_FPS = 20;

  /** The paper's FPSthres 30 and Time 5 s, with GPUthres 0.9. */
  private final HybridController hybrid = new HybridController(30, 0.9, 5);
  private long now;

  private void join(int... vgpus) {
    for (int v : vgpus) {
      hybrid.join(new VgpuParams(v, "vm" + v, 1));
    }
  }

  /** Ends the next second with these reports; true when the algorithm changed. */
  private boolean second(SecondReport... reports) {
    now += SECOND;
    return hybrid.secondEnded(now, List.of(reports));
  }

  private static SecondReport fps(int vgpu, double fps) {
    return new SecondReport(vgpu, fps, 0.3);
  }

  private static SecondReport usage(int vgpu, double gpuUsage) {
    return new SecondReport(vgpu, GOOD_FPS, gpuUsage);
  }

  /** Five seconds with VM 1 starving: proportional share gives way to SLA-aware. */
  private void starveVm1ForFiveSeconds() {
    for (int s = 0; s < 5; s++) {
      second(fps(0, GOOD_FPS), fps(1, LOW_FPS));
    }
    assertEquals(Algorithm.SLA_AWARE, hybrid.algorithm());
  }

  @Test
  void hybrid_startsInProportionalShare_withTheFullGpuForEachVm() {
    // §4.3: "assigns full GPU resource for each VM since both of their FPS satisfy the FPS criteria"
    join(0, 1, 2);
    assertEquals(Algorithm.PROPORTIONAL_SHARE, hybrid.algorithm());
    assertEquals(Map.of(0, 1.0, 1, 1.0, 2, 1.0), hybrid.shares());
    assertEquals(List.of(), hybrid.switches());
  }

  @Test
  void algorithm1_switchesToSlaAware_atTheFifthConsecutiveSecondUnderFpsThreshold_notTheFourth() {
    join(0, 1);
    for (int s = 1; s <= 4; s++) {
      assertFalse(second(fps(0, GOOD_FPS), fps(1, LOW_FPS)), "second " + s);
    }
    assertEquals(Algorithm.PROPORTIONAL_SHARE, hybrid.algorithm());

    assertTrue(second(fps(0, GOOD_FPS), fps(1, LOW_FPS)));
    assertEquals(Algorithm.SLA_AWARE, hybrid.algorithm());
    assertEquals(List.of(new AlgorithmSwitch(5 * SECOND, Algorithm.PROPORTIONAL_SHARE, Algorithm.SLA_AWARE)),
        hybrid.switches());
  }

  @Test
  void algorithm1_aSecondAtTheThresholdRestartsTheCount() {
    join(0, 1);
    for (int s = 0; s < 4; s++) {
      second(fps(0, GOOD_FPS), fps(1, LOW_FPS));
    }
    assertFalse(second(fps(0, GOOD_FPS), fps(1, 30)), "30 FPS is not below FPSthres 30");
    for (int s = 0; s < 4; s++) {
      assertFalse(second(fps(0, GOOD_FPS), fps(1, LOW_FPS)));
    }
    assertTrue(second(fps(0, GOOD_FPS), fps(1, LOW_FPS)));
    assertEquals(10 * SECOND, hybrid.switches().get(0).nanos());
  }

  @Test
  void algorithm1_countsEachVmsStreakSeparately() {
    join(0, 1);
    // Some VM is starved in each of seconds 1..5, but no single VM is until VM 1's fifth second, second 7.
    double[] vm0 = {LOW_FPS, LOW_FPS, LOW_FPS, GOOD_FPS, GOOD_FPS, GOOD_FPS, GOOD_FPS};
    double[] vm1 = {GOOD_FPS, GOOD_FPS, LOW_FPS, LOW_FPS, LOW_FPS, LOW_FPS, LOW_FPS};
    for (int s = 0; s < 6; s++) {
      assertFalse(second(fps(0, vm0[s]), fps(1, vm1[s])), "second " + (s + 1));
    }
    assertTrue(second(fps(0, vm0[6]), fps(1, vm1[6])));
  }

  @Test
  void algorithm1_switchesBack_afterFiveSecondsOfLowTotalUsage_withEq2Shares() {
    join(0, 1);
    starveVm1ForFiveSeconds();
    // Table 2's SLA-aware usages, 39.36 % in total, under GPUthres 0.9.
    for (int s = 1; s <= 4; s++) {
      assertFalse(second(usage(0, 0.1241), usage(1, 0.2695)), "second " + s);
    }
    assertTrue(second(usage(0, 0.1241), usage(1, 0.2695)));

    assertEquals(Algorithm.PROPORTIONAL_SHARE, hybrid.algorithm());
    assertEquals(0.4273, hybrid.shares().get(0), EXACT);
    assertEquals(0.5727, hybrid.shares().get(1), EXACT);
    assertEquals(new AlgorithmSwitch(10 * SECOND, Algorithm.SLA_AWARE, Algorithm.PROPORTIONAL_SHARE),
        hybrid.switches().get(1));
  }

  @Test
  void algorithm1_countsLowUsageOnlyFromTheSwitchOn() {
    join(0, 1);
    // Usage is low (0.3 + 0.3) during the five starved seconds too; those do not count for switching back.
    starveVm1ForFiveSeconds();
    for (int s = 0; s < 4; s++) {
      assertFalse(second(usage(0, 0.3), usage(1, 0.3)));
    }
    assertTrue(second(usage(0, 0.3), usage(1, 0.3)));
  }

  @Test
  void algorithm1_aBusySecondRestartsTheLowUsageCount() {
    join(0, 1);
    starveVm1ForFiveSeconds();
    for (int s = 0; s < 4; s++) {
      second(usage(0, 0.3), usage(1, 0.3));
    }
    assertFalse(second(usage(0, 0.5), usage(1, 0.4)), "0.9 is not below GPUthres 0.9");
    for (int s = 0; s < 4; s++) {
      assertFalse(second(usage(0, 0.3), usage(1, 0.3)));
    }
    assertEquals(Algorithm.SLA_AWARE, hybrid.algorithm());
  }

  @Test
  void eq2_usesEachVmsMeanUsageOverTheWindow_notTheLastSecond() {
    join(0, 1);
    starveVm1ForFiveSeconds();
    double[] vm0 = {0.1, 0.1, 0.1, 0.1, 0.6};
    for (double u : vm0) {
      second(usage(0, u), usage(1, 0.1));
    }
    // u = (0.2, 0.1), surplus (1 - 0.3) / 2 = 0.35. The last second alone (0.6, 0.1) would give 0.75 / 0.25.
    assertEquals(0.55, hybrid.shares().get(0), EXACT);
    assertEquals(0.45, hybrid.shares().get(1), EXACT);
  }

  @Test
  void eq2_aVmThatJoinedDuringTheWindow_countsZeroForTheSecondsBeforeIt() {
    join(0, 1);
    starveVm1ForFiveSeconds();
    for (int s = 0; s < 3; s++) {
      second(usage(0, 0.2), usage(1, 0.2));
    }
    join(2);
    second(usage(0, 0.2), usage(1, 0.2), usage(2, 0.2));
    assertTrue(second(usage(0, 0.2), usage(1, 0.2), usage(2, 0.2)));
    // u = (0.2, 0.2, 0.4 / 5 = 0.08): Σu 0.48, surplus 0.52 / 3.
    double surplus = 0.52 / 3;
    assertEquals(0.2 + surplus, hybrid.shares().get(0), EXACT);
    assertEquals(0.08 + surplus, hybrid.shares().get(2), EXACT);
  }

  @Test
  void shares_beforeEq2_areTheFullGpuForEveryPresentVm_asTheyJoinAndLeave() {
    join(0, 1);
    assertEquals(Map.of(0, 1.0, 1, 1.0), hybrid.shares());
    join(2);
    assertEquals(Map.of(0, 1.0, 1, 1.0, 2, 1.0), hybrid.shares());
    hybrid.leave(1);
    assertEquals(Map.of(0, 1.0, 2, 1.0), hybrid.shares());
    starveVm1ForFiveSecondsAfterLeave();
    assertEquals(Map.of(0, 1.0, 2, 1.0), hybrid.shares(), "SLA-aware does not apply Eq. 2; the switch back does");
  }

  private void starveVm1ForFiveSecondsAfterLeave() {
    for (int s = 0; s < 5; s++) {
      second(fps(0, GOOD_FPS), fps(2, LOW_FPS));
    }
    assertEquals(Algorithm.SLA_AWARE, hybrid.algorithm());
  }

  @Test
  void shares_afterEq2_giveANewcomerOnlyItsPartOfTheSurplus_andALeaverFreesItsUsage() {
    join(0, 1);
    starveVm1ForFiveSeconds();
    for (int s = 0; s < 5; s++) {
      second(usage(0, 0.1241), usage(1, 0.2695));
    }
    join(2);
    double surplus = (1 - 0.1241 - 0.2695) / 3;
    assertEquals(surplus, hybrid.shares().get(2), EXACT);
    assertEquals(0.1241 + surplus, hybrid.shares().get(0), EXACT);

    hybrid.leave(1);
    assertEquals(0.1241 + (1 - 0.1241) / 2, hybrid.shares().get(0), EXACT);
    assertEquals((1 - 0.1241) / 2, hybrid.shares().get(2), EXACT);
  }

  @Test
  void absence_isNoEvidence_aVmThatNeverReportsDoesNotCountAsStarved() {
    join(0, 1, 2);
    for (int s = 0; s < 10; s++) {
      assertFalse(second(fps(0, GOOD_FPS), fps(1, GOOD_FPS)));
    }
  }

  @Test
  void absence_breaksAStreak() {
    join(0, 1);
    for (int s = 0; s < 4; s++) {
      second(fps(0, GOOD_FPS), fps(1, LOW_FPS));
    }
    assertFalse(second(fps(0, GOOD_FPS)), "VM 1 sent no report this second");
    assertFalse(second(fps(0, GOOD_FPS), fps(1, LOW_FPS)));
  }

  @Test
  void absence_aSecondWithoutAnyReportRestartsEveryCount() {
    join(0, 1);
    for (int s = 0; s < 4; s++) {
      second(fps(0, GOOD_FPS), fps(1, LOW_FPS));
    }
    assertFalse(second());
    assertFalse(second(fps(0, GOOD_FPS), fps(1, LOW_FPS)));
  }

  @Test
  void leave_forgetsTheVmsStreak() {
    join(0, 1);
    for (int s = 0; s < 4; s++) {
      second(fps(0, GOOD_FPS), fps(1, LOW_FPS));
    }
    hybrid.leave(1);
    join(1);
    assertFalse(second(fps(0, GOOD_FPS), fps(1, LOW_FPS)), "the new VM 1 has one low second, not five");
  }
}
