package org.gpuemu.emulator.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.util.ArrayList;
import java.util.List;
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

  @Test
  void median_isTakenColumnByColumn() {
    List<TimerProbe.Result> trials = List.of(
        new TimerProbe.Result(10, 1, 900, 950, 990),
        new TimerProbe.Result(10, 3, 100, 200, 300),
        new TimerProbe.Result(10, 2, 500, 600, 700));
    assertEquals(new TimerProbe.Result(10, 2, 500, 600, 700), TimerProbe.Result.median(trials));
    assertThrows(IllegalArgumentException.class, () -> TimerProbe.Result.median(List.of()));
  }

  @Test
  void interleaved_givesEveryVariantItsTrialsInOrder_andReportsEach() {
    List<TimerProbe.Variant> variants = List.of(
        new TimerProbe.Variant("a", TimerProbe.HIGH_RES_SCHEDULER.withFallback(TimerProbe.RECOMMENDED_DISPATCHER)),
        new TimerProbe.Variant("b", TimerProbe.HIGH_RES_SCHEDULER.withFallback(TimerProbe.RECOMMENDED_DISPATCHER)));
    List<String> reported = new ArrayList<>();
    List<List<TimerProbe.Result>> results = TimerProbe.interleaved(variants,
        new TimerProbe.Setup(3, 100_000, 500_000, 2), 1, 2, 7, (v, r) -> reported.add(v.name()));
    assertEquals(List.of("a", "b", "a", "b"), reported, "trial 1 of each, then trial 2 of each");
    assertEquals(2, results.size());
    for (List<TimerProbe.Result> trials : results) {
      assertEquals(2, trials.size());
      trials.forEach(r -> assertEquals(6, r.count(), "3 actors x 2 rounds"));
    }
  }

  @Test
  void schedulers_areDefaultTickAndEmulator_inTableOrder() {
    List<TimerProbe.Variant> s = TimerProbe.schedulers();
    assertEquals(3, s.size());
    assertFalse(s.get(0).config().hasPath("pekko.scheduler.implementation"));
    assertEquals("1ms", s.get(1).config().getString("pekko.scheduler.tick-duration"));
    assertEquals(HighResScheduler.class.getName(), s.get(2).config().getString("pekko.scheduler.implementation"));
  }
}
