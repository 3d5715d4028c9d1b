package org.gpuemu.policies.placement;

import java.util.Comparator;
import java.util.List;

/**
 * Spread: the host with the fewest VMs, and on it the GPU with the fewest VMs and then the most free share; ties by
 * host and GPU order. The opposite of packing: load (and the blast radius of a lost host) is spread evenly, at the
 * price of fragmenting GPUs.
 */
public final class Spread implements PlacementPolicy {
  public static final String NAME = "spread";

  @Override public String name() {
    return NAME;
  }

  @Override public PlacementDecision place(VmRequest vm, List<Candidate> candidates) {
    return candidates.stream().filter(c -> c.fits(vm))
        .min(Comparator.comparingInt(Candidate::hostVms).thenComparingInt(Candidate::gpuVms)
            .thenComparing(Comparator.comparingLong(Candidate::freeGpuMilli).reversed()))
        .<PlacementDecision>map(c -> new PlacementDecision.Placed(c.host(), c.gpu()))
        .orElseGet(() -> PlacementPolicy.noRoom(vm, candidates));
  }
}
