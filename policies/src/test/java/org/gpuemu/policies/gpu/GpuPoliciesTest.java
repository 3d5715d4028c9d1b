package org.gpuemu.policies.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyKind;
import java.util.List;
import org.gpuemu.policies.PolicyParams;
import org.junit.jupiter.api.Test;

class GpuPoliciesTest {
  private static final String VALID = "credit-hs, credit-poll, fairgv, fcfs, gvirt, round-robin, strict-co, vgpu-best-effort, "
      + "vgpu-equal-share, vgpu-fixed-share, vgris-hybrid, vgris-share, vgris-sla, vmcg";

  @Test
  void registry_unknownName_failsListingTheValidNames() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PolicyCatalog.builtIn().create(PolicyKind.GPU, "xyz", PolicyParams.empty()));
    assertEquals("unknown GPU policy 'xyz'; valid: " + VALID, e.getMessage());
  }

  @Test
  void registry_describeOfUnknownName_failsTheSameWay() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PolicyCatalog.builtIn().spec(PolicyKind.GPU, "xyz").description());
    assertEquals("unknown GPU policy 'xyz'; valid: " + VALID, e.getMessage());
  }

  @Test
  void registry_namesAreSorted_andEachHasADescription() {
    assertEquals(List.of("credit-hs", "credit-poll", "fairgv", "fcfs", "gvirt", "round-robin", "strict-co",
        "vgpu-best-effort", "vgpu-equal-share", "vgpu-fixed-share", "vgris-hybrid", "vgris-share", "vgris-sla", "vmcg"),
        List.copyOf(PolicyCatalog.builtIn().names(PolicyKind.GPU)));
    for (String name : PolicyCatalog.builtIn().names(PolicyKind.GPU)) {
      assertFalse(PolicyCatalog.builtIn().spec(PolicyKind.GPU, name).description().isBlank(), name);
    }
  }

  @Test
  void registry_namesCannotBeModifiedByCallers() {
    assertThrows(UnsupportedOperationException.class, () -> PolicyCatalog.builtIn().names(PolicyKind.GPU).add("mine"));
  }
}
