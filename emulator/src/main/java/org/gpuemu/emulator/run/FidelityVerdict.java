package org.gpuemu.emulator.run;

import java.util.Locale;
import org.gpuemu.emulator.clock.Causality;
import org.gpuemu.emulator.config.Settings;

/**
 * Whether a run can be trusted (docs/concepts/time-and-order.md): it is faithful unless its events were handled out of
 * model-time order, or it fell behind the wall clock for good. The rules, in the order they are checked (the first that
 * fails is the reason; reference.conf {@code fidelity}, written down before the validation runs):
 *
 * <ol>
 *   <li>causality, conservative order: no event handled out of model-time order at all. None can be unless the
 *       order was bypassed, and then its effect on the results has no bound;
 *   <li>causality, arrival order: no violation larger than {@code violation-threshold} of the unit the run emulated
 *       (its median frame, or its GPU-time median kernel), and violations no more than {@code violation-rate} of the
 *       events handed over in order;
 *   <li>lag: no more than {@code lag-share} of the events handled more than {@code horizon} of wall time after the
 *       clock reached their model time.
 * </ol>
 *
 * <p>Raw timer lateness is not a rule: under the conservative order a late timer or message delays the model, and
 * changes nothing it computes; only a lasting lag changes what a viewer sees. {@code rule} names the rule that failed
 * ("causality" or "lag"; null when faithful), {@code reason} says how.
 */
public record FidelityVerdict(boolean faithful, String rule, String reason) {

  private static final FidelityVerdict FAITHFUL = new FidelityVerdict(true, null, null);

  /**
   * Judges a run's causal order.
   *
   * @param order what the inboxes measured
   * @param unitNanos the unit the run emulated, emulated ns (Long.MAX_VALUE: none known, the size rule is skipped)
   * @param unitName what the unit is, for the reason
   * @param timeScale the run's time scale (lag is judged in wall time)
   */
  public static FidelityVerdict of(Causality.Snapshot order, long unitNanos, String unitName, Settings.Fidelity rules,
      double timeScale) {
    FidelityVerdict causality = order.order() == Causality.Order.CONSERVATIVE ? conservative(order)
        : arrival(order, unitNanos, unitName, rules);
    if (causality != null) return causality;
    long handled = order.ordered() + order.violations();
    if (handled > 0 && order.beyondHorizon() > rules.lagShare() * handled) {
      return new FidelityVerdict(false, "lag", String.format(Locale.ROOT,
          "lag: %d of %d events (%s %%) were handled more than %.0f ms (wall) after their model time, more than "
              + "%s %%: the emulation could not keep its time scale (%s)", order.beyondHorizon(), handled,
          pct((double) order.beyondHorizon() / handled), rules.horizonWallNanos() / 1e6, pct(rules.lagShare()),
          scale(timeScale)));
    }
    return FAITHFUL;
  }

  private static FidelityVerdict conservative(Causality.Snapshot order) {
    if (order.violations() == 0) return null;
    return new FidelityVerdict(false, "causality", String.format(Locale.ROOT,
        "causality: %d events were handled after a later one (the largest %d us out of order), although the "
            + "conservative order admits none", order.violations(),
        Math.round(order.largestViolationNanos() / 1e3)));
  }

  private static FidelityVerdict arrival(Causality.Snapshot order, long unitNanos, String unitName,
      Settings.Fidelity rules) {
    if (unitNanos != Long.MAX_VALUE && unitNanos > 0) {
      double limit = rules.violationThreshold() * unitNanos;
      if (order.largestViolationNanos() > limit) {
        return new FidelityVerdict(false, "causality", String.format(Locale.ROOT,
            "causality: an event was handled %d us after a later one, more than %s %% of the %s (%.3f ms)",
            Math.round(order.largestViolationNanos() / 1e3), pct(rules.violationThreshold()), unitName,
            unitNanos / 1e6));
      }
    }
    long handled = order.ordered() + order.violations();
    if (order.violations() > rules.violationRate() * handled) {
      return new FidelityVerdict(false, "causality", String.format(Locale.ROOT,
          "causality: %d of %d events arrived after a later one had been handled, more than %s %%",
          order.violations(), handled, pct(rules.violationRate())));
    }
    return null;
  }

  private static String scale(double timeScale) {
    return "time scale " + (timeScale == Math.rint(timeScale) ? String.valueOf((long) timeScale)
        : String.valueOf(timeScale));
  }

  private static String pct(double fraction) {
    return String.format(Locale.ROOT, "%s", Math.round(fraction * 1e5) / 1e3);
  }
}
