package org.gpuemu.emulator.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** The range of a VM's per-period GPU usage over its mean (VGRIS Figure 10). */
class UsageRangeTest {

  @Test
  void theFirstAndLastPeriodsWithGpuTime_areLeftOut_andIdlePeriodsBeforeTheStartDoNotCount() {
    UsageRange r = new UsageRange(1);
    for (double u : new double[] {0, 0, 0.1, 0.30, 0.28, 0.32, 0.05, 0}) r.period(0, u);
    // counted: 0.30, 0.28, 0.32 (0.1 is the start-up, 0.05 the end): (0.32 - 0.28) / 0.30
    assertEquals(100 * 0.04 / 0.30, r.rangePct(0), 1e-9);
  }

  @Test
  void anIdlePeriodBetweenBusyOnes_countsAsZero() {
    UsageRange r = new UsageRange(1);
    for (double u : new double[] {0.5, 0.4, 0, 0.4, 0.4, 0.5}) r.period(0, u);
    // counted: 0.4, 0, 0.4, 0.4: mean 0.3, range 0.4
    assertEquals(100 * 0.4 / 0.3, r.rangePct(0), 1e-9);
  }

  @Test
  void fewerThanTwoCountedPeriods_giveNoRange() {
    UsageRange r = new UsageRange(2);
    for (double u : new double[] {0.2, 0.3, 0.2}) r.period(0, u);
    assertNull(r.rangePct(0));
    assertNull(r.rangePct(1));
  }
}
