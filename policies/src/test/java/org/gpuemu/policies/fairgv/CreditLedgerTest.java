package org.gpuemu.policies.fairgv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CreditLedgerTest {
  private static final long MS = 1_000_000;
  private static final long PERIOD = 30 * MS;

  private final CreditLedger ledger = new CreditLedger("credit", PERIOD, 30 * MS);

  @AfterEach
  void invariantsHold() {
    assertEquals(List.of(), ledger.checkInvariants());
  }

  /** Every listed vGPU holds the GPU for no time, which makes it active (it earns) without burning anything. */
  private void activate(int... vgpus) {
    for (int v : vgpus) ledger.hold(v, 0);
    ledger.hold(-1, 0);
  }

  @Test
  void accounting_sharesEachPeriodByWeight_amongActiveVgpus_roundingUpAsXen() {
    ledger.add(0, 1);
    ledger.add(1, 2);
    ledger.add(2, 4);
    ledger.add(3, 1);
    activate(0, 1, 2); // vGPU 3 never held the GPU: it does not earn
    ledger.advance(PERIOD);
    // 30 ms x w / 7, rounded up: 4,285,714.3 -> 4,285,715; 8,571,428.6 -> 8,571,429; 17,142,857.1 -> 17,142,858
    assertEquals(4_285_715, ledger.credit(0));
    assertEquals(8_571_429, ledger.credit(1));
    assertEquals(17_142_858, ledger.credit(2));
    assertEquals(0, ledger.credit(3));
    assertFalse(ledger.active(3));
  }

  @Test
  void holder_burnsOneCreditPerNanosecond_andTurnsOverOnlyAtAccounting() {
    ledger.add(0, 1);
    ledger.add(1, 1);
    activate(1);
    ledger.hold(0, 0);
    ledger.advance(10 * MS);
    assertEquals(-10 * MS, ledger.credit(0));
    assertEquals(CreditLedger.Priority.UNDER, ledger.priority(0), "priorities change at accounting");
    ledger.advance(PERIOD);
    assertEquals(-30 * MS + 15 * MS, ledger.credit(0));
    assertEquals(CreditLedger.Priority.OVER, ledger.priority(0));
    assertEquals(15 * MS, ledger.credit(1));
    assertEquals(CreditLedger.Priority.UNDER, ledger.priority(1));
  }

  @Test
  void credits_areClampedAtMinusOneSlice_andHalvedAboveOneSlice_whenTheVgpuStopsEarning() {
    ledger.add(0, 1);
    ledger.add(1, 1);
    activate(1);
    ledger.hold(0, 0); // vGPU 0 holds the GPU from now on
    ledger.advance(2 * PERIOD);
    assertEquals(-30 * MS, ledger.credit(0), "-15 - 30 + 15");
    assertEquals(30 * MS, ledger.credit(1), "at the cap, not above it: still earning");
    assertTrue(ledger.active(1));
    ledger.advance(3 * PERIOD);
    assertEquals(-30 * MS, ledger.credit(0), "-45 clamped at minus one slice");
    assertEquals(45 * MS / 2, ledger.credit(1), "45 ms is above the cap: halved");
    assertFalse(ledger.active(1), "and it stops earning");
    ledger.advance(4 * PERIOD);
    assertEquals(-30 * MS, ledger.credit(0), "-30 - 30 + 30: the whole period goes to the only active vGPU");
    assertEquals(45 * MS / 2, ledger.credit(1));
  }

  @Test
  void holding_theGpu_makesAVgpuActiveAgain() {
    ledger.add(0, 1);
    ledger.hold(0, 0);
    assertTrue(ledger.active(0));
    ledger.hold(-1, 0);
    ledger.advance(3 * PERIOD); // 30, 60 > cap: halved to 30 and inactive
    assertFalse(ledger.active(0));
    ledger.hold(0, 3 * PERIOD);
    assertTrue(ledger.active(0));
  }

  @Test
  void setWeight_liveChange_sharesTheNextPeriodsByTheNewWeights() {
    ledger.add(0, 1);
    ledger.add(1, 1);
    activate(0, 1);
    ledger.advance(PERIOD);
    assertEquals(15 * MS, ledger.credit(0), "30 ms x 1/2");
    ledger.setWeight(1, 2);
    ledger.advance(2 * PERIOD);
    // vGPU 0: 15 + 30 x 1/3 = 25 ms; vGPU 1: 15 + 30 x 2/3 = 35 ms, above the 30 ms cap: halved, inactive (Xen)
    assertEquals(25 * MS, ledger.credit(0));
    assertEquals(35 * MS / 2, ledger.credit(1));
    assertFalse(ledger.active(1));
  }
}
