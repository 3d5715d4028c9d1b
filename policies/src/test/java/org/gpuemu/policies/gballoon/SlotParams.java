package org.gpuemu.policies.gballoon;

import java.util.HashMap;
import java.util.Map;
import org.gpuemu.policies.PolicyParams;

/** The slot policies' parameters as reference.conf sets them (gvt-g-slots and gballoon), with overrides. */
final class SlotParams {
  static final long MS = 1_000_000L;
  static final long MIB = GraphicsMemory.MIB;

  private SlotParams() {}

  /** reference.conf's defaults, with {@code overrides} (key, value, key, value, ...) replacing some. */
  static PolicyParams of(Object... overrides) {
    Map<String, Object> values = new HashMap<>();
    values.put("low-memory", 256 * MIB);
    values.put("high-memory", 3840 * MIB);
    values.put("dom0-high-memory", 384 * MIB);
    values.put("guest-low-memory", 64 * MIB);
    values.put("slot", 64 * MIB);
    values.put("copy-per-slot", 3_200_000L);
    values.put("period", 500 * MS);
    values.put("max-w", 2200.0);
    values.put("max-rcopy", 12.5);
    values.put("initial-high-memory", 384 * MIB);
    values.put("threshold-low", 0.5);
    values.put("threshold-high", 1.0);
    values.put("expansion-slots", 1L);
    values.put("between-reduction-slots", 1L);
    values.put("above-reduction-slots", 2L);
    for (int i = 0; i < overrides.length; i += 2) {
      values.put((String) overrides[i], overrides[i + 1]);
    }
    return PolicyParams.of(values);
  }
}
