package org.gpuemu.policies.vgris;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class PresentCostPredictorTest {
  private static final long MS = 1_000_000;

  @Test
  void predictor_predictsZero_beforeAnyPresent() {
    assertEquals(0, new PresentCostPredictor(PresentCostPredictor.PAPER_WINDOW).predictNanos());
  }

  @Test
  void predictor_averagesWhatItHas_beforeTheWindowFills() {
    PresentCostPredictor predictor = new PresentCostPredictor(20);
    predictor.record(2 * MS);
    predictor.record(4 * MS);
    predictor.record(9 * MS);
    assertEquals(5 * MS, predictor.predictNanos());
  }

  @Test
  void predictor_averagesOnlyThePastTwentyPresents() {
    PresentCostPredictor predictor = new PresentCostPredictor(PresentCostPredictor.PAPER_WINDOW);
    for (long cost = 1; cost <= 25; cost++) {
      predictor.record(cost * MS);
    }
    // The last twenty are 6..25 ms, mean 15.5 ms; all twenty-five would give 13 ms, the last nineteen 16 ms.
    assertEquals(15_500_000, predictor.predictNanos());
  }

  @Test
  void predictor_windowIsConfigurable() {
    PresentCostPredictor predictor = new PresentCostPredictor(3);
    for (long cost : new long[] {100, 1, 2, 6}) {
      predictor.record(cost * MS);
    }
    assertEquals(3 * MS, predictor.predictNanos(), "100 ms has left a window of three");
  }

  @Test
  void predictor_roundsTheMeanDownToAWholeNanosecond() {
    PresentCostPredictor predictor = new PresentCostPredictor(20);
    predictor.record(1);
    predictor.record(2);
    assertEquals(1, predictor.predictNanos());
  }

  @Test
  void predictor_rejectsAnEmptyWindowAndNegativeCosts() {
    assertThrows(IllegalArgumentException.class, () -> new PresentCostPredictor(0));
    assertThrows(IllegalArgumentException.class, () -> new PresentCostPredictor(20).record(-1));
  }
}
