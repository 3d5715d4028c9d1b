package org.gpuemu.policies.combo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyKind;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.gpuemu.policies.PolicyParams;
import org.junit.jupiter.api.Test;

class SpacePoliciesTest {
  @Test
  void registry_holdsPilotfishAndComboSchemes_sorted() {
    assertEquals(List.of("combo", "combo-exact", "combo-nm", "combo-relaxed", "pilotfish", "pilotfish-combo"),
        List.copyOf(PolicyCatalog.builtIn().names(PolicyKind.SPACE)));
    for (String name : PolicyCatalog.builtIn().names(PolicyKind.SPACE)) {
      assertFalse(PolicyCatalog.builtIn().spec(PolicyKind.SPACE, name).description().isBlank(), name);
      assertEquals(name, PolicyCatalog.builtIn().create(PolicyKind.SPACE, name, EverySpacePolicyTest.PARAMS).name());
    }
  }

  @Test
  void registry_unknownName_failsListingTheValidNames() {
    assertEquals("unknown space policy 'x'; valid: combo, combo-exact, combo-nm, combo-relaxed, pilotfish, pilotfish-combo",
        assertThrows(IllegalArgumentException.class, () -> PolicyCatalog.builtIn().create(PolicyKind.SPACE, "x", PolicyParams.empty()))
            .getMessage());
  }

  @Test
  void names_areDisjointFromTheGpuPolicies_soOneScenarioKeyCanNameEither() {
    Set<String> both = new TreeSet<>(PolicyCatalog.builtIn().names(PolicyKind.SPACE));
    both.retainAll(PolicyCatalog.builtIn().names(PolicyKind.GPU));
    assertEquals(Set.of(), both);
  }

  @Test
  void aMissingParameter_failsNamingIt() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PolicyCatalog.builtIn().create(PolicyKind.SPACE, "combo", PolicyParams.of(Map.of("guard", 100_000L, "merge-headrooms", "true"))));
    assertTrue(e.getMessage().startsWith("policy parameter 'state-window' missing"), e.getMessage());
    assertEquals("combo-relaxed: parameter 'merge-headrooms' must be true or false, got yes",
        assertThrows(IllegalArgumentException.class, () -> PolicyCatalog.builtIn().create(PolicyKind.SPACE, "combo-relaxed",
            PolicyParams.of(Map.of("guard", 1L, "merge-headrooms", "yes")))).getMessage());
  }
}
