package org.gpuemu.policies.gpu;

import java.util.SortedSet;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.PolicyRegistry;

/** The one registry of GPU time-sharing policies; scenario files name them in {@code policy}. */
public final class GpuPolicies {
  private static final PolicyRegistry<GpuPolicy> REGISTRY = PolicyRegistry.<GpuPolicy>builder("GPU policy")
      .add(FcfsPolicy.NAME,
          "one global first-come first-serve queue, the default driver sharing (VGRIS §2.2, gVirt in VMCG §2)",
          FcfsPolicy::new)
      .add(RoundRobinPolicy.NAME,
          "gVirt round robin: each vGPU owns the GPU for a time slice, switching after the GPU drains (VMCG §2, §5.1)",
          RoundRobinPolicy::new)
      .build();

  private GpuPolicies() {}

  /** A new policy by registry name; an unknown name fails listing the valid ones. */
  public static GpuPolicy create(String name, PolicyParams params) {
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
