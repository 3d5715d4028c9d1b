package org.gpuemu.policies.gballoon;

/**
 * A priced GTT copy: the {@link CopySet} of one context switch, the GTT entries it writes and the CPU time it takes
 * on a host core ({@link CopyCost}). The switch to the incoming vGPU completes only once the copy has run, so the
 * copy both loads a host CPU and lengthens the context switch (§2.2).
 */
public record GttCopy(CopySet set, long entries, long cpuNanos) {
  public GttCopy {
    if (entries < 0 || cpuNanos < 0) {
      throw new IllegalArgumentException("a copy has entries and CPU time >= 0, got " + entries + ", " + cpuNanos);
    }
  }
}
