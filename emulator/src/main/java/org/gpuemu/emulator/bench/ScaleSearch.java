package org.gpuemu.emulator.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.IntPredicate;

/**
 * The largest count for which a test passes, assuming it passes up to some count and fails beyond: doubling from a
 * start until the first failure (halving when the start already fails), then bisection between the last pass and
 * the first failure. Bounded by a step count and by a time check before every test, since each test is a run.
 */
final class ScaleSearch {
  private ScaleSearch() {}

  /**
   * One tested count.
   *
   * @param count what was tested
   * @param passed whether it passed
   */
  record Step(int count, boolean passed) {}

  /**
   * The search's outcome.
   *
   * @param largestPass the largest count that passed; 0 when none did
   * @param smallestFail the smallest count that failed; -1 when none did (the maximum passed, or time ran out)
   * @param steps every test in the order run
   */
  record Result(int largestPass, int smallestFail, List<Step> steps) {
    Result {
      steps = List.copyOf(steps);
    }
  }

  /**
   * Searches [1, {@code max}].
   *
   * @param start first count tested
   * @param max largest count tested
   * @param refineSteps bisection steps at most
   * @param test the (expensive) test
   * @param timeLeft checked before every test; false stops the search with what it has
   */
  static Result search(int start, int max, int refineSteps, IntPredicate test, BooleanSupplier timeLeft) {
    if (start < 1 || max < start || refineSteps < 0) {
      throw new IllegalArgumentException("need 1 <= start <= max and refineSteps >= 0: start=" + start + " max="
          + max + " refineSteps=" + refineSteps);
    }
    List<Step> steps = new ArrayList<>();
    int pass = 0;
    int fail = -1;
    int n = start;
    while (timeLeft.getAsBoolean()) {
      boolean ok = test.test(n);
      steps.add(new Step(n, ok));
      if (!ok) {
        fail = n;
        break;
      }
      pass = n;
      if (n >= max) break;
      n = (int) Math.min(max, 2L * n);
    }
    if (pass == 0 && fail == start) {
      // The start already failed: look below it.
      for (n = start / 2; n >= 1 && timeLeft.getAsBoolean(); n /= 2) {
        boolean ok = test.test(n);
        steps.add(new Step(n, ok));
        if (ok) {
          pass = n;
          break;
        }
        fail = n;
      }
    }
    for (int i = 0; i < refineSteps && fail > 0 && fail - pass > Math.max(1, pass / 16)
        && timeLeft.getAsBoolean(); i++) {
      int mid = pass + (fail - pass) / 2;
      boolean ok = test.test(mid);
      steps.add(new Step(mid, ok));
      if (ok) {
        pass = mid;
      } else {
        fail = mid;
      }
    }
    return new Result(pass, fail, steps);
  }
}
