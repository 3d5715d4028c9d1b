package org.gpuemu.policies.placement;

import java.util.Comparator;
import java.util.List;

/**
 * Best fit by GPU share, then GPU memory: the GPU that the request leaves with the least free share (fewest
 * thousandths), ties broken by the least memory left, then by host and GPU order. Packing fractional requests onto
 * the fullest GPU that still takes them keeps whole GPUs free for whole-GPU requests — the best-fit baseline that
 * Weng et al. (USENIX ATC 2023, §6) compare fragmentation gradient descent against.
 */
public final class BestFit implements PlacementPolicy {
  public static final String NAME = "best-fit";

  @Override public String name() {
    return NAME;
  }

  @Override public PlacementDecision place(VmRequest vm, List<Candidate> candidates) {
    return candidates.stream().filter(c -> c.fits(vm))
        .min(Comparator.comparingLong((Candidate c) -> c.freeGpuMilli() - vm.gpuMilli())
            .thenComparingLong(c -> c.freeMemoryBytes() - vm.memoryBytes()))
        .<PlacementDecision>map(c -> new PlacementDecision.Placed(c.host(), c.gpu()))
        .orElseGet(() -> PlacementPolicy.noRoom(vm, candidates));
  }
}
