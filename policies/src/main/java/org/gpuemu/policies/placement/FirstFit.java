package org.gpuemu.policies.placement;

import java.util.List;

/** First fit: the first GPU, in host then GPU order, with room for the request (the classic bin-packing baseline). */
public final class FirstFit implements PlacementPolicy {
  public static final String NAME = "first-fit";

  @Override public String name() {
    return NAME;
  }

  @Override public PlacementDecision place(VmRequest vm, List<Candidate> candidates) {
    for (Candidate c : candidates) if (c.fits(vm)) return new PlacementDecision.Placed(c.host(), c.gpu());
    return PlacementPolicy.noRoom(vm, candidates);
  }
}
