package org.gpuemu.policies.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyKind;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.gpuemu.policies.PolicyParams;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Properties every registered memory policy keeps, whatever it decides. */
class EveryMemoryPolicyTest {
  private static final long MIB = 1024L * 1024;

  static Stream<String> policies() {
    return PolicyCatalog.builtIn().names(PolicyKind.MEMORY).stream();
  }

  /** Every policy's parameters at reference.conf's values (a policy reads only its own). */
  private static PolicyParams params() {
    Map<String, Object> values = new HashMap<>();
    values.put("low-memory", 256 * MIB);
    values.put("high-memory", 3840 * MIB);
    values.put("dom0-high-memory", 384 * MIB);
    values.put("guest-low-memory", 64 * MIB);
    values.put("slot", 64 * MIB);
    values.put("copy-per-slot", 3_200_000L);
    values.put("period", 500_000_000L);
    values.put("max-w", 2200.0);
    values.put("max-rcopy", 12.5);
    values.put("initial-high-memory", 384 * MIB);
    values.put("threshold-low", 0.5);
    values.put("threshold-high", 1.0);
    values.put("expansion-slots", 1L);
    values.put("between-reduction-slots", 1L);
    values.put("above-reduction-slots", 2L);
    return PolicyParams.of(values);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("policies")
  void anyPolicy_grantsNoMoreThanAsked_andHoldsExactlyWhatItGrantedLessWhatWasFreed(String name) {
    MemoryPolicy policy = PolicyCatalog.builtIn().create(PolicyKind.MEMORY, name, params());
    assertEquals(name, policy.name());
    int vms = 12;
    long[] held = new long[vms];
    for (int vm = 0; vm < vms; vm++) {
      policy.addVm(vm, "vm" + vm, 512 * MIB);
    }
    SplittableRandom random = new SplittableRandom(7);
    int grants = 0;
    for (int i = 0; i < 3000; i++) {
      int vm = random.nextInt(vms);
      if (held[vm] > 0 && random.nextInt(3) == 0) {
        long bytes = 1 + random.nextLong(held[vm]);
        policy.free(vm, bytes, i);
        held[vm] -= bytes;
      } else {
        long bytes = 1 + random.nextLong(200 * MIB);
        MemoryDecision d = policy.allocate(vm, bytes, i);
        if (d instanceof MemoryDecision.Granted g) {
          assertTrue(g.bytes() > 0 && g.bytes() <= bytes, name + " granted " + g.bytes() + " of " + bytes);
          held[vm] += g.bytes();
          grants++;
        }
      }
      assertEquals(held[vm], policy.allocated(vm), name + " at step " + i);
    }
    assertTrue(grants > 100, name + " granted only " + grants + " times");
    assertEquals(List.of(), policy.checkInvariants());
  }
}
