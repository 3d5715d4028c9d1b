package org.gpuemu.policies.combo;

import java.util.Locale;

/** A sharing scheme in force for a frame. */
public enum Scheme {
  /** PilotFish: BE kernels only in the headroom after a frame, one at a time (combo.txt §1, Figure 1). */
  TEMPORAL,
  /** Exact integrated SM sharing: SMs split by Eq. 5, CD+TC co-located in the BE group (§5.1.1). */
  EXACT,
  /** Relaxed intra-SM sharing: the whole GPU renders, BE CD kernels beside RT when QoS allows (§5.1.2). */
  RELAXED;

  /** Lower-case name for timelines and reports. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
