package org.gpuemu.emulator.reproduce;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;
import org.gpuemu.emulator.config.Expectations;
import org.gpuemu.emulator.config.Expectations.Bound;
import org.gpuemu.emulator.config.Expectations.Direction;
import org.gpuemu.emulator.config.Expectations.OrderingOnly;
import org.gpuemu.emulator.config.Expectations.Value;
import org.junit.jupiter.api.Test;

/** The verdict of a row from its seeds' values: pure. */
class JudgeTest {
  private static final Value MMR = new Value(0.99, 0.99, 0.03, Double.NaN);

  private static ClaimVerdict verdict(Expectations.Target t, Direction d, boolean ratio, List<Double> v, List<Double> b,
      boolean faithful) {
    return Judge.judge(t, d, ratio, v, b, faithful).verdict();
  }

  @Test
  void withinTolerance_isReproduced_atItsEdgeToo() {
    assertEquals(ClaimVerdict.REPRODUCED, verdict(MMR, null, false, List.of(0.97), List.of(), true));
    assertEquals(ClaimVerdict.REPRODUCED, verdict(MMR, null, false, List.of(0.96), List.of(), true)); // 0.99 - 0.03
  }

  @Test
  void outsideTolerance_withoutAnOrdering_contradicts() {
    assertEquals(ClaimVerdict.CONTRADICTS, verdict(MMR, null, false, List.of(0.95), List.of(), true));
  }

  @Test
  void outsideTolerance_butOrderedAsThePaper_isSameDirection() {
    Direction aboveCredit = new Direction(true, "credit-poll");
    assertEquals(ClaimVerdict.SAME_DIRECTION, verdict(MMR, aboveCredit, false, List.of(0.9), List.of(0.5), true));
    assertEquals(ClaimVerdict.CONTRADICTS, verdict(MMR, aboveCredit, false, List.of(0.9), List.of(0.95), true));
  }

  @Test
  void aRatio_onThePapersSideOfOne_isSameDirection() {
    Value gain = new Value(1.14, 1.14, 0.05, Double.NaN); // COMBO +14 % over PilotFish
    assertEquals(ClaimVerdict.SAME_DIRECTION, verdict(gain, null, true, List.of(1.5), List.of(), true));
    assertEquals(ClaimVerdict.CONTRADICTS, verdict(gain, null, true, List.of(0.9), List.of(), true));
    assertEquals(ClaimVerdict.REPRODUCED, verdict(gain, null, true, List.of(1.1), List.of(), true));
  }

  @Test
  void aRange_isReproducedAnywhereInsideItPlusTolerance() {
    Value range = new Value(81, 122, 5, Double.NaN);
    assertEquals(ClaimVerdict.REPRODUCED, verdict(range, null, false, List.of(126.0), List.of(), true));
    assertEquals(ClaimVerdict.CONTRADICTS, verdict(range, null, false, List.of(75.0), List.of(), true));
  }

  @Test
  void boundsAndOrderings() {
    assertEquals(ClaimVerdict.REPRODUCED, verdict(new Bound(0.9, true), null, false, List.of(0.9), List.of(), true));
    assertEquals(ClaimVerdict.CONTRADICTS, verdict(new Bound(1.02, false), null, false, List.of(1.03), List.of(), true));
    Direction below = new Direction(false, "gvirt");
    assertEquals(ClaimVerdict.REPRODUCED, verdict(OrderingOnly.INSTANCE, below, false, List.of(0.1), List.of(0.5), true));
    assertEquals(ClaimVerdict.CONTRADICTS, verdict(OrderingOnly.INSTANCE, below, false, List.of(0.5), List.of(0.5), true));
  }

  @Test
  void anUnfaithfulRun_isNeverReproduced_butAContradictionStays() {
    Judge.Judged j = Judge.judge(MMR, null, false, List.of(0.99), List.of(), false);
    assertEquals(ClaimVerdict.UNFAITHFUL, j.verdict());
    assertEquals("would be reproduced; a run it reads is unfaithful", j.note());
    assertEquals(ClaimVerdict.UNFAITHFUL, verdict(MMR, new Direction(true, "x"), false, List.of(0.5), List.of(0.1), false));
    assertEquals(ClaimVerdict.CONTRADICTS, verdict(MMR, null, false, List.of(0.5), List.of(), false));
  }

  @Test
  void theMedianOfTheSeedsDecides_andTheRangeIsReported() {
    // one seed far off does not move the median: 0.97 is within 0.99 +- 0.03
    Judge.Judged j = Judge.judge(MMR, null, false, List.of(0.97, 0.5, 0.98), List.of(), true);
    assertEquals(ClaimVerdict.REPRODUCED, j.verdict());
    assertEquals(0.97, j.median());
    assertEquals(0.5, j.min());
    assertEquals(0.98, j.max());
    assertEquals(0.75, Judge.median(List.of(0.5, 1.0)));
  }

  @Test
  void aMissingValue_isNotRun() {
    assertEquals(ClaimVerdict.NOT_RUN, verdict(MMR, null, false, Arrays.asList(0.99, null), List.of(), true));
    assertEquals(ClaimVerdict.NOT_RUN, verdict(MMR, null, false, List.of(), List.of(), true));
  }

  @Test
  void aCalibrationInput_isNeverReproduced_itsNoteSaysWhetherTheRunMatchesIt() {
    Judge.Judged matches = Judge.input(MMR, List.of(0.98), true);
    assertEquals(ClaimVerdict.INPUT, matches.verdict());
    assertEquals("calibration input: the run matches it", matches.note());
    Judge.Judged misses = Judge.input(new Bound(0.0516, false), List.of(0.2), true);
    assertEquals(ClaimVerdict.INPUT, misses.verdict());
    assertEquals("calibration input: the run misses it", misses.note());
    assertEquals(ClaimVerdict.NOT_RUN, Judge.input(MMR, Arrays.asList(0.9, null), true).verdict());
  }
  private static final Expectations.Basis JUDGED = Expectations.Basis.JUDGED;

  @Test
  void quick_judgesNothing_butReportsTheValue() {
    Judge.Judged j = Judge.judge(new Judge.Claim(MMR, null, false, JUDGED), List.of(0.99), List.of(), true, true);
    assertEquals(ClaimVerdict.NOT_JUDGED, j.verdict());
    assertEquals(0.99, j.median());
    // a missing value is still "not run"
    assertEquals(ClaimVerdict.NOT_RUN, Judge.judge(new Judge.Claim(MMR, null, false, JUDGED),
        Arrays.asList((Double) null), List.of(), true, true).verdict());
  }

  @Test
  void aRowThatRestsOnAConstantOrAnInput_isNeverReproduced_andSaysWhetherTheRunMatches() {
    for (Expectations.Kind kind : List.of(Expectations.Kind.CALIBRATED, Expectations.Kind.BY_CONSTRUCTION,
        Expectations.Kind.INPUT_DIFFERS)) {
      Expectations.Basis basis = new Expectations.Basis(kind, "K", null, null);
      Judge.Judged hit = Judge.judge(new Judge.Claim(MMR, null, false, basis), List.of(0.99, 0.99, 0.99), List.of(), true,
          false);
      assertEquals(kind.label(), hit.verdict().label());
      assertEquals("the run matches the paper's number", hit.note());
      Judge.Judged miss = Judge.judge(new Judge.Claim(MMR, null, false, basis), List.of(0.5, 0.5, 0.5), List.of(), true,
          false);
      assertEquals(kind.label(), miss.verdict().label());
      assertEquals("the run misses the paper's number", miss.note());
    }
  }

  @Test
  void seedsThatDisagree_makeTheRowUnstable_withEachSeedsVerdict() {
    // the median (0.97) is within 0.99 +- 0.03, one seed is not: unstable, not reproduced
    Judge.Judged j = Judge.judge(new Judge.Claim(MMR, null, false, JUDGED), List.of(0.97, 0.5, 0.98), List.of(), true,
        false);
    assertEquals(ClaimVerdict.UNSTABLE, j.verdict());
    assertEquals("seeds: reproduced, contradicts, reproduced; the median's verdict: reproduced", j.note());
    assertEquals(0.5, j.min());
    // an ordering is judged seed by seed against the same seed's baseline
    Direction below = new Direction(false, "gvirt");
    Judge.Claim ordering = new Judge.Claim(OrderingOnly.INSTANCE, below, false, JUDGED);
    Judge.Judged o = Judge.judge(ordering, List.of(0.1, 0.3, 0.1), List.of(0.2, 0.2, 0.2), true, false);
    assertEquals(ClaimVerdict.UNSTABLE, o.verdict());
    assertEquals(ClaimVerdict.REPRODUCED, Judge.judge(ordering, List.of(0.1, 0.15, 0.1), List.of(0.2, 0.2, 0.2),
        true, false).verdict());
  }

  @Test
  void aBoundWithTheToleranceOfThePapersSpread_holdsWithinIt() {
    Bound prose = new Bound(1.0, false, 0.013); // "(<= 1)" against a mean known to 1.3 %
    assertEquals(ClaimVerdict.REPRODUCED, verdict(prose, null, false, List.of(1.003), List.of(), true));
    assertEquals(ClaimVerdict.CONTRADICTS, verdict(prose, null, false, List.of(1.02), List.of(), true));
  }
}
