package org.gpuemu.policies.vmcg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class CreditAccountsTest {
  private final CreditAccounts accounts = new CreditAccounts();

  private static SortedMap<Integer, Long> eq2(long... credits) {
    SortedMap<Integer, Long> map = new TreeMap<>();
    for (int v = 0; v < credits.length; v++) {
      map.put(v, credits[v]);
    }
    return map;
  }

  @BeforeEach
  void threeVms() {
    for (int v = 0; v < 3; v++) {
      accounts.join(v);
    }
  }

  @AfterEach
  void creditsStayWithinTheirAllocation() {
    assertEquals(List.of(), accounts.checkInvariants());
  }

  @Test
  void aJoiningVm_hasNoCredit_untilAReplenishment() {
    assertEquals(0, accounts.remaining(0));
    assertEquals(0, accounts.reallocated(0));
    assertFalse(accounts.hasCredit(0), "status 0: waits for the first allocation");
  }

  @Test
  void allocation_paperExample_setsCredit1AndCredit2ToCreditI() {
    // §6.3: credit1[1] = 34, credit1[2] = 33, credit1[3] = 33, and §4.2: credit2[i] = credit1[i] = CREDIT_i.
    assertEquals(Set.of(0, 1, 2), accounts.reallocate(eq2(34, 33, 33)));
    assertEquals(List.of(34L, 33L, 33L), List.of(accounts.remaining(0), accounts.remaining(1), accounts.remaining(2)));
    assertEquals(List.of(34L, 33L, 33L),
        List.of(accounts.reallocated(0), accounts.reallocated(1), accounts.reallocated(2)));
  }

  @Test
  void spending_lowersCredit1Only() {
    accounts.reallocate(eq2(34, 33, 33));
    accounts.spend(0);
    accounts.spend(0);
    accounts.spend(1);
    assertEquals(32, accounts.remaining(0));
    assertEquals(34, accounts.reallocated(0), "credit2 keeps what was reallocated");
    assertEquals(32, accounts.remaining(1));
    assertEquals(33, accounts.remaining(2));
  }

  @Test
  void replenishment_reallocatesOnlyVmsWhoseCredit1IsZero() {
    accounts.reallocate(eq2(2, 33, 1));
    accounts.spend(0);
    accounts.spend(0);
    accounts.spend(2);
    accounts.spend(1);
    // The next Eq. 2 result is 40, 25, 35: VMs 0 and 2 spent everything and take it; VM 1 keeps 32 of its 33.
    assertEquals(Set.of(0, 2), accounts.reallocate(eq2(40, 25, 35)));
    assertEquals(40, accounts.remaining(0));
    assertEquals(40, accounts.reallocated(0));
    assertEquals(32, accounts.remaining(1));
    assertEquals(33, accounts.reallocated(1));
    assertEquals(35, accounts.remaining(2));
    assertTrue(accounts.hasCredit(2));
  }

  @Test
  void spendingWithoutCredit_isRefused() {
    accounts.reallocate(eq2(1, 0, 0));
    accounts.spend(0);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> accounts.spend(0));
    assertEquals("vGPU 0 dispatched without credit", e.getMessage());
    assertEquals(0, accounts.remaining(0), "a refused spend leaves credit1 at 0, never negative");
  }

  @Test
  void unknownVms_areRefused() {
    assertThrows(IllegalArgumentException.class, () -> accounts.remaining(7));
    assertThrows(IllegalArgumentException.class, () -> accounts.join(1));
    accounts.leave(1);
    assertThrows(IllegalArgumentException.class, () -> accounts.spend(1));
  }
}
