package org.gpuemu.policies.vgris;

/** The scheduling algorithm in force for all VMs (Algorithm 1's {@code CurrentAlgo}; Figure 11's β and α). */
public enum Algorithm {
  SLA_AWARE("sla-aware"),
  PROPORTIONAL_SHARE("proportional-share");

  private final String label;

  Algorithm(String label) {
    this.label = label;
  }

  /** The name written to timelines and summaries. */
  public String label() {
    return label;
  }
}
