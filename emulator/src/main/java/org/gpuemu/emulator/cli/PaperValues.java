package org.gpuemu.emulator.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.Expectations;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.policies.spi.PolicyCatalog;

/**
 * compare.json's {@code paper}: each number the scenario's {@code expect} block gives for a policy the compare ran
 * (docs/guides/reproducing.md), beside the value this compare measured for it, so that the report draws the paper's
 * value beside the bar. Rows that state only an ordering, or name a policy the compare did not run, are left out.
 */
final class PaperValues {
  private PaperValues() {}

  /** The rows for {@code results} (by policy label) of the scenario {@code file}; none when it has no block. */
  static List<Map<String, Object>> of(Path file, PolicyCatalog catalog, Map<String, Summary> results) {
    Expectations expect;
    try {
      expect = Expectations.read(file, catalog);
    } catch (ConfigProblems e) {
      return List.of(); // the loader checked the block already; a file changed since has no paper values here
    }
    List<String> order = expect.policies().isEmpty() ? List.copyOf(results.keySet()) : expect.policies();
    List<Map<String, Object>> rows = new ArrayList<>();
    for (Expectations.Row row : expect.rows()) {
      String policy = row.policy() != null ? row.policy() : order.isEmpty() ? null : order.get(0);
      if (policy == null || !results.containsKey(policy) || row.over() != null) continue;
      Map<String, Object> out = new LinkedHashMap<>();
      if (row.target() instanceof Expectations.Value v) {
        out.put("paper", v.low() == v.high() ? v.low() : (v.low() + v.high()) / 2);
        if (v.low() != v.high()) {
          out.put("low", v.low());
          out.put("high", v.high());
        }
      } else if (row.target() instanceof Expectations.Bound b) {
        out.put("paper", b.bound());
        out.put("bound", b.atLeast() ? "at least" : "at most");
      } else {
        continue;
      }
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("figure", row.figure());
      entry.put("metric", row.metric());
      entry.put("policy", policy);
      entry.putAll(out);
      entry.put("measured", lookup(results.get(policy).document(), row.metric()));
      rows.add(entry);
    }
    return rows;
  }

  /** The number at a dotted path of a summary document (e.g. {@code vms.nba2012.fps}); null when there is none. */
  @SuppressWarnings("unchecked")
  static Number lookup(Map<String, Object> doc, String metric) {
    Object at = doc;
    String rest = metric;
    while (at instanceof Map<?, ?> map && !rest.isEmpty()) {
      // keys may hold dots (a VM named "vm.1"): take the longest key that prefixes what is left
      String key = null;
      for (Object k : map.keySet()) {
        String s = String.valueOf(k);
        if ((rest.equals(s) || rest.startsWith(s + ".")) && (key == null || s.length() > key.length())) key = s;
      }
      if (key == null) return null;
      at = ((Map<String, Object>) map).get(key);
      rest = rest.length() == key.length() ? "" : rest.substring(key.length() + 1);
    }
    return rest.isEmpty() && at instanceof Number n ? n : null;
  }
}
