package org.gpuemu.policies.combo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.gpuemu.workloads.KernelType;
import org.junit.jupiter.api.Test;

class BeThroughputTest {
  @Test
  void eq6_isTheRatioOfTcPlusCdDurations() {
    // COMBO: TC 60 ms + CD 54 ms; PilotFish: TC 50 ms + CD 50 ms; Eq. 6 = 114 / 100 = 1.14, a 14 % improvement
    BeThroughput combo = new BeThroughput();
    combo.completed(KernelType.TC, 40_000_000);
    combo.completed(KernelType.TC, 20_000_000);
    combo.completed(KernelType.CD, 54_000_000);
    BeThroughput pilotfish = new BeThroughput();
    pilotfish.completed(KernelType.TC, 50_000_000);
    pilotfish.completed(KernelType.CD, 50_000_000);
    assertEquals(60_000_000, combo.nanos(KernelType.TC));
    assertEquals(54_000_000, combo.nanos(KernelType.CD));
    assertEquals(0, combo.nanos(KernelType.RT));
    assertEquals(114_000_000, combo.total());
    assertEquals(1.14, combo.improvementOver(pilotfish), 1e-12);
  }

  @Test
  void eq6_needsABaselineThatDidSomething() {
    assertThrows(IllegalArgumentException.class, () -> new BeThroughput().improvementOver(new BeThroughput()));
    assertThrows(IllegalArgumentException.class, () -> new BeThroughput().completed(KernelType.CD, -1));
  }
}
