package org.gpuemu.policies.combo;

/** What the space-sharing scheduler does next with best-effort kernels. */
public sealed interface SpaceDecision {
  /** Launch this BE kernel now, placed as given. */
  record Launch(BeKernel kernel, Placement placement) implements SpaceDecision {}

  /** Launch nothing until the next event. */
  record Idle() implements SpaceDecision {}
}
