package org.gpuemu.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** A reality-model program's scenes depend on the emulated time only, not on how many frames it drew. */
class VariationTest {
  private static final long MS = 1_000_000;
  private static final Variation SCENES_ONLY = new Variation(0.0, 0.5, 1.5, 20_000 * MS, 60_000 * MS);
  private static final Variation REALITY = Variation.reality(0.85, 1.15);

  @Test
  void twoRunsOfOneSeed_drawingFramesAtDifferentRates_seeTheSameScenesAtTheSameTimes() {
    Variation.Sampler fast = SCENES_ONLY.sampler(new SplittableRandom(7));
    Variation.Sampler slow = SCENES_ONLY.sampler(new SplittableRandom(7));
    fast.factor(0); // both runs' first frames at the program's start
    slow.factor(0);
    int changes = 0;
    double last = -1;
    for (long t = 0; t <= 300_000 * MS; t += 10 * MS) {
      for (long f = t; f < t + 10 * MS; f += MS) fast.factor(f); // ten frames where the slow run draws one
      double a = fast.factor(t + 10 * MS - 1);
      double b = slow.factor(t + 10 * MS - 1);
      assertEquals(a, b, 0.0, "scene at " + t / MS + " ms");
      if (a != last) changes++;
      last = a;
    }
    assertTrue(changes >= 5, "300 s of 20-60 s scenes change at least 5 times: " + changes);
  }

  @Test
  void perFrameNoiseStillDiffersFromFrameToFrame_withinTheScenesRange() {
    Variation.Sampler s = REALITY.sampler(new SplittableRandom(3));
    double first = s.factor(0);
    double second = s.factor(MS);
    assertNotEquals(first, second, "±10 % noise per frame");
    for (long t = 0; t < 200_000 * MS; t += 7 * MS) {
      double f = s.factor(t);
      assertTrue(f >= 0.85 * 0.9 && f <= 1.15 * 1.1, "factor " + f + " at " + t / MS + " ms");
    }
  }

  @Test
  void aProgramOfOneComplexity_drawsOnlyItsFramesNoiseFromItsStream() {
    Variation.Sampler s = Variation.ideal().sampler(new SplittableRandom(5));
    SplittableRandom same = new SplittableRandom(5);
    for (long t = 0; t < 100_000 * MS; t += 16 * MS) {
      assertEquals(1.0 + (same.nextDouble() * 2 - 1) * 0.02, s.factor(t), 0.0, "factor at " + t / MS + " ms");
    }
  }
}
