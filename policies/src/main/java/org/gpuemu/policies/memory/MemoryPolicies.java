package org.gpuemu.policies.memory;

import java.util.SortedSet;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.PolicyRegistry;
import org.gpuemu.policies.gballoon.GballoonPolicy;
import org.gpuemu.policies.gballoon.GvirtStaticPolicy;

/** The one registry of GPU memory policies. */
public final class MemoryPolicies {
  private static final PolicyRegistry<MemoryPolicy> REGISTRY = build();

  private MemoryPolicies() {}

  private static PolicyRegistry<MemoryPolicy> build() {
    PolicyRegistry.Builder<MemoryPolicy> builder = PolicyRegistry.<MemoryPolicy>builder("memory policy")
        .add(StaticCapPolicy.NAME,
            "static per-VM allocation with a hard cap; beyond it allocations are rejected (FairGV §6)",
            StaticCapPolicy::new);
    for (int mib : GvirtStaticPolicy.TYPES_MIB) {
      builder.add(GvirtStaticPolicy.nameOf(mib),
          "gVirt-" + mib + ": " + mib + " MiB of high memory per VM in shared 64 MiB slots, GTT copies at switches "
              + "(gBalloon §2, §4)",
          params -> new GvirtStaticPolicy(params, mib));
    }
    return builder
        .add(GballoonPolicy.NAME,
            "gBalloon: slots expand on lack of memory, shrink by f(W, Rcopy) every 0.5 s, Algorithm 1 (gBalloon §3)",
            GballoonPolicy::new)
        .build();
  }

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
