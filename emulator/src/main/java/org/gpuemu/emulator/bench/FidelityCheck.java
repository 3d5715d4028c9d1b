package org.gpuemu.emulator.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The fidelity section's comparison of two {@code summary.json} documents of one scenario (the run at the file's
 * scale against the slower reference run), and how that judges the run's own fidelity verdict.
 *
 * <p>Figures compared: per VM its {@code gpu_share}, its {@code fps} when it showed frames in either run, and any
 * {@code memory_slots} ({@code final}, {@code max}: gballoon) and {@code be_throughput} numbers; at the top
 * {@code fairness.mmr}, {@code fairness.lambda} (when a number) and {@code be_throughput}'s numbers (combo and
 * PilotFish: one per BE VM and the total). A figure's difference is relative, |run - ref| / |ref|, within at
 * {@value #RELATIVE_TOLERANCE}; but against a reference below {@value #ABSOLUTE_BELOW} (shares, MMR and λ near 0,
 * where a relative figure says little) it is absolute, |run - ref|, within at {@value #ABSOLUTE_TOLERANCE}. The
 * largest difference is the one furthest outside (or least inside) its own tolerance: difference over tolerance.
 */
final class FidelityCheck {
  static final double RELATIVE_TOLERANCE = 0.02;
  static final double ABSOLUTE_TOLERANCE = 0.01;
  static final double ABSOLUTE_BELOW = 0.5;

  private FidelityCheck() {}

  /**
   * One figure in both runs.
   *
   * @param figure its path in summary.json, e.g. {@code vms.vm1.fps}, {@code fairness.mmr}, {@code be_throughput.total}
   * @param run the value in the run at the file's scale
   * @param reference the value in the slower reference run
   * @param kind "relative" or "absolute" (reference below {@value #ABSOLUTE_BELOW})
   * @param difference the relative or absolute difference
   * @param tolerance what {@code difference} is held against
   * @param within difference &lt;= tolerance
   */
  record Difference(String figure, double run, double reference, String kind, double difference, double tolerance,
      boolean within) {

    static Difference of(String figure, double run, double reference) {
      double diff = Math.abs(run - reference);
      boolean relative = Math.abs(reference) >= ABSOLUTE_BELOW;
      double tolerance = relative ? RELATIVE_TOLERANCE : ABSOLUTE_TOLERANCE;
      double value = relative ? diff / Math.abs(reference) : diff;
      return new Difference(figure, run, reference, relative ? "relative" : "absolute", value, tolerance,
          value <= tolerance);
    }

    /** Difference over tolerance: what the largest difference is picked by (1: at the tolerance). */
    double excess() {
      return difference / tolerance;
    }
  }

  /**
   * The two runs' figures side by side.
   *
   * @param differences every figure both runs have, reference's order
   * @param unmatched figures only one run has a number for (e.g. a λ that is null in the other), which makes the
   *     outcome differ
   * @param largest the difference furthest outside its tolerance; null when no figure was compared
   * @param within every difference within its tolerance and no unmatched figure
   */
  record Comparison(List<Difference> differences, List<String> unmatched, Difference largest, boolean within) {
    Comparison {
      differences = List.copyOf(differences);
      unmatched = List.copyOf(unmatched);
    }
  }

  /**
   * How the run's own verdict fared against the comparison.
   *
   * <ul>
   *   <li>{@code CONFIRMED}: faithful, and the figures agree with the reference's
   *   <li>{@code MISSED}: faithful, but the figures do not agree (the verdict missed an error)
   *   <li>{@code FALSE_ALARM}: not faithful, but the figures agree (right to warn, but nothing came of it)
   *   <li>{@code CAUGHT}: not faithful, and the figures do not agree
   * </ul>
   */
  enum Call {
    CONFIRMED, MISSED, FALSE_ALARM, CAUGHT;

    static Call of(boolean faithful, boolean within) {
      if (faithful) return within ? CONFIRMED : MISSED;
      return within ? FALSE_ALARM : CAUGHT;
    }

    boolean faithful() {
      return this == CONFIRMED || this == MISSED;
    }

    boolean within() {
      return this == CONFIRMED || this == FALSE_ALARM;
    }

    /** Whether the verdict was right: faithful and within, or not faithful (a false alarm is not wrong). */
    boolean right() {
      return this != MISSED;
    }
  }

  /** Compares a run's summary.json document with its reference's. */
  static Comparison compare(Map<String, Object> run, Map<String, Object> reference) {
    Set<String> framed = new LinkedHashSet<>();
    framed.addAll(framedVms(reference));
    framed.addAll(framedVms(run));
    Map<String, Double> ref = figures(reference, framed);
    Map<String, Double> here = figures(run, framed);
    List<Difference> differences = new ArrayList<>();
    List<String> unmatched = new ArrayList<>();
    for (Map.Entry<String, Double> e : ref.entrySet()) {
      Double value = here.get(e.getKey());
      if (value == null) {
        unmatched.add(e.getKey() + " (reference only)");
      } else {
        differences.add(Difference.of(e.getKey(), value, e.getValue()));
      }
    }
    for (String key : here.keySet()) {
      if (!ref.containsKey(key)) unmatched.add(key + " (run only)");
    }
    Difference largest = null;
    boolean within = unmatched.isEmpty();
    for (Difference d : differences) {
      if (largest == null || d.excess() > largest.excess()) largest = d;
      within &= d.within();
    }
    return new Comparison(differences, unmatched, largest, within);
  }

  /**
   * The figures of one summary.json document by their path, in document order.
   *
   * @param framed the VMs whose {@code fps} counts (those that showed frames in either run)
   */
  @SuppressWarnings("unchecked")
  static Map<String, Double> figures(Map<String, Object> summary, Set<String> framed) {
    Map<String, Double> figures = new LinkedHashMap<>();
    Object vms = summary.get("vms");
    if (vms instanceof Map<?, ?> byName) {
      for (Map.Entry<?, ?> vm : byName.entrySet()) {
        if (!(vm.getValue() instanceof Map<?, ?>)) continue;
        Map<String, Object> v = (Map<String, Object>) vm.getValue();
        String at = "vms." + vm.getKey() + ".";
        if (framed.contains(String.valueOf(vm.getKey()))) number(figures, at + "fps", v.get("fps"));
        number(figures, at + "gpu_share", v.get("gpu_share"));
        numbers(figures, at + "memory_slots", v.get("memory_slots"));
        numbers(figures, at + "be_throughput", v.get("be_throughput"));
      }
    }
    if (summary.get("fairness") instanceof Map<?, ?> fairness) {
      number(figures, "fairness.mmr", fairness.get("mmr"));
      number(figures, "fairness.lambda", fairness.get("lambda"));
    }
    numbers(figures, "be_throughput", summary.get("be_throughput"));
    return figures;
  }

  /** The VMs that showed frames ({@code frames} &gt; 0). */
  static Set<String> framedVms(Map<String, Object> summary) {
    Set<String> framed = new LinkedHashSet<>();
    if (summary.get("vms") instanceof Map<?, ?> vms) {
      for (Map.Entry<?, ?> vm : vms.entrySet()) {
        if (vm.getValue() instanceof Map<?, ?> v && v.get("frames") instanceof Number n && n.doubleValue() > 0) {
          framed.add(String.valueOf(vm.getKey()));
        }
      }
    }
    return framed;
  }

  private static void number(Map<String, Double> figures, String path, Object value) {
    if (value instanceof Number n && Double.isFinite(n.doubleValue())) figures.put(path, n.doubleValue());
  }

  // A number, or every number under a map (be_throughput's {cd, tc, total}, memory_slots' {final, max}).
  private static void numbers(Map<String, Double> figures, String path, Object value) {
    if (value instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> e : map.entrySet()) numbers(figures, path + "." + e.getKey(), e.getValue());
    } else {
      number(figures, path, value);
    }
  }

  /**
   * The section's totals.
   *
   * @param scenarios scenario files tried
   * @param errors those that could not be loaded or run
   * @param runs those compared (both runs ended)
   * @param faithful compared runs whose own verdict (at the file's scale) was faithful
   * @param within compared runs whose figures agreed with the reference's
   * @param verdictRight faithful and within, or not faithful
   * @param missed faithful but not within: the verdict missed an error
   * @param falseAlarms not faithful but within
   * @param referenceFaithful compared runs whose reference run was faithful
   */
  record Totals(int scenarios, int errors, int runs, int faithful, int within, int verdictRight, int missed,
      int falseAlarms, int referenceFaithful) {

    /** The totals of the compared scenarios' calls. */
    static Totals of(List<Call> calls, int referenceFaithful, int errors) {
      int faithful = 0;
      int within = 0;
      int right = 0;
      int missed = 0;
      int falseAlarms = 0;
      for (Call call : calls) {
        if (call.faithful()) faithful++;
        if (call.within()) within++;
        if (call.right()) right++;
        if (call == Call.MISSED) missed++;
        if (call == Call.FALSE_ALARM) falseAlarms++;
      }
      return new Totals(calls.size() + errors, errors, calls.size(), faithful, within, right, missed, falseAlarms,
          referenceFaithful);
    }
  }
}
