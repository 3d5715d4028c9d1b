package org.gpuemu.emulator.run;

import java.util.Locale;
import org.gpuemu.emulator.clock.Causality;
import org.gpuemu.emulator.config.Settings;

/**
 * Whether a run can be trusted (DESIGN.md §4): it is faithful unless its events were handled out of model-time
 * order by more than its policy's decisions can absorb, or it fell behind the wall clock for good. The rules, in
 * the order they are checked (the first that fails is the reason):
 *
 * <ol>
 *   <li>no causality violation larger than {@code violation-threshold} of the unit the run emulated (its median
 *       frame, or its GPU-time median kernel): a reordering that large can change what a scheduler decides for a
 *       whole frame or kernel;
 *   <li>violations no more than {@code violation-rate} of the events handed over in order;
 *   <li>the median lag behind the release points, in wall time, no more than {@code max-lag}.
 * </ol>
 *
 * <p>Raw timer lateness is not a rule: a late timer delays when a guest hears of an event; only when it reorders
 * events (a violation) or lasts (lag) does it move results or what a viewer sees. {@code rule} names the rule that
 * failed ("causality" or "lag"; null when faithful), {@code reason} says how.
 */
public record Verdict(boolean faithful, String rule, String reason) {

  private static final Verdict FAITHFUL = new Verdict(true, null, null);

  /**
   * Judges a run's causal order.
   *
   * @param order what the inboxes measured
   * @param unitNanos the unit the run emulated, emulated ns (Long.MAX_VALUE: none known, the size rule is skipped)
   * @param unitName what the unit is, for the reason
   * @param timeScale the run's time scale (lag is judged in wall time)
   */
  public static Verdict of(Causality.Snapshot order, long unitNanos, String unitName, Settings.Fidelity rules,
      double timeScale) {
    if (unitNanos != Long.MAX_VALUE && unitNanos > 0) {
      double limit = rules.violationThreshold() * unitNanos;
      if (order.largestViolationNanos() > limit) {
        return new Verdict(false, "causality", String.format(Locale.ROOT,
            "causality: an event was handled %d us after a later one, more than %s %% of the %s (%.3f ms)",
            Math.round(order.largestViolationNanos() / 1e3), pct(rules.violationThreshold()), unitName,
            unitNanos / 1e6));
      }
    }
    long handled = order.ordered() + order.violations();
    if (order.violations() > rules.violationRate() * handled) {
      return new Verdict(false, "causality", String.format(Locale.ROOT,
          "causality: %d of %d events arrived after a later one had been handled, more than %s %%",
          order.violations(), handled, pct(rules.violationRate())));
    }
    double lagWallMs = order.lag().count() == 0 ? 0 : order.lag().p50() / 1e3 / timeScale;
    if (lagWallMs * 1e6 > rules.maxLagWallNanos()) {
      return new Verdict(false, "lag", String.format(Locale.ROOT,
          "lag: events were handled a median %.1f ms (wall) after their release points, more than %.1f ms: the "
              + "emulation could not keep up with its time scale", lagWallMs, rules.maxLagWallNanos() / 1e6));
    }
    return FAITHFUL;
  }

  private static String pct(double fraction) {
    return String.format(Locale.ROOT, "%s", Math.round(fraction * 1e5) / 1e3);
  }
}
