package org.gpuemu.policies.combo;

import java.util.SortedSet;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.PolicyRegistry;

/**
 * The one registry of space-sharing policies (defaults in {@code gpuemu.space-policies.<name>}).
 *
 * <p>Why a registry of its own and not {@code GpuPolicies}: a {@code GpuPolicy} picks which vGPU's queued request
 * goes to the GPU next, one request at a time, and must dispatch every request. A space-sharing policy decides
 * something else: when a frame starts, how the SMs are grouped, which version of the render kernels runs, and which
 * BE kernel is launched where; it never sees the game's render kernels one by one, and a BE kernel it holds back
 * may wait for a whole frame. Forcing that through {@code GpuDecision.Dispatch} would hide the layout, placement
 * and timing in side channels. A scenario still selects one at {@code scenario.scheduler.gpu.policy}: the names
 * here are disjoint from {@code GpuPolicies}' ({@code SpacePoliciesTest} checks it), so the loader can look a name
 * up in both.
 */
public final class SpacePolicies {
  private static final PolicyRegistry<SpacePolicy> REGISTRY = PolicyRegistry.<SpacePolicy>builder("space policy")
      .add(SpaceSharingPolicy.PILOTFISH,
          "PilotFish temporal sharing: a BE kernel after a frame only if it fits before the next (combo §1, §2.2)",
          SpaceSharingPolicy::pilotfish)
      .add(SpaceSharingPolicy.EXACT,
          "COMBO exact integrated SM sharing: Eq. 5 render group by the Eq. 4 estimate, CD+TC in the BE group (§5.1.1)",
          SpaceSharingPolicy::exact)
      .add(SpaceSharingPolicy.RELAXED,
          "COMBO relaxed intra-SM sharing: BE CD beside RT within QoS, CD+TC between frames, headroom merging (§5.1.2)",
          SpaceSharingPolicy::relaxed)
      .add(SpaceSharingPolicy.COMBO,
          "COMBO: exact for a static load, relaxed for a dynamic one by Eq. 2-3, headroom merging (§5.3, §5.5)",
          SpaceSharingPolicy::combo)
      .add(SpaceSharingPolicy.COMBO_NM,
          "COMBO-NM: COMBO without headroom merging (§6.5)",
          SpaceSharingPolicy::comboNoMerge)
      .build();

  private SpacePolicies() {}

  /** A new policy by registry name; an unknown name fails listing the valid ones. */
  public static SpacePolicy create(String name, PolicyParams params) {
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
