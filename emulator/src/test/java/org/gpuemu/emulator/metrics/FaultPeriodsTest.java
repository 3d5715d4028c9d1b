package org.gpuemu.emulator.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Fault windows on the timeline, and the time to recover against the steady state before the fault. */
class FaultPeriodsTest {
  private static final long S = 1_000_000_000L;
  private static final long MS = 1_000_000L;

  /** Two VMs at 60 and 30 FPS, periods of 500 ms: a 3 s window is 6 periods. */
  private static FaultPeriods steady(int periods) {
    FaultPeriods p = new FaultPeriods(2, 500 * MS);
    for (int i = 1; i <= periods; i++) p.period(i * 500 * MS, new double[] {60, 30});
    return p;
  }

  @Test
  void aFaultIsMarkedInThePeriodsItWasActive_andAnInstantOneInItsOwn() {
    FaultPeriods p = steady(6);
    p.began(0, "gpu-hang@vm1", 3_100 * MS);
    assertEquals(List.of("gpu-hang@vm1"), p.period(3_500 * MS, new double[] {0, 0}));
    assertEquals(List.of("gpu-hang@vm1"), p.period(4_000 * MS, new double[] {0, 0}));
    p.ended(0, 4_200 * MS);
    p.began(1, "vgpu-crash@vm2", 4_300 * MS);
    p.ended(1, 4_300 * MS); // restarted at once
    assertEquals(List.of("gpu-hang@vm1", "vgpu-crash@vm2"), p.period(4_500 * MS, new double[] {60, 30}));
    assertEquals(List.of(), p.period(5_000 * MS, new double[] {60, 30}));
  }

  @Test
  void recovery_isFromTheHealToTheStartOfTheFirstWindowBackWithin5Percent() {
    FaultPeriods p = steady(6);
    p.began(0, "vm-reboot@vm1", 3_000 * MS);
    p.period(3_500 * MS, new double[] {0, 40});
    p.ended(0, 3_700 * MS);
    // the heal's period (3.5-4.0 s) is still short of frames, the next ones are back: the window from 4.0 s on
    p.period(4_000 * MS, new double[] {20, 35});
    for (int i = 9; i <= 13; i++) p.period(i * 500 * MS, new double[] {60, 30});
    assertTrue(p.recoveries().isEmpty(), "a window of six periods from 4.0 s ends at 7.0 s");
    p.period(7_000 * MS, new double[] {61, 30});
    assertEquals(Map.of(0, 300 * MS), p.recoveries(), "from the heal at 3.7 s to the window's start at 4.0 s");
  }

  @Test
  void aFaultWithoutEffect_recoversAtOnce_inTheWindowThatHoldsItsHeal() {
    FaultPeriods p = steady(6);
    p.began(0, "metrics-crash@vm1", 3_200 * MS);
    p.ended(0, 3_200 * MS);
    for (int i = 7; i <= 12; i++) p.period(i * 500 * MS, new double[] {60, 30});
    assertEquals(Map.of(0, 0L), p.recoveries());
  }

  @Test
  void aVmThatStaysOff_byMoreThan5Percent_neverRecovers_andOneFrameOfJitterIsNotAMiss() {
    FaultPeriods p = steady(6);
    p.began(0, "gpu-scheduler-crash@vm2", 3_000 * MS);
    p.ended(0, 3_000 * MS);
    for (int i = 7; i <= 20; i++) p.period(i * 500 * MS, new double[] {i % 2 == 0 ? 61 : 59, 27}); // vm2 -10 %
    assertTrue(p.recoveries().isEmpty());
  }

  @Test
  void noSteadyStateBeforeTheFault_noRecoveryMeasured() {
    FaultPeriods p = steady(3); // 1.5 s: less than a window
    p.began(0, "vcpu-crash@vm1", 1_500 * MS);
    p.ended(0, 1_500 * MS);
    for (int i = 4; i <= 20; i++) p.period(i * 500 * MS, new double[] {60, 30});
    assertTrue(p.recoveries().isEmpty());
  }

  @Test
  void aVmThatHadNothingToDo_doesNotHoldTheRecoveryBack() {
    FaultPeriods p = new FaultPeriods(2, S);
    for (int i = 1; i <= 3; i++) p.period(i * S, new double[] {60, 0});
    p.began(0, "vcpu-crash@vm1", 3 * S);
    p.ended(0, 3 * S);
    for (int i = 4; i <= 6; i++) p.period(i * S, new double[] {60, 5});
    assertEquals(Map.of(0, 0L), p.recoveries());
  }
}
