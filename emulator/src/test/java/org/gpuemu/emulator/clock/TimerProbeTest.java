package org.gpuemu.emulator.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import org.junit.jupiter.api.Test;

/** The probe's bookkeeping only; its numbers are measurements, never asserted. */
class TimerProbeTest {

  @Test
  void measure_countsEveryTimerOfEveryActor() {
    TimerProbe.Result result = TimerProbe.measure(
        TimerProbe.HIGH_RES_SCHEDULER.withFallback(TimerProbe.RECOMMENDED_DISPATCHER), 5, 100_000, 1_000_000, 4, 7);
    assertEquals(20, result.count(), "5 actors x 4 rounds");
    assertTrue(result.p50() <= result.p99() && result.p99() <= result.p999() && result.p999() <= result.max(),
        result.toString());
  }

  @Test
  void measure_rejectsAnEmptyOrInvertedSetup() {
    assertThrows(IllegalArgumentException.class,
        () -> TimerProbe.measure(ConfigFactory.empty(), 0, 0, 1, 1, 1));
    assertThrows(IllegalArgumentException.class,
        () -> TimerProbe.measure(ConfigFactory.empty(), 1, 2, 1, 1, 1));
  }
}
