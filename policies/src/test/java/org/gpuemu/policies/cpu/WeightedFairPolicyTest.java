package org.gpuemu.policies.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyKind;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.gpuemu.policies.PolicyParams;
import org.junit.jupiter.api.Test;

class WeightedFairPolicyTest {
  private static final long MS = 1_000_000;
  private static final long WAKEUP = MS;
  private static final long US = 1_000;
  private static final long PERIOD = 6 * MS;
  private static final long MIN_GRANULARITY = 750 * US;

  private static WeightedFairPolicy weightedFair() {
    return new WeightedFairPolicy(PolicyParams.of(
        Map.of("period", PERIOD, "min-granularity", MIN_GRANULARITY, "wakeup-granularity", WAKEUP)));
  }

  private static CpuDecision.Run run(CpuDecision decision) {
    return assertInstanceOf(CpuDecision.Run.class, decision);
  }

  /** Lets every pick run its whole slice until {@code end}; returns nanoseconds run per vCPU. */
  private static long[] runUntil(WeightedFairPolicy policy, long start, long end, int vcpus) {
    long[] ran = new long[vcpus];
    for (long now = start; now < end; ) {
      CpuDecision.Run r = run(policy.pick(now));
      long slice = Math.min(r.sliceNanos(), end - now);
      now += slice;
      policy.ran(r.vcpu(), slice, now);
      ran[r.vcpu()] += slice;
    }
    return ran;
  }

  @Test
  void weightedFair_twoToOneWeights_getTwoToOneCpuTime() {
    WeightedFairPolicy policy = weightedFair();
    policy.runnable(0, 2, 0);
    policy.runnable(1, 1, 0);

    long[] ran = runUntil(policy, 0, 1_000 * MS, 2);

    // Weights 2:1 of one core for 1 s: 2/3 s and 1/3 s. Ignoring weights in vruntime would give 1/2 each.
    assertEquals(2.0 / 3, ran[0] / 1e9, 0.01);
    assertEquals(1.0 / 3, ran[1] / 1e9, 0.01);
    assertEquals(List.of(), policy.checkInvariants());
  }

  @Test
  void weightedFair_sliceIsWeightedShareOfPeriod() {
    WeightedFairPolicy policy = weightedFair();
    policy.runnable(0, 2, 0);
    policy.runnable(1, 1, 0);
    // period * w / sum(w): 6 ms * 2/3 = 4 ms for the heavier vCPU, which has the same vruntime and a lower index.
    assertEquals(new CpuDecision.Run(0, 4 * MS), policy.pick(0));
    policy.ran(0, 4 * MS, 4 * MS);
    assertEquals(new CpuDecision.Run(1, 2 * MS), policy.pick(4 * MS));
  }

  @Test
  void weightedFair_sliceNeverShorterThanMinGranularity() {
    WeightedFairPolicy policy = weightedFair();
    for (int v = 0; v < 10; v++) {
      policy.runnable(v, 1, 0);
    }
    // 6 ms / 10 = 0.6 ms would be below the 0.75 ms minimum granularity.
    assertEquals(MIN_GRANULARITY, run(policy.pick(0)).sliceNanos());
  }

  @Test
  void weightedFair_wakingSleeper_getsBoundedCredit() {
    WeightedFairPolicy policy = weightedFair();
    policy.runnable(0, 1, 0);
    policy.runnable(1, 1, 0);
    policy.blocked(1, 0);
    runUntil(policy, 0, 1_000 * MS, 2);
    assertEquals(1_000 * MS, policy.vruntime(0));

    policy.runnable(1, 1, 1_000 * MS);
    // Asleep for 1 s with vruntime 0, it is owed at most half a period: min vruntime (1 s) - 3 ms.
    assertEquals(1_000 * MS - PERIOD / 2, policy.vruntime(1));
    long[] ran = runUntil(policy, 1_000 * MS, 1_099 * MS, 2);
    // 99 ms = the 3 ms credit run first, then 32 alternating 3 ms slices: the sleeper is ahead by exactly its
    // credit (51 ms against 48 ms), not by the 1 s it slept.
    assertEquals(PERIOD / 2, ran[1] - ran[0]);
    assertEquals(List.of(), policy.checkInvariants());
  }

  @Test
  void weightedFair_shortSleeper_keepsItsOwnVruntime() {
    WeightedFairPolicy policy = weightedFair();
    policy.runnable(0, 1, 0);
    policy.runnable(1, 1, 0);
    runUntil(policy, 0, 12 * MS, 2);
    policy.blocked(1, 12 * MS);
    runUntil(policy, 12 * MS, 13 * MS, 2);
    long before = policy.vruntime(1);

    policy.runnable(1, 1, 13 * MS);
    // Its own vruntime (6 ms) is above min vruntime - period/2 (7 - 3 = 4 ms): it gains nothing by sleeping.
    assertEquals(6 * MS, before);
    assertEquals(before, policy.vruntime(1));
  }

  @Test
  void weightedFair_newVcpu_startsAtMinVruntime() {
    WeightedFairPolicy policy = weightedFair();
    policy.runnable(0, 1, 0);
    runUntil(policy, 0, 50 * MS, 1);
    policy.runnable(1, 1, 50 * MS);
    assertEquals(50 * MS, policy.vruntime(1), "a late joiner does not get 50 ms of catch-up");
  }

  @Test
  void weightedFair_tiesGoToTheLowestVcpuIndex() {
    WeightedFairPolicy policy = weightedFair();
    policy.runnable(3, 1, 0);
    policy.runnable(1, 1, 0);
    policy.runnable(2, 1, 0);
    assertEquals(1, run(policy.pick(0)).vcpu());
  }

  @Test
  void weightedFair_neverPicksABlockedVcpu_andIdlesWhenNoneIsRunnable() {
    WeightedFairPolicy policy = weightedFair();
    policy.runnable(0, 1, 0);
    policy.runnable(1, 1, 0);
    policy.blocked(0, 0);
    policy.blocked(0, 0);
    assertEquals(1, run(policy.pick(0)).vcpu());
    policy.blocked(1, 0);
    assertInstanceOf(CpuDecision.Idle.class, policy.pick(0));
    assertEquals(List.of(), policy.checkInvariants());
  }

  @Test
  void weightedFair_carriesDivisionRemainders_soNoNanosecondIsLost() {
    WeightedFairPolicy policy = weightedFair();
    policy.runnable(0, 3, 0);
    for (int i = 0; i < 3; i++) {
      policy.ran(0, 1, i + 1);
    }
    // Three single nanoseconds at weight 3 are one weight-1 nanosecond; truncating each would give 0.
    assertEquals(1, policy.vruntime(0));
  }

  @Test
  void weightedFair_randomEvents_keepMinVruntimeMonotonic_andInvariants() {
    WeightedFairPolicy policy = weightedFair();
    Random rnd = new Random(11);
    long now = 0;
    long lastMin = 0;
    for (int i = 0; i < 20_000; i++) {
      int vcpu = rnd.nextInt(5);
      switch (rnd.nextInt(3)) {
        case 0 -> policy.runnable(vcpu, 1 + rnd.nextInt(4), now);
        case 1 -> policy.blocked(vcpu, now);
        default -> {
          if (policy.pick(now) instanceof CpuDecision.Run r) {
            long ran = 1 + rnd.nextInt((int) r.sliceNanos());
            now += ran;
            policy.ran(r.vcpu(), ran, now);
          } else {
            now += MS;
          }
        }
      }
      assertTrue(policy.minVruntime() >= lastMin, "min vruntime decreased at event " + i);
      lastMin = policy.minVruntime();
      assertEquals(List.of(), policy.checkInvariants(), "after event " + i);
    }
  }

  @Test
  void weightedFair_rejectsNonPositiveWeights() {
    WeightedFairPolicy policy = weightedFair();
    assertThrows(IllegalArgumentException.class, () -> policy.runnable(0, 0, 0));
  }

  @Test
  void registry_unknownName_failsListingTheValidNames() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PolicyCatalog.builtIn().create(PolicyKind.CPU, "x", PolicyParams.empty()));
    assertEquals("unknown CPU policy 'x'; valid: weighted-fair", e.getMessage());
  }

  @Test
  void registry_createsWeightedFairByName() {
    CpuPolicy policy = PolicyCatalog.builtIn().create(PolicyKind.CPU, "weighted-fair",
        PolicyParams.of(Map.of("period", PERIOD, "min-granularity", MIN_GRANULARITY, "wakeup-granularity", WAKEUP)));
    assertEquals("weighted-fair", policy.name());
  }

  @Test
  void wakeup_preemptsTheRunningVcpu_onlyWhenItIsMoreThanTheGranularityAhead() {
    WeightedFairPolicy p = weightedFair();
    p.runnable(0, 1, 0);
    p.runnable(1, 1, 0);
    p.ran(0, 5_000_000, 5_000_000);
    p.blocked(1, 5_000_000);
    p.runnable(1, 1, 5_000_000);
    // vCPU 0 is 5 ms ahead of vCPU 1 (which slept at 0): more than 1 ms, so the woken one preempts
    assertTrue(p.preempts(1, 0, 5_000_000));
    assertFalse(p.preempts(0, 1, 5_000_000), "the one ahead never preempts");
    p.ran(1, 4_500_000, 9_500_000);
    // now only 0.5 ms apart: no preemption
    assertFalse(p.preempts(1, 0, 9_500_000));
  }

  @Test
  void boost_picksTheVcpuNextOnce_andItStillPaysForWhatItRuns() {
    WeightedFairPolicy p = weightedFair();
    p.runnable(0, 1, 0);
    p.runnable(1, 1, 0);
    p.ran(1, 3_000_000, 3_000_000);
    assertEquals(0, ((CpuDecision.Run) p.pick(3_000_000)).vcpu(), "0 is behind");
    p.boost(1, 3_000_000);
    assertEquals(1, ((CpuDecision.Run) p.pick(3_000_000)).vcpu(), "boosted");
    p.ran(1, 1_000_000, 4_000_000);
    assertEquals(4_000_000, p.vruntime(1));
    assertEquals(0, ((CpuDecision.Run) p.pick(4_000_000)).vcpu(), "only once");
  }

  @Test
  void yield_skipsTheYielderWhenTheNextIsWithinTheWakeupGranularity_elseItRunsAgain() {
    WeightedFairPolicy p = weightedFair();
    p.runnable(0, 1, 0);
    p.runnable(1, 1, 0);
    p.runnable(2, 1, 0);
    p.ran(1, 500_000, 500_000);
    p.ran(2, 3_000_000, 3_500_000);
    // vruntimes 0 / 0.5 ms / 3 ms: vCPU 0 is the pick; it yields, 1 is 0.5 ms behind it (<= 1 ms): 1 runs
    assertEquals(0, run(p.pick(3_500_000)).vcpu());
    p.yielded(0, 3_500_000);
    assertEquals(1, run(p.pick(3_500_000)).vcpu(), "yield_task_fair: the skip buddy is avoided");
    p.ran(1, 600_000, 4_100_000);
    // 0 (0 ms) is still the skip buddy and the leftmost; the next is 2 at 3 ms, 3 ms ahead (> 1 ms): 0 runs again
    assertEquals(0, run(p.pick(4_100_000)).vcpu(), "too unfair to skip it");
    p.ran(0, 100_000, 4_200_000);
    // picked once: no longer skipped
    assertEquals(0, run(p.pick(4_200_000)).vcpu());
    assertEquals(List.of(), p.checkInvariants());
  }

  @Test
  void yield_ofTheOnlyRunnableVcpu_changesNothing_andAWeightScalesTheGranularity() {
    WeightedFairPolicy p = weightedFair();
    p.runnable(0, 1, 0);
    p.yielded(0, 0);
    assertEquals(0, run(p.pick(0)).vcpu(), "sched_yield returns at once when nothing else is runnable");
    p.runnable(1, 1, 0);
    p.ran(1, 1_500_000, 1_500_000);
    assertEquals(0, run(p.pick(1_500_000)).vcpu(), "the earlier yield left no skip buddy behind");
    // weight 2: the granularity in its virtual time is 0.5 ms; 1 is 1.5 ms ahead of 0 -> 0 runs again
    p.runnable(0, 2, 1_500_000);
    p.yielded(0, 1_500_000);
    assertEquals(0, run(p.pick(1_500_000)).vcpu());
    assertEquals(List.of(), p.checkInvariants());
    // a vCPU that blocks is no longer the skip buddy (clear_buddies on dequeue)
    WeightedFairPolicy q = weightedFair();
    q.runnable(0, 1, 0);
    q.runnable(1, 1, 0);
    q.ran(1, 500_000, 500_000);
    q.yielded(0, 500_000);
    q.blocked(0, 500_000);
    q.runnable(0, 1, 600_000);
    assertEquals(0, run(q.pick(600_000)).vcpu());
  }
}
