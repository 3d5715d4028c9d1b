package org.gpuemu.policies.memory;

import java.util.SortedSet;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.PolicyRegistry;

/** The one registry of GPU memory policies. */
public final class MemoryPolicies {
  private static final PolicyRegistry<MemoryPolicy> REGISTRY = PolicyRegistry.<MemoryPolicy>builder("memory policy")
      .add(StaticCapPolicy.NAME,
          "static per-VM allocation with a hard cap; beyond it allocations are rejected (FairGV §6)",
          StaticCapPolicy::new)
      .build();

  private MemoryPolicies() {}

  /** A new policy by registry name; an unknown name fails listing the valid ones. */
  public static MemoryPolicy create(String name, PolicyParams params) {
    return REGISTRY.create(name, params);
  }

  /** Every registered name, sorted. */
  public static SortedSet<String> names() {
    return REGISTRY.names();
  }

  /** One line describing a registered policy. */
  public static String describe(String name) {
    return REGISTRY.describe(name);
  }
}
