package org.gpuemu.policies.vgris;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class SlaPacerTest {
  private static final long MS = 1_000_000;
  /** 1 s / 30 FPS, rounded to the nearest nanosecond. */
  private static final long THIRTY_FPS = 33_000_000;

  @Test
  void targetLatency_isOneSecondOverTheSlaFps() {
    assertEquals(THIRTY_FPS, SlaPacer.targetLatencyNanos(30));
    assertEquals(16_000_000, SlaPacer.targetLatencyNanos(60), "whole milliseconds, rounded down");
    assertEquals(33_000_000, SlaPacer.targetLatencyNanos(29.97), "33.37 ms");
    assertEquals(500_000, SlaPacer.targetLatencyNanos(2_000), "under a millisecond: exact");
    assertThrows(IllegalArgumentException.class, () -> SlaPacer.targetLatencyNanos(0));
  }

  @Test
  void sleep_isTargetMinusMeasuredMinusPredictedPresent() {
    // 33 ms frame, 20 ms of compute + draw + flush measured, Present predicted at 3 ms: 10 ms of sleep.
    assertEquals(10_000_000, SlaPacer.sleepNanos(THIRTY_FPS, 20 * MS, 3 * MS));
  }

  @Test
  void sleep_isClampedAtZero_whenTheFrameIsAlreadyLate() {
    assertEquals(0, SlaPacer.sleepNanos(THIRTY_FPS, 31 * MS, 5 * MS), "31 + 5 ms exceeds 33 ms");
    assertEquals(0, SlaPacer.sleepNanos(THIRTY_FPS, 40 * MS, 0));
  }

  @Test
  void pacer_subtractsTheMeanOfTheRecordedPresentCosts() {
    SlaPacer pacer = new SlaPacer(THIRTY_FPS, PresentCostPredictor.PAPER_WINDOW);
    assertEquals(13_000_000, pacer.sleepBeforePresent(20 * MS), "no Present recorded yet: predicted 0");
    pacer.presentReturned(2 * MS);
    pacer.presentReturned(4 * MS);
    assertEquals(10_000_000, pacer.sleepBeforePresent(20 * MS), "predicted (2 + 4) / 2 = 3 ms");
  }

  @Test
  void pacer_usesItsOwnHistoryWindow() {
    SlaPacer pacer = new SlaPacer(THIRTY_FPS, 1);
    pacer.presentReturned(10 * MS);
    pacer.presentReturned(1 * MS);
    assertEquals(12_000_000, pacer.sleepBeforePresent(20 * MS), "a window of one predicts the last, 1 ms");
  }
}
