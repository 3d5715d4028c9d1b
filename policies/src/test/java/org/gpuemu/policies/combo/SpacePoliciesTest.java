package org.gpuemu.policies.combo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.gpu.GpuPolicies;
import org.junit.jupiter.api.Test;

class SpacePoliciesTest {
  @Test
  void registry_holdsPilotfishAndComboSchemes_sorted() {
    assertEquals(List.of("combo", "combo-exact", "combo-nm", "combo-relaxed", "pilotfish"),
        List.copyOf(SpacePolicies.names()));
    for (String name : SpacePolicies.names()) {
      assertFalse(SpacePolicies.describe(name).isBlank(), name);
      assertEquals(name, SpacePolicies.create(name, EverySpacePolicyTest.PARAMS).name());
    }
  }

  @Test
  void registry_unknownName_failsListingTheValidNames() {
    assertEquals("unknown space policy 'x'; valid: combo, combo-exact, combo-nm, combo-relaxed, pilotfish",
        assertThrows(IllegalArgumentException.class, () -> SpacePolicies.create("x", PolicyParams.empty()))
            .getMessage());
  }

  @Test
  void names_areDisjointFromTheGpuPolicies_soOneScenarioKeyCanNameEither() {
    Set<String> both = new TreeSet<>(SpacePolicies.names());
    both.retainAll(GpuPolicies.names());
    assertEquals(Set.of(), both);
  }

  @Test
  void aMissingParameter_failsNamingIt() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SpacePolicies.create("combo", PolicyParams.of(Map.of("guard", 100_000L, "merge-headrooms", "true"))));
    assertTrue(e.getMessage().startsWith("policy parameter 'state-window' missing"), e.getMessage());
    assertEquals("combo-relaxed: parameter 'merge-headrooms' must be true or false, got yes",
        assertThrows(IllegalArgumentException.class, () -> SpacePolicies.create("combo-relaxed",
            PolicyParams.of(Map.of("guard", 1L, "merge-headrooms", "yes")))).getMessage());
  }
}
