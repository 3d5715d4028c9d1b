package org.gpuemu.policies.gballoon;

import java.util.List;

/**
 * One profiling period of a slot policy (gballoon.txt §3.2: every 0.5 s): the measured W (Eq. 2) and R_copy (Eq. 1)
 * in percent, f(W, R_copy) (Eq. 3), and the reductions the policy made at its end (none for the static policies).
 */
public record Profile(long endNanos, long periodNanos, double w, double rcopy, double f, List<SlotChange> reductions) {
  public Profile {
    reductions = List.copyOf(reductions);
  }
}
