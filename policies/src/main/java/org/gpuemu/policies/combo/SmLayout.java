package org.gpuemu.policies.combo;

/**
 * How the GPU's SMs are grouped for a frame (combo.txt §5.1). A kernel already running when the layout changes
 * keeps its SMs until it finishes (the GPU is not preempted, Figure 11b), unless the frame's plan suspends the BE
 * group's kernels ({@link FramePlan#suspendBe}); the new layout applies to kernels that start afterwards.
 */
public sealed interface SmLayout {
  /** Every SM in one group: render kernels and the BE kernels placed beside them share the SMs (intra-SM). */
  record Whole(int sms) implements SmLayout {
    public Whole {
      if (sms <= 0) throw new IllegalArgumentException("a GPU needs SMs, got " + sms);
    }
  }

  /**
   * Exact integrated SM sharing (§5.1.1, Figure 9): a render group and a BE group that share no SM. {@code beSms}
   * may be 0 when the frame needs every SM; no BE kernel is then launched.
   */
  record Split(int renderSms, int beSms) implements SmLayout {
    public Split {
      if (renderSms <= 0 || beSms < 0) {
        throw new IllegalArgumentException("need renderSms > 0 and beSms >= 0, got " + renderSms + ", " + beSms);
      }
    }
  }
}
