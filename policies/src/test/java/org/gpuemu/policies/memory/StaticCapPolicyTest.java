package org.gpuemu.policies.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyKind;
import java.util.List;
import org.gpuemu.policies.PolicyParams;
import org.junit.jupiter.api.Test;

class StaticCapPolicyTest {
  private static final long MIB = 1024 * 1024;

  private static StaticCapPolicy twoVms() {
    StaticCapPolicy policy = new StaticCapPolicy(PolicyParams.empty());
    policy.addVm(0, "vm1", 384 * MIB);
    policy.addVm(1, "vm2", 1024 * MIB);
    return policy;
  }

  @Test
  void staticCap_rejectsBeyondCap_withReason() {
    StaticCapPolicy policy = twoVms();
    assertEquals(new MemoryDecision.Granted(768 * MIB), policy.allocate(1, 768 * MIB, 0));

    MemoryDecision decision = policy.allocate(1, 512 * MIB, 1);

    assertEquals(new MemoryDecision.Rejected(
        "vm 'vm2': allocation of 512 MiB would exceed its cap of 1024 MiB (holds 768 MiB)"), decision);
    assertEquals(768 * MIB, policy.allocated(1), "a rejection holds nothing more");
  }

  @Test
  void staticCap_grantsUpToExactlyTheCap() {
    StaticCapPolicy policy = twoVms();
    assertEquals(new MemoryDecision.Granted(384 * MIB - 1), policy.allocate(0, 384 * MIB - 1, 0));
    assertEquals(new MemoryDecision.Granted(1), policy.allocate(0, 1, 0));
    assertEquals(new MemoryDecision.Rejected("vm 'vm1': allocation of 1 byte would exceed its cap of 384 MiB "
        + "(holds 384 MiB)"), policy.allocate(0, 1, 0));
  }

  @Test
  void staticCap_capsAreIndependentPerVm() {
    StaticCapPolicy policy = twoVms();
    policy.allocate(0, 384 * MIB, 0);
    // vm1 being full does not shrink vm2's cap.
    assertEquals(new MemoryDecision.Granted(1024 * MIB), policy.allocate(1, 1024 * MIB, 0));
  }

  @Test
  void staticCap_freeingMakesRoomAgain() {
    StaticCapPolicy policy = twoVms();
    policy.allocate(0, 300 * MIB, 0);
    policy.free(0, 200 * MIB, 1);
    assertEquals(100 * MIB, policy.allocated(0));
    assertEquals(new MemoryDecision.Granted(284 * MIB), policy.allocate(0, 284 * MIB, 2));
    assertEquals(List.of(), policy.checkInvariants());
  }

  @Test
  void staticCap_overFree_clampsAtZero_andIsReported() {
    StaticCapPolicy policy = twoVms();
    policy.allocate(0, 512 * 1024, 0);
    policy.free(0, MIB, 1);
    assertEquals(0, policy.allocated(0));
    assertEquals(List.of("static: vm 'vm1' freed 1 MiB while holding 512 KiB (clamped to 0)"),
        policy.checkInvariants());
  }

  @Test
  void staticCap_refusesUnknownVms() {
    StaticCapPolicy policy = twoVms();
    assertThrows(IllegalArgumentException.class, () -> policy.allocate(9, MIB, 0));
  }

  @Test
  void registry_unknownName_failsListingTheValidNames() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PolicyCatalog.builtIn().create(PolicyKind.MEMORY, "x", PolicyParams.empty()));
    assertEquals("unknown memory policy 'x'; valid: gballoon, static, static-1024, static-2048, static-384, static-512",
        e.getMessage());
  }

  @Test
  void registry_createsStaticByName_withoutParameters() {
    assertEquals("static", PolicyCatalog.builtIn().create(PolicyKind.MEMORY, "static", PolicyParams.empty()).name());
  }
}
