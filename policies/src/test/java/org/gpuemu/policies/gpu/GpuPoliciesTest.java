package org.gpuemu.policies.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.gpuemu.policies.PolicyParams;
import org.junit.jupiter.api.Test;

class GpuPoliciesTest {
  private static final String VALID = "credit-hs, credit-poll, fairgv, fcfs, gvirt, round-robin, strict-co, vgris-hybrid, "
      + "vgris-share, vgris-sla, vmcg";

  @Test
  void registry_unknownName_failsListingTheValidNames() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> GpuPolicies.create("xyz", PolicyParams.empty()));
    assertEquals("unknown GPU policy 'xyz'; valid: " + VALID, e.getMessage());
  }

  @Test
  void registry_describeOfUnknownName_failsTheSameWay() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> GpuPolicies.describe("xyz"));
    assertEquals("unknown GPU policy 'xyz'; valid: " + VALID, e.getMessage());
  }

  @Test
  void registry_namesAreSorted_andEachHasADescription() {
    assertEquals(List.of("credit-hs", "credit-poll", "fairgv", "fcfs", "gvirt", "round-robin", "strict-co",
        "vgris-hybrid", "vgris-share", "vgris-sla", "vmcg"),
        List.copyOf(GpuPolicies.names()));
    for (String name : GpuPolicies.names()) {
      assertFalse(GpuPolicies.describe(name).isBlank(), name);
    }
  }

  @Test
  void registry_namesCannotBeModifiedByCallers() {
    assertThrows(UnsupportedOperationException.class, () -> GpuPolicies.names().add("mine"));
  }
}
