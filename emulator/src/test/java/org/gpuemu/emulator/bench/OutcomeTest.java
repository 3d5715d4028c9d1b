package org.gpuemu.emulator.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Fast forward's comparison of outcomes. */
class OutcomeTest {

  private static Map<String, Object> summary(double a, double b, double mmr) {
    Map<String, Object> vms = new LinkedHashMap<>();
    vms.put("a", Map.of("gpu_share", a, "fps", 10.0));
    vms.put("b", Map.of("gpu_share", b));
    return Map.of("vms", vms, "fairness", Map.of("mmr", mmr, "lambda", 0.1));
  }

  @Test
  void of_readsSharesInVmOrder_andTheMmr() {
    Outcome o = Outcome.of(summary(0.4, 0.6, 0.667));
    assertEquals(List.of("a", "b"), List.copyOf(o.shares().keySet()));
    assertEquals(0.6, o.shares().get("b"));
    assertEquals(0.667, o.mmr());
  }

  @Test
  void deviation_isRelativeToTheReference_worstVmCounts() {
    Outcome ref = Outcome.of(summary(0.40, 0.60, 0.80));
    Outcome.Deviation d = Outcome.of(summary(0.41, 0.59, 0.82)).against(ref);
    assertEquals(0.025, d.share(), 1e-12, "a is 0.01 off 0.40: 2.5 %; b only 1.7 %");
    assertEquals(0.025, d.mmr(), 1e-12);
    assertFalse(d.within(0.02));
    assertTrue(d.within(0.03));
  }

  @Test
  void identicalOutcome_isWithinAnyTolerance() {
    Outcome ref = Outcome.of(summary(0.5, 0.5, 1.0));
    assertTrue(ref.against(ref).within(0.0));
  }

  @Test
  void zeroReference_fallsBackToTheAbsoluteDifference() {
    assertEquals(0.01, Outcome.relative(0.01, 0.0), 1e-12);
  }

  @Test
  void differentVms_cannotBeCompared() {
    Outcome ref = Outcome.of(summary(0.5, 0.5, 1.0));
    Outcome other = new Outcome(Map.of("a", 1.0), 1.0);
    assertThrows(IllegalArgumentException.class, () -> other.against(ref));
  }
}
