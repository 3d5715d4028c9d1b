package org.gpuemu.emulator.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** What the quick and full benches measure: the issue's points, whatever their length. */
class BenchPlanTest {

  @Test
  void bothPlans_measureTheIssuesPoints() {
    for (BenchPlan plan : List.of(BenchPlan.quick(), BenchPlan.full())) {
      assertTrue(plan.timerCounts().containsAll(List.of(1_000, 10_000)), plan.name());
      assertEquals(List.of(1, 8, 64), plan.pathVms(), plan.name());
      assertEquals(List.of(0.1, 1.0, 10.0), plan.overheadScales(), plan.name());
      assertTrue(plan.fastForwardScales().contains(2.0), plan.name() + ": the goal's scale");
      assertTrue(plan.scaleMaxVms() >= 1_000, plan.name() + ": the goal's count is reachable");
    }
  }

  @Test
  void quickPlan_isShorterThanTheFullOne() {
    BenchPlan quick = BenchPlan.quick();
    BenchPlan full = BenchPlan.full();
    assertTrue(quick.timerTrials() <= full.timerTrials());
    assertTrue(quick.scaleBudgetWallSeconds() < full.scaleBudgetWallSeconds());
    assertTrue(quick.fastForwardSeconds() < full.fastForwardSeconds());
  }

  @Test
  void timerRounds_keepTheTimerCountComparable_withAtLeastTwoRounds() {
    BenchPlan quick = BenchPlan.quick();
    assertEquals(5, quick.timerRounds(1_000));
    assertEquals(50, quick.timerRounds(100));
    assertEquals(2, quick.timerRounds(10_000));
  }

  @Test
  void overheadRuns_lastTheirWallTime_butNeverLessThanTheMinimum() {
    BenchPlan quick = BenchPlan.quick();
    assertEquals(0.5, quick.overheadSeconds(0.1), "0.2 s would be too few events");
    assertEquals(2.0, quick.overheadSeconds(1));
    assertEquals(20.0, quick.overheadSeconds(10));
  }

  @Test
  void heapCounts_mustBeTwoAscending() {
    BenchPlan q = BenchPlan.quick();
    assertThrows(IllegalArgumentException.class, () -> new BenchPlan(q.name(), q.timerCounts(),
        q.timerRoundsPerThousand(), q.timerWarmUps(), q.timerTrials(), q.floorSamples(), q.loadWarmUpWallSeconds(),
        q.pathVms(), q.pathScales(), q.pathWallSeconds(), q.scaleStartVms(), q.scaleMaxVms(), q.scaleRefineSteps(),
        q.scaleSeconds(), q.scaleWarmUpSeconds(), q.scaleBudgetWallSeconds(), List.of(600, 100),
        q.fastForwardSeconds(), q.fastForwardScales(), q.overheadWorkloads(), q.overheadScales(),
        q.overheadWallSeconds(), q.overheadMinSeconds(), q.fidelityFraction(), q.fidelityWarmUpWallSeconds(),
        q.hostThreads(), q.hostsSeconds(), q.hostsTrials()));
  }

  @Test
  void fidelityRuns_lastTheFilesLength_capped_byEmulatedAndWallTime_andHalfThatWhenQuick() {
    BenchPlan full = BenchPlan.full();
    BenchPlan quick = BenchPlan.quick();
    assertEquals(3.0, full.fidelitySeconds(30, 1), "capped at 3 emulated s");
    assertEquals(1.2, full.fidelitySeconds(1.2, 0.25), 1e-12, "the file's own length: 4.8 wall s");
    assertEquals(1.5, full.fidelitySeconds(4, 0.25), 1e-12, "6 wall s at scale 0.25");
    assertEquals(0.6, full.fidelitySeconds(4, 0.1), 1e-12, "6 wall s at scale 0.1");
    assertEquals(0.5, full.fidelitySeconds(4, 0.05), 1e-12, "at least 0.5 s, though that is 10 wall s");
    assertEquals(0.3, full.fidelitySeconds(0.3, 0.25), 1e-12, "never longer than the file");
    assertEquals(1.5, quick.fidelitySeconds(30, 1), 1e-12);
    assertEquals(0.6, quick.fidelitySeconds(1.2, 0.25), 1e-12);
    assertEquals(0.25, quick.fidelitySeconds(4, 0.05), 1e-12);
  }
}
