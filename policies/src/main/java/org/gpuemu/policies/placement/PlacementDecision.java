package org.gpuemu.policies.placement;

/** Where a VM goes: a GPU of a host, or nowhere, with the reason. */
public sealed interface PlacementDecision {

  /** On GPU {@code gpu} of host {@code host}. */
  record Placed(int host, int gpu) implements PlacementDecision {}

  /** Nowhere: no GPU has room ({@code reason} says which resource ran out). */
  record Rejected(String reason) implements PlacementDecision {}
}
