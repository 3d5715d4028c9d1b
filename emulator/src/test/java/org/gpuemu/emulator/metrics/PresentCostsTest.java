package org.gpuemu.emulator.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** What a VM's Presents cost and the agent's prediction errors (VGRIS Figures 6 and 9). */
class PresentCostsTest {
  private static final long MS = 1_000_000L;

  @Test
  void aVmWithoutPresents_hasNoFigures() {
    assertNull(new PresentCosts(2).of(1));
  }

  @Test
  void costs_areAveraged_andErrorsArePredictedLessActual_failuresBeyondTwoMs() {
    PresentCosts p = new PresentCosts(1);
    p.record(0, 3 * MS, -1); // the first Present: no history, no prediction
    p.record(0, 3 * MS, 3 * MS); // exact
    p.record(0, 5 * MS, 3 * MS); // 2 ms late: at the margin, not beyond it
    p.record(0, 90 * MS, 4 * MS); // Figure 9's kind: -86 ms, a failure
    p.record(0, 1 * MS, 4 * MS); // +3 ms, a failure the other way
    PresentFigures f = p.of(0);
    assertEquals(5, f.calls());
    assertEquals(102 * MS / 5, f.costMeanNanos());
    assertEquals(90 * MS, f.costMaxNanos());
    assertEquals(4, f.predicted());
    assertEquals(-86 * MS, f.errorMinNanos());
    assertEquals(3 * MS, f.errorMaxNanos());
    assertEquals((0 + 2 + 86 + 3) * MS / 4, f.errorMeanAbsNanos());
    assertEquals(2, f.failures());
  }
}
