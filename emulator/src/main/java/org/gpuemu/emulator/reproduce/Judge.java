package org.gpuemu.emulator.reproduce;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.gpuemu.emulator.config.Expectations;

/**
 * The verdict of one row, from the row's value in each seed's run: pure, no I/O. The median of the seeds decides
 * (a per-VM outcome can differ between seeds as it does between testbed runs); the range is reported beside it.
 */
public final class Judge {
  private Judge() {}

  /**
   * A judged row.
   *
   * @param median the median of the seeds' values (null when a value is missing)
   * @param min the smallest seed's value
   * @param max the largest
   */
  public record Judged(Double median, Double min, Double max, ClaimVerdict verdict, String note) {}

  /**
   * Judges a row.
   *
   * @param values the row's value in each seed's run (the ratio when the row has {@code over}); a null entry is a
   *               missing value
   * @param baseline for a row with {@code greater-than}/{@code less-than}, the compared policy's value in each seed
   * @param ratio whether the value is a ratio of two runs: then 1 is the neutral point for "same direction"
   * @param faithful whether every run the row reads was faithful
   */
  public static Judged judge(Expectations.Target target, Expectations.Direction direction, boolean ratio,
      List<Double> values, List<Double> baseline, boolean faithful) {
    if (values.isEmpty() || values.stream().anyMatch(Objects::isNull)) {
      return new Judged(null, null, null, ClaimVerdict.NOT_RUN, "no value in a run's summary");
    }
    if (direction != null && (baseline.isEmpty() || baseline.stream().anyMatch(Objects::isNull))) {
      return new Judged(null, null, null, ClaimVerdict.NOT_RUN, "no value for " + direction.against());
    }
    double median = median(values);
    double min = Collections.min(values);
    double max = Collections.max(values);
    Boolean ordered = direction == null ? null
        : direction.greater() ? median > median(baseline) : median < median(baseline);
    ClaimVerdict verdict;
    if (target instanceof Expectations.Value v) {
      double mid = (v.low() + v.high()) / 2;
      boolean same = ordered != null ? ordered : ratio && mid != 1 && (median - 1) * (mid - 1) > 0;
      verdict = median >= v.low() - v.tolerance() && median <= v.high() + v.tolerance() ? ClaimVerdict.REPRODUCED
          : same ? ClaimVerdict.SAME_DIRECTION : ClaimVerdict.CONTRADICTS;
    } else if (target instanceof Expectations.Bound b) {
      boolean holds = b.holds(median);
      verdict = holds ? ClaimVerdict.REPRODUCED : Boolean.TRUE.equals(ordered) ? ClaimVerdict.SAME_DIRECTION
          : ClaimVerdict.CONTRADICTS;
    } else {
      verdict = Boolean.TRUE.equals(ordered) ? ClaimVerdict.REPRODUCED : ClaimVerdict.CONTRADICTS;
    }
    String note = "";
    if (!faithful && (verdict == ClaimVerdict.REPRODUCED || verdict == ClaimVerdict.SAME_DIRECTION)) {
      note = "would be " + verdict.label() + "; a run it reads is unfaithful";
      verdict = ClaimVerdict.UNFAITHFUL;
    }
    return new Judged(median, min, max, verdict, note);
  }

  /**
   * A calibration row: the verdict is {@link ClaimVerdict#INPUT} whatever the value, and the note says whether the run
   * matches the input it was built from (the value within the paper's tolerance, or the bound holding).
   */
  public static Judged input(Expectations.Target target, List<Double> values, boolean faithful) {
    if (values.isEmpty() || values.stream().anyMatch(Objects::isNull)) {
      return new Judged(null, null, null, ClaimVerdict.NOT_RUN, "no value in a run's summary");
    }
    double median = median(values);
    boolean matches = target instanceof Expectations.Value v
        ? median >= v.low() - v.tolerance() && median <= v.high() + v.tolerance()
        : target instanceof Expectations.Bound b && b.holds(median);
    String note = (matches ? "calibration input: the run matches it" : "calibration input: the run misses it")
        + (faithful ? "" : "; a run it reads is unfaithful");
    return new Judged(median, Collections.min(values), Collections.max(values), ClaimVerdict.INPUT, note);
  }

  /**
   * What a row claims, as the judge reads it: the paper's number or bound ({@code target}), the policy it is compared
   * with ({@code direction}, null: none), whether its value is a ratio of two runs, and what it rests on.
   */
  public record Claim(Expectations.Target target, Expectations.Direction direction, boolean ratio,
      Expectations.Basis basis) {
    /** The claim of {@code row}. */
    static Claim of(Expectations.Row row) {
      return new Claim(row.target(), row.direction(), row.over() != null, row.basis());
    }
  }

  /**
   * A measured row's verdict, as {@code reproduce} gives it: for a row that rests on a constant or an input (its
   * basis) that basis's verdict, with whether the run matches the paper's number (not compared under --quick);
   * under {@code --quick} any other row is {@link ClaimVerdict#NOT_JUDGED}; else the median's verdict ({@link #judge}), {@link ClaimVerdict#UNSTABLE} when the seeds' own
   * verdicts differ (each seed judged against the same seed's baseline).
   */
  public static Judged judge(Claim claim, List<Double> values, List<Double> baseline, boolean faithful,
      boolean quick) {
    Expectations.Target target = claim.target();
    Expectations.Direction direction = claim.direction();
    boolean ratio = claim.ratio();
    Expectations.Basis basis = claim.basis();
    Judged median = judge(target, direction, ratio, values, baseline, faithful);
    if (median.verdict() == ClaimVerdict.NOT_RUN) return median;
    if (basis.kind() != Expectations.Kind.JUDGED) {
      // declared, not judged: the class stands under --quick too, which only does not compare
      ClaimVerdict v = switch (basis.kind()) {
        case CALIBRATED -> ClaimVerdict.CALIBRATED;
        case BY_CONSTRUCTION -> ClaimVerdict.BY_CONSTRUCTION;
        default -> ClaimVerdict.INPUT_DIFFERS;
      };
      boolean matches = median.verdict() == ClaimVerdict.REPRODUCED
          || median.verdict() == ClaimVerdict.UNFAITHFUL && median.note().startsWith("would be reproduced");
      return new Judged(median.median(), median.min(), median.max(), v,
          (quick ? "--quick: runs cut short, not compared" : matches ? "the run matches the paper's number"
              : "the run misses the paper's number") + (faithful ? "" : "; a run it reads is unfaithful"));
    }
    if (quick) {
      return new Judged(median.median(), median.min(), median.max(), ClaimVerdict.NOT_JUDGED,
          "--quick: runs cut short, not judged" + (faithful ? "" : "; a run it reads is unfaithful"));
    }
    if (values.size() < 2) return median;
    List<String> each = new ArrayList<>();
    boolean differ = false;
    ClaimVerdict first = null;
    for (int i = 0; i < values.size(); i++) {
      List<Double> base = direction == null ? List.of() : List.of(baseline.get(Math.min(i, baseline.size() - 1)));
      ClaimVerdict v = judge(target, direction, ratio, List.of(values.get(i)), base, true).verdict();
      each.add(v.label());
      if (first == null) first = v;
      differ |= v != first;
    }
    if (!differ) return median;
    String note = "seeds: " + String.join(", ", each) + "; the median's verdict: " + median.verdict().label()
        + (median.note().isEmpty() ? "" : " (" + median.note() + ")");
    return new Judged(median.median(), median.min(), median.max(), ClaimVerdict.UNSTABLE, note);
  }

  /** A row no run gives a number for ({@link Expectations.Unmeasured}): its verdict, with no value. */
  public static Judged unmeasured(Expectations.Unmeasured kind) {
    return switch (kind) {
      case INPUT -> new Judged(null, null, null, ClaimVerdict.INPUT, "a constant of the model, not read from a run");
      case NO_NUMBER -> new Judged(null, null, null, ClaimVerdict.NO_NUMBER, "");
      case NOT_MODELLED -> new Judged(null, null, null, ClaimVerdict.NOT_MODELLED, "");
      case NONE -> throw new IllegalArgumentException("a measured row is judged from its runs");
    };
  }

  /** The median: the middle value, or the mean of the two middle ones. */
  public static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}
