package org.gpuemu.emulator.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

/** The search over VM counts, with a stand-in for the runs. */
class ScaleSearchTest {

  private static List<Integer> counts(ScaleSearch.Result r) {
    return r.steps().stream().map(ScaleSearch.Step::count).toList();
  }

  @Test
  void doubles_untilTheFirstFailure_thenBisects() {
    IntPredicate upTo300 = n -> n <= 300;
    ScaleSearch.Result r = ScaleSearch.search(16, 4_096, 2, upTo300, () -> true);
    // 16..256 pass, 512 fails; then 384 fails, 320 fails.
    assertEquals(List.of(16, 32, 64, 128, 256, 512, 384, 320), counts(r));
    assertEquals(256, r.largestPass());
    assertEquals(320, r.smallestFail());
  }

  @Test
  void bisection_stopsOnceTheBracketIsTight() {
    // 64 passes, 65 fails: the bracket 64..128 narrows to within 64/16 = 4.
    ScaleSearch.Result r = ScaleSearch.search(64, 4_096, 10, n -> n <= 64, () -> true);
    assertEquals(64, r.largestPass());
    assertEquals(List.of(64, 128, 96, 80, 72, 68), counts(r));
  }

  @Test
  void failingStart_halvesDownward() {
    ScaleSearch.Result r = ScaleSearch.search(16, 4_096, 0, n -> n <= 3, () -> true);
    assertEquals(List.of(16, 8, 4, 2), counts(r));
    assertEquals(2, r.largestPass());
    assertEquals(4, r.smallestFail());
  }

  @Test
  void nothingPasses_givesZero() {
    ScaleSearch.Result r = ScaleSearch.search(4, 64, 3, n -> false, () -> true);
    assertEquals(List.of(4, 2, 1), counts(r));
    assertEquals(0, r.largestPass());
    assertEquals(1, r.smallestFail());
  }

  @Test
  void everythingPasses_stopsAtTheMaximum_withNoFailure() {
    ScaleSearch.Result r = ScaleSearch.search(100, 1_000, 3, n -> true, () -> true);
    assertEquals(List.of(100, 200, 400, 800, 1_000), counts(r));
    assertEquals(1_000, r.largestPass());
    assertEquals(-1, r.smallestFail());
  }

  @Test
  void outOfTime_stopsWithWhatItHas() {
    int[] budget = {3};
    ScaleSearch.Result r = ScaleSearch.search(1, 1_000, 5, n -> true, () -> budget[0]-- > 0);
    assertEquals(List.of(1, 2, 4), counts(r));
    assertEquals(4, r.largestPass());
    assertEquals(-1, r.smallestFail());
  }

  @Test
  void badBounds_areRejected() {
    assertThrows(IllegalArgumentException.class, () -> ScaleSearch.search(0, 10, 1, n -> true, () -> true));
    assertThrows(IllegalArgumentException.class, () -> ScaleSearch.search(20, 10, 1, n -> true, () -> true));
  }
}
