package org.gpuemu.emulator.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The soak's rules on synthetic samples: heap growth in the second half, a VM's stall, lost requests. */
class SoakRulesTest {
  private static final long MIB = 1L << 20;
  private static final SoakRules.End CLEAN = new SoakRules.End(0, 0, List.of());

  private static SoakRules.Limits limits() {
    return new SoakRules.Limits(0.10, 16 * MIB, 5_000_000_000L, Map.of());
  }

  /** Samples every 60 s for 10 minutes; heap(i) and vm1's completed count(i) given per sample. */
  private static List<SoakSample> samples(java.util.function.IntToLongFunction heap,
      java.util.function.IntToLongFunction vm1Done) {
    List<SoakSample> list = new ArrayList<>();
    for (int i = 1; i <= 10; i++) {
      long done = vm1Done.applyAsLong(i);
      list.add(new SoakSample(60.0 * i, 6.0 * i, heap.applyAsLong(i), 5, 30, 2 * done + 100 * i, 2 * done + 100 * i,
          0, 0, Map.of("vm1", done, "vm2", 100L * i), "faithful"));
    }
    return list;
  }

  @Test
  void steadyHeap_progressingVms_nothingLost_isOk() {
    SoakRules.Verdict v = SoakRules.judge(samples(i -> 50 * MIB + (i % 2) * MIB, i -> 10L * i), CLEAN, limits());
    assertTrue(v.ok(), v.toString());
  }

  @Test
  void heapGrowingOnlyInTheFirstHalf_isWarmUp_notALeak() {
    // 40 -> 100 MiB during the first five minutes, flat at 100 MiB after: the second half grows by 0
    SoakRules.Verdict v = SoakRules.judge(samples(i -> Math.min(100, 40 + 12L * i) * MIB, i -> 10L * i), CLEAN,
        limits());
    assertTrue(v.ok(), v.toString());
  }

  @Test
  void heapGrowing4MiBAMinuteInTheSecondHalf_isALeak() {
    // second half = samples at 300..600 s: 70 -> 90 MiB, +20 MiB: above both 10 % (7 MiB) and 16 MiB
    SoakRules.Verdict v = SoakRules.judge(samples(i -> (50 + 4L * i) * MIB, i -> 10L * i), CLEAN, limits());
    assertEquals(1, v.problems().size(), v.toString());
    assertTrue(v.problems().get(0).startsWith("heap growth"), v.toString());
  }

  @Test
  void heapGrowthBelowTheAbsoluteFloor_isNoise() {
    // 10 -> 14 MiB in the second half: +40 % but only 4 MiB, under the 16 MiB floor
    SoakRules.Verdict v = SoakRules.judge(samples(i -> (6 + i * 8L / 10) * MIB, i -> 10L * i), CLEAN, limits());
    assertTrue(v.ok(), v.toString());
  }

  @Test
  void vmCompletingNothingForTwoMinutes_isAStall_longerThanTheLivenessTimeout() {
    // vm1 stuck at 30 from 180 s to 300 s: 120 s without progress, more than the 5 s liveness timeout
    SoakRules.Verdict v = SoakRules.judge(samples(i -> 50 * MIB, i -> i <= 3 ? 10L * i : i <= 5 ? 30 : 10L * i),
        CLEAN, limits());
    assertEquals(List.of("stall: vm1 completed nothing from 180.0 s to 300.0 s (more than the liveness timeout, "
        + "5.0 s)"), v.problems());
  }

  @Test
  void vmStoppedByItsStopAfter_isNotAStall() {
    // vm1's program stops at 240 s (stop-after): its count stays at 40 afterwards, as it should
    Map<String, long[]> active = Map.of("vm1", new long[] {0, 240_000_000_000L});
    SoakRules.Verdict v = SoakRules.judge(samples(i -> 50 * MIB, i -> Math.min(4, i) * 10L), CLEAN,
        new SoakRules.Limits(0.10, 16 * MIB, 5_000_000_000L, active));
    assertTrue(v.ok(), v.toString());
  }

  @Test
  void lostOrOpenRequests_andBrokenInvariants_areProblems() {
    SoakRules.Verdict v = SoakRules.judge(samples(i -> 50 * MIB, i -> 10L * i),
        new SoakRules.End(1, 2, List.of("gpu time not conserved")), limits());
    assertEquals(List.of("lost: 1 requests lost and 2 still open at the end", "invariant: gpu time not conserved"),
        v.problems());
  }
}
