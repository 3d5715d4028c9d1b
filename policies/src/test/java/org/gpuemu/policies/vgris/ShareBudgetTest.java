package org.gpuemu.policies.vgris;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ShareBudgetTest {
  private static final long MS = 1_000_000;
  private static final long US = 1_000;

  private final ShareBudget budget = new ShareBudget(MS);

  private static SortedMap<Integer, Double> shares(double... shares) {
    SortedMap<Integer, Double> map = new TreeMap<>();
    for (int v = 0; v < shares.length; v++) {
      map.put(v, shares[v]);
    }
    return map;
  }

  @AfterEach
  void noBudgetAboveItsCap() {
    assertEquals(List.of(), budget.checkInvariants());
  }

  @Test
  void eq1_postponesAVmInDebt_untilTheReplenishmentThatLiftsItAboveZero() {
    budget.setShares(shares(0.3));
    assertEquals(300 * US, budget.budget(0, 0), "a VM starts with t·s = 0.3 ms");

    budget.charge(0, 2 * MS, 500 * US);
    assertEquals(-1_700 * US, budget.budget(0, 500 * US));
    // +0.3 ms per period: -1.4, -1.1, -0.8, -0.5, -0.2 ms at 1..5 ms, +0.1 ms at 6 ms.
    assertEquals(6 * MS, budget.presentAllowedAt(0, 500 * US));
    assertEquals(-200 * US, budget.budget(0, 5 * MS));
    assertEquals(6 * MS, budget.presentAllowedAt(0, 5 * MS));
    assertEquals(6 * MS, budget.presentAllowedAt(0, 6 * MS - 1));
    assertEquals(6 * MS, budget.presentAllowedAt(0, 6 * MS), "at 6 ms the budget is positive: present now");
    assertEquals(100 * US, budget.budget(0, 6 * MS));
    assertEquals(300 * US, budget.budget(0, 7 * MS), "min(0.3, 0.1 + 0.3): capped at t·s");
  }

  @Test
  void eq1_aBudgetOfExactlyZeroIsNotEnough() {
    budget.setShares(shares(0.3));
    budget.charge(0, 300 * US, 500 * US);
    assertEquals(MS, budget.presentAllowedAt(0, 500 * US));

    budget.charge(0, 900 * US, MS + 500 * US);
    // 0.3 - 0.9 = -0.6 ms at 1.5 ms: exactly 0 at 3 ms, so 4 ms.
    assertEquals(4 * MS, budget.presentAllowedAt(0, MS + 500 * US));
  }

  @Test
  void eq1_replenishesOnlyForWholePeriods() {
    budget.setShares(shares(0.3));
    budget.charge(0, 500 * US, 200 * US);
    assertEquals(-200 * US, budget.budget(0, MS - 1));
    assertEquals(100 * US, budget.budget(0, MS));
  }

  @Test
  void eq1_doesNotBankIdleTime() {
    budget.setShares(shares(0.3));
    // Idle for ten periods, then 1 ms of GPU time: only t·s = 0.3 ms was left, not 3 ms.
    budget.charge(0, MS, 10 * MS + 200 * US);
    assertEquals(-700 * US, budget.budget(0, 10 * MS + 200 * US));
    assertEquals(13 * MS, budget.presentAllowedAt(0, 10 * MS + 200 * US));
  }

  @Test
  void eq1_catchingUpManyPeriodsAtOnce_equalsReplenishingEveryPeriod() {
    ShareBudget stepwise = new ShareBudget(MS);
    for (ShareBudget b : List.of(budget, stepwise)) {
      b.setShares(shares(0.3, 0.25));
      b.charge(0, 2 * MS, 500 * US);
      b.charge(1, 100 * US, 500 * US);
    }
    for (long t = MS; t <= 5 * MS; t += MS) {
      stepwise.advance(t);
    }
    assertEquals(stepwise.budget(0, 5 * MS), budget.budget(0, 5 * MS));
    assertEquals(stepwise.budget(1, 5 * MS), budget.budget(1, 5 * MS));
    assertEquals(-200 * US, budget.budget(0, 5 * MS));
    assertEquals(250 * US, budget.budget(1, 5 * MS));
  }

  @Test
  void eq1_eachVmHasItsOwnBudget() {
    budget.setShares(shares(0.3, 0.5));
    budget.charge(0, 2 * MS, 500 * US);
    assertEquals(500 * US, budget.presentAllowedAt(1, 500 * US), "VM 1 paid nothing");
    assertEquals(500 * US, budget.budget(1, 500 * US));
  }

  @Test
  void newShares_keepDebts_capFullBudgets_addNewVmsFull_andDropAbsentOnes() {
    budget.setShares(shares(0.3, 0.6));
    budget.charge(0, 2 * MS, 500 * US);

    SortedMap<Integer, Double> next = new TreeMap<>();
    next.put(0, 0.5);
    next.put(1, 0.2);
    next.put(2, 0.3);
    budget.setShares(next);

    assertEquals(-1_700 * US, budget.budget(0, 500 * US), "a debt survives a share change");
    assertEquals(200 * US, budget.budget(1, 500 * US), "0.6 ms full budget capped at the new 0.2 ms");
    assertEquals(300 * US, budget.budget(2, 500 * US), "a newcomer starts full");
    // VM 0 now earns 0.5 ms a period: -1.2, -0.7, -0.2, +0.3 at 1..4 ms.
    assertEquals(4 * MS, budget.presentAllowedAt(0, 500 * US));

    budget.setShares(shares(0.5));
    assertThrows(IllegalArgumentException.class, () -> budget.budget(1, MS));
  }

  @Test
  void refill_isPeriodTimesShare_roundedToTheNearestNanosecond() {
    budget.setShares(shares(1.0 / 3, 2.0 / 3));
    assertEquals(333_333, budget.budget(0, 0), "333,333.33 rounds down");
    assertEquals(666_667, budget.budget(1, 0), "666,666.67 rounds up");
  }

  @Test
  void shares_mustBeBetweenZeroAndOne_eachOfThem() {
    assertThrows(IllegalArgumentException.class, () -> budget.setShares(shares(0.0)));
    assertThrows(IllegalArgumentException.class, () -> budget.setShares(shares(0.5, 1.2)));
    budget.setShares(shares(0.7, 0.3));
  }

  @Test
  void fullSharesForEveryVm_neverPostponeAVmThatUsedLessThanThePeriod() {
    // hybrid scheduling's start (vgris.txt §4.3): every VM's share is 1, so its budget is the whole period
    budget.setShares(shares(1.0, 1.0, 1.0));
    budget.charge(0, 600_000, 0);
    budget.charge(1, 300_000, 0);
    assertEquals(0, budget.presentAllowedAt(0, 0));
    assertEquals(0, budget.presentAllowedAt(1, 0));
    assertEquals(1_000_000, budget.budget(2, 0));
  }
}
