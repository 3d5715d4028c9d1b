package org.gpuemu.policies.vmcg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.gpuemu.policies.vmcg.CreditModel.Demand;
import org.junit.jupiter.api.Test;

class CreditModelTest {
  private static SortedMap<Integer, Demand> demands(Demand... demands) {
    SortedMap<Integer, Demand> map = new TreeMap<>();
    for (int v = 0; v < demands.length; v++) {
      map.put(v, demands[v]);
    }
    return map;
  }

  @Test
  void eq2_paperExample_crbSharesOf34_33_33_give34_33_33Credits() {
    // §6.3: one teapot VM holds 34 % of the pending CRBs, two gears VMs 33 % each; CREDIT = 100. Eq. 2 gives
    // (e^0 + 34)/(e + 100) × 100 = 34.07 and (e^0 + 33)/(e + 100) × 100 = 33.10.
    assertEquals(Map.of(0, 34L, 1, 33L, 2, 33L),
        CreditModel.credits(demands(new Demand(0, 0, 34), new Demand(0, 0, 33), new Demand(0, 0, 33)), 100));
  }

  @Test
  void eq2_paperExample_holdsWithEqualBandwidthAndMemory() {
    // §4.2 treats BW_i and MSIZE_i as constants; with the same for all three VMs (a fifth of the bus, a third of
    // the memory) e^(0.2/3) = 1.069 adds the same to each: 34.14 and 33.17, still 34, 33, 33.
    Demand d34 = new Demand(0.2, 1.0 / 3, 34);
    Demand d33 = new Demand(0.2, 1.0 / 3, 33);
    assertEquals(Map.of(0, 34L, 1, 33L, 2, 33L), CreditModel.credits(demands(d34, d33, d33), 100));
  }

  @Test
  void eq2_prioritiesScaleTheParts_4_2_1_byPriorityOverTheMean() {
    // Figure 17's priorities 4:2:1 with equal demands: each part (e^0 + 10)/(e + 30) = 0.3362 times 12/7, 6/7 and
    // 3/7 of CREDIT: 57.63, 28.82 and 14.41.
    assertEquals(Map.of(0, 58L, 1, 29L, 2, 14L), CreditModel.credits(demands(new Demand(0, 0, 10, 4),
        new Demand(0, 0, 10, 2), new Demand(0, 0, 10, 1)), 100));
    // Equal priorities of any size leave Eq. 2 as printed (the 34/33/33 example).
    assertEquals(Map.of(0, 34L, 1, 33L, 2, 33L), CreditModel.credits(demands(new Demand(0, 0, 34, 3),
        new Demand(0, 0, 33, 3), new Demand(0, 0, 33, 3)), 100));
    assertThrows(IllegalArgumentException.class, () -> new Demand(0, 0, 1, 0));
  }

  @Test
  void eq2_aVmHoldingTheWholeBusAllMemoryAndEveryCrb_getsAllTheCredits() {
    // With shares BW = MSIZE = 1, the numerator e^(1·1) + NUM equals the denominator: CREDIT and TIME exactly.
    SortedMap<Integer, Demand> alone = demands(new Demand(1, 1, 10));
    assertEquals(Map.of(0, 100L), CreditModel.credits(alone, 100));
    assertEquals(Map.of(0, 48_000_000L), CreditModel.times(alone, 48_000_000));
  }

  @Test
  void eq2_busAndMemoryWeighExponentially() {
    // Same 10 CRBs pending; BW·MSIZE = 0.5 weighs e^0.5 = 1.65 against e^0 = 1: 51.27 and 48.42 of 100.
    assertEquals(Map.of(0, 51L, 1, 48L),
        CreditModel.credits(demands(new Demand(1, 0.5, 10), new Demand(0, 0, 10)), 100));
  }

  @Test
  void eq2_aVmWithCrbsPendingGetsAtLeastOneCredit_oneWithoutMayGetNone() {
    // Among 1000 pending CRBs: 1 pending gives 2/(e + 1001) × 100 = 0.2, raised to 1; none gives 0.1, rounded to 0;
    // 999 pending give 1000/(e + 1000) × 100 = 99.7, rounded to 100.
    assertEquals(Map.of(0, 1L, 1, 0L, 2, 100L),
        CreditModel.credits(demands(new Demand(0, 0, 1), new Demand(0, 0, 0), new Demand(0, 0, 999)), 100));
  }

  @Test
  void eq1_timeEntitlements_useTheSamePartsAsTheCredits() {
    // TIME = 48 ms (three 16 ms slices): 35/(e + 100) × 48 ms = 16.355414 ms, 34/(e + 100) × 48 ms = 15.888116 ms.
    SortedMap<Integer, Long> times = CreditModel.times(
        demands(new Demand(0, 0, 34), new Demand(0, 0, 33), new Demand(0, 0, 33)), 48_000_000);
    assertEquals(Map.of(0, 16_355_414L, 1, 15_888_116L, 2, 15_888_116L), times);
  }

  @Test
  void eq2_partsAreNotRescaled_soSeveralIdleVmsCanSumAboveCredit() {
    // Three VMs with nothing pending weigh e^0 = 1 each against e: 3/e = 1.10 of CREDIT in all (36.8 each).
    SortedMap<Integer, Double> parts =
        CreditModel.parts(demands(new Demand(0, 0, 0), new Demand(0, 0, 0), new Demand(0, 0, 0)));
    assertEquals(3 / Math.E, parts.values().stream().mapToDouble(Double::doubleValue).sum(), 1e-12);
  }

  @Test
  void demand_sharesOutsideZeroToOne_areRejected() {
    assertEquals("PCI-E bandwidth share must be in [0, 1], got 1.5",
        assertThrows(IllegalArgumentException.class, () -> new Demand(1.5, 0, 0)).getMessage());
    assertEquals("graphics memory share must be in [0, 1], got NaN",
        assertThrows(IllegalArgumentException.class, () -> new Demand(0, Double.NaN, 0)).getMessage());
    assertThrows(IllegalArgumentException.class, () -> new Demand(0, 0, -1));
  }
}
