package org.gpuemu.emulator.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The soak's rules on synthetic samples: the heap floor's fitted slope (long soaks) or its growth in the second half
 * (short ones), thread growth, an unfaithful stretch, a VM's stall, lost requests.
 */
class SoakRulesTest {
  private static final long MIB = 1L << 20;
  private static final SoakRules.End CLEAN = new SoakRules.End(0, 0, List.of());

  private static SoakRules.Limits limits() {
    return SoakRules.Limits.of(5_000_000_000L, Map.of(), 0.01);
  }

  private static SoakSample sample(double t, long heap, int threads, long done, long ordered, long beyond,
      long violations) {
    return new SoakSample(t, t / 10, heap, 5, threads, 2 * done, 2 * done, 0, 0, Map.of("vm1", done), ordered, beyond,
        violations, 100, "faithful");
  }

  /** An hour sampled every minute (and the end): heap(i), threads(i) at minute i, in-order events 1,000 a minute. */
  private static List<SoakSample> hour(java.util.function.IntToLongFunction heap,
      java.util.function.IntUnaryOperator threads) {
    List<SoakSample> list = new ArrayList<>();
    for (int i = 1; i <= 60; i++) list.add(sample(60.0 * i, heap.applyAsLong(i), threads.applyAsInt(i), 10L * i,
        1_000L * i, 0, 0));
    list.add(sample(3600, 10 * MIB, 5, 600, 60_000, 0, 0)); // the end, after the actor system stopped
    return list;
  }

  /** Samples every 60 s for 10 minutes; heap(i) and vm1's completed count(i) given per sample. */
  private static List<SoakSample> samples(java.util.function.IntToLongFunction heap,
      java.util.function.IntToLongFunction vm1Done) {
    List<SoakSample> list = new ArrayList<>();
    for (int i = 1; i <= 10; i++) {
      long done = vm1Done.applyAsLong(i);
      list.add(new SoakSample(60.0 * i, 6.0 * i, heap.applyAsLong(i), 5, 30, 2 * done + 100 * i, 2 * done + 100 * i,
          0, 0, Map.of("vm1", done, "vm2", 100L * i), 1_000L * i, 0, 0, 100, "faithful"));
    }
    return list;
  }

  @Test
  void steadyHeap_progressingVms_nothingLost_isOk() {
    SoakRules.SoakVerdict v = SoakRules.judge(samples(i -> 50 * MIB + (i % 2) * MIB, i -> 10L * i), CLEAN, limits());
    assertTrue(v.ok(), v.toString());
  }

  @Test
  void heapGrowingOnlyInTheFirstHalf_isWarmUp_notALeak() {
    // 40 -> 100 MiB during the first five minutes, flat at 100 MiB after: the second half grows by 0
    SoakRules.SoakVerdict v = SoakRules.judge(samples(i -> Math.min(100, 40 + 12L * i) * MIB, i -> 10L * i), CLEAN,
        limits());
    assertTrue(v.ok(), v.toString());
  }

  @Test
  void heapGrowing4MiBAMinuteInTheSecondHalf_isALeak() {
    // second half = samples at 300..600 s: 70 -> 90 MiB, +20 MiB: above both 10 % (7 MiB) and 16 MiB
    SoakRules.SoakVerdict v = SoakRules.judge(samples(i -> (50 + 4L * i) * MIB, i -> 10L * i), CLEAN, limits());
    assertEquals(1, v.problems().size(), v.toString());
    assertTrue(v.problems().get(0).startsWith("heap growth"), v.toString());
  }

  @Test
  void heapGrowthBelowTheAbsoluteFloor_isNoise() {
    // 10 -> 14 MiB in the second half: +40 % but only 4 MiB, under the 16 MiB floor
    SoakRules.SoakVerdict v = SoakRules.judge(samples(i -> (6 + i * 8L / 10) * MIB, i -> 10L * i), CLEAN, limits());
    assertTrue(v.ok(), v.toString());
  }

  @Test
  void vmCompletingNothingForTwoMinutes_isAStall_longerThanTheLivenessTimeout() {
    // vm1 stuck at 30 from 180 s to 300 s: 120 s without progress, more than the 5 s liveness timeout
    SoakRules.SoakVerdict v = SoakRules.judge(samples(i -> 50 * MIB, i -> i <= 3 ? 10L * i : i <= 5 ? 30 : 10L * i),
        CLEAN, limits());
    assertEquals(List.of("stall: vm1 completed nothing from 180.0 s to 300.0 s (more than the liveness timeout, "
        + "5.0 s)"), v.problems());
  }

  @Test
  void vmStoppedByItsStopAfter_isNotAStall() {
    // vm1's program stops at 240 s (stop-after): its count stays at 40 afterwards, as it should
    Map<String, long[]> active = Map.of("vm1", new long[] {0, 240_000_000_000L});
    SoakRules.SoakVerdict v = SoakRules.judge(samples(i -> 50 * MIB, i -> Math.min(4, i) * 10L), CLEAN,
        SoakRules.Limits.of(5_000_000_000L, active, 0.01));
    assertTrue(v.ok(), v.toString());
  }

  @Test
  void lostOrOpenRequests_andBrokenInvariants_areProblems() {
    SoakRules.SoakVerdict v = SoakRules.judge(samples(i -> 50 * MIB, i -> 10L * i),
        new SoakRules.End(1, 2, List.of("gpu time not conserved")), limits());
    assertEquals(List.of("lost: 1 requests lost and 2 still open at the end", "invariant: gpu time not conserved"),
        v.problems());
  }

  @Test
  void anHour_whoseHeapFloorIsFlat_underASawtooth_isOk_andItsSlopeIsNearZero() {
    // after-GC heap between 40 and 46 MiB, a sawtooth of 6 minutes: old garbage until a mixed collection
    SoakRules.SoakVerdict v = SoakRules.judge(hour(i -> (40 + i % 6) * MIB, i -> 30), CLEAN, limits());
    assertTrue(v.ok(), v.toString());
    assertEquals(0.0, v.heapSlopeMibPerHour(), 0.3, "each 5-minute window's floor is 40 or 41 MiB");
  }

  @Test
  void anHour_whoseHeapFloorGrows2MiBAnHour_isALeak_thoughEachWindowIsNoisy() {
    // floor 40 MiB + 2 MiB/h, with 0-5 MiB of sawtooth on top: the fitted floor slope is 2 MiB/h > 1
    SoakRules.SoakVerdict v = SoakRules.judge(hour(i -> 40 * MIB + i * 2 * MIB / 60 + (i % 6) * MIB, i -> 30), CLEAN,
        limits());
    assertEquals(1, v.problems().size(), v.toString());
    assertTrue(v.problems().get(0).startsWith("heap floor: grows "), v.toString());
    // each window's lowest sample sits at a different point of the sawtooth: within half a MiB per hour of 2
    assertEquals(2.0, v.heapSlopeMibPerHour(), 0.5, v.toString());
  }

  @Test
  void theFirstTenMinutes_areWarmUp_forTheSlope() {
    // 20 -> 40 MiB in the first ten minutes, flat after
    SoakRules.SoakVerdict v = SoakRules.judge(hour(i -> Math.min(40, 20 + 2L * i) * MIB, i -> 30), CLEAN, limits());
    assertTrue(v.ok(), v.toString());
  }

  @Test
  void threadsGrowingThroughTheRun_areAProblem_aSteadyPoolIsNot() {
    assertTrue(SoakRules.judge(hour(i -> 40 * MIB, i -> 30 + (i < 3 ? i : 3)), CLEAN, limits()).ok());
    SoakRules.SoakVerdict v = SoakRules.judge(hour(i -> 40 * MIB, i -> 30 + i / 10), CLEAN, limits());
    // after the first 10 minutes: samples 10-26 peak at 30 + 26/10 = 32 threads, samples 44-60 at 30 + 60/10 = 36
    assertEquals(List.of("threads: up to 36 live threads in the last third of the samples, against at most 32 in "
        + "the first third"), v.problems());
  }

  @Test
  void threadsGrowingOnlyInTheFirstTenMinutes_areAPoolReachingItsSize_notAProblem() {
    // a pool starting a thread a minute up to 16 more, then steady: all of it in the warm-up
    assertTrue(SoakRules.judge(hour(i -> 40 * MIB, i -> 20 + Math.min(i, 9)), CLEAN, limits()).ok());
    // the same growth starting after the warm-up is one
    assertFalse(SoakRules.judge(hour(i -> 40 * MIB, i -> 20 + Math.max(0, Math.min(i, 40) - 20)), CLEAN, limits())
        .ok());
  }

  @Test
  void anUnfaithfulStretchLongerThanAMinute_isAProblem_aShortOneIsNot() {
    List<SoakSample> s = new ArrayList<>();
    long beyond = 0;
    for (int i = 1; i <= 10; i++) {
      // from 3 to 5 minutes 5 % of each minute's events are beyond the horizon (more than 1 %): two minutes
      if (i >= 4 && i <= 5) beyond += 50;
      s.add(sample(60.0 * i, 40 * MIB, 30, 10L * i, 1_000L * i, beyond, 0));
    }
    SoakRules.SoakVerdict v = SoakRules.judge(s, CLEAN, limits());
    assertEquals(List.of("unfaithful: from 180 s to 300 s every stretch between samples broke the fidelity rules "
        + "(more than 60 s)"), v.problems());
    List<SoakSample> once = new ArrayList<>();
    for (int i = 1; i <= 10; i++) once.add(sample(60.0 * i, 40 * MIB, 30, 10L * i, 1_000L * i, i >= 4 ? 50 : 0, 0));
    assertTrue(SoakRules.judge(once, CLEAN, limits()).ok(), "one unfaithful minute: not longer than a minute");
  }

  @Test
  void aCausalityViolation_makesItsStretchUnfaithful() {
    List<SoakSample> s = new ArrayList<>();
    for (int i = 1; i <= 5; i++) s.add(sample(60.0 * i, 40 * MIB, 30, 10L * i, 1_000L * i, 0, i >= 2 ? i - 1 : 0));
    assertTrue(SoakRules.judge(s, CLEAN, limits()).problems().get(0).startsWith("unfaithful: from 60 s to 300 s"));
  }

  @Test
  void duplicatedRequests_areAProblem() {
    SoakRules.SoakVerdict v = SoakRules.judge(samples(i -> 50 * MIB, i -> 10L * i),
        new SoakRules.End(0, 0, 2, List.of()), limits());
    assertEquals(List.of("duplicated: 2 requests"), v.problems());
  }
}
