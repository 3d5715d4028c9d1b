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
        q.overheadWallSeconds(), q.overheadMinSeconds()));
  }
}
