package org.gpuemu.policies.placement;

import java.util.List;
import org.gpuemu.policies.spi.PolicyProvider;
import org.gpuemu.policies.spi.PolicySpec;

/** The built-in placement policies ({@code scenario.placement.policy}), registered like every other provider's. */
public final class PlacementPolicies implements PolicyProvider {
  @Override public List<PolicySpec<?>> policies() {
    return List.of(
        PolicySpec.placement(FirstFit.NAME, "the first GPU, in host then GPU order, with room for the request",
            p -> new FirstFit()),
        PolicySpec.placement(BestFit.NAME,
            "the GPU the request leaves with the least free share, then memory (packs fractional GPUs)",
            p -> new BestFit()),
        PolicySpec.placement(Spread.NAME, "the host with the fewest VMs, then its GPU with the fewest VMs",
            p -> new Spread()));
  }
}
