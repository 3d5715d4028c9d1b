package org.gpuemu.policies.cpu;

import java.util.SortedSet;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.PolicyRegistry;

/** The one registry of CPU scheduling policies for a physical core. */
public final class CpuPolicies {
  private static final PolicyRegistry<CpuPolicy> REGISTRY = PolicyRegistry.<CpuPolicy>builder("CPU policy")
      .add(WeightedFairPolicy.NAME,
          "CFS-like weighted fair share: smallest virtual runtime first, slices of the period by weight",
          WeightedFairPolicy::new)
      .build();

  private CpuPolicies() {}

  /** A new policy by registry name; an unknown name fails listing the valid ones. */
  public static CpuPolicy create(String name, PolicyParams params) {
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
