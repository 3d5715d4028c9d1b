package org.gpuemu.policies;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class PolicyRegistryTest {
  @Test
  void registry_refusesTheSameNameTwice() {
    PolicyRegistry.Builder<String> builder = PolicyRegistry.<String>builder("test policy").add("a", "first", p -> "a");
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> builder.add("a", "again", p -> "b"));
    assertEquals("test policy 'a' registered twice", e.getMessage());
  }

  @Test
  void registry_listsValidNamesSorted_whateverTheRegistrationOrder() {
    PolicyRegistry<String> registry = PolicyRegistry.<String>builder("test policy")
        .add("zeta", "z", p -> "z")
        .add("alpha", "a", p -> "a")
        .build();
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> registry.create("beta", PolicyParams.empty()));
    assertEquals("unknown test policy 'beta'; valid: alpha, zeta", e.getMessage());
  }

  @Test
  void violations_keepTheFirstTwenty_andCountTheRest() {
    Violations violations = new Violations();
    for (int i = 0; i < 250; i++) {
      violations.add("v" + i);
    }
    List<String> list = violations.list();
    assertEquals(21, list.size());
    assertEquals("v19", list.get(19));
    assertEquals("... and 230 more violations", list.get(20));
  }
}
