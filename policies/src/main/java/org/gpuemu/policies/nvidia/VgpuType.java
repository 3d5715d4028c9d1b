package org.gpuemu.policies.nvidia;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A time-sliced NVIDIA vGPU type and the maximum number of vGPUs of that type one physical GPU holds, which is what
 * fixes a fixed-share vGPU's fraction (1 / maximum) and the density defaults of the time slice and the scheduling
 * frequency (at most 8: 2 ms and 480 Hz; more: 1 ms and 960 Hz).
 *
 * <p>Source: NVIDIA AI Enterprise User Guide v5.0, Appendix A.4 "NVIDIA A100 PCIe 40GB Virtual GPU Types", table
 * "Time-Sliced C-Series Virtual GPU Types" (maximum vGPUs per GPU in equal-size mode), and §7.1, whose example is
 * T4-4C (4 per GPU, so 25 % under fixed share). Only these types are listed; any other is bad input, because the
 * emulator has no documented maximum for it.
 *
 * @param name the type's name as NVIDIA writes it
 * @param frameBufferMiB its frame buffer
 * @param maxPerGpu the maximum number of vGPUs of this type per physical GPU (equal-size mode)
 */
public record VgpuType(String name, int frameBufferMiB, int maxPerGpu) {
  private static final Map<String, VgpuType> DOCUMENTED = new LinkedHashMap<>();

  static {
    for (VgpuType t : List.of(
        new VgpuType("A100-40C", 40960, 1), new VgpuType("A100-20C", 20480, 2), new VgpuType("A100-10C", 10240, 4),
        new VgpuType("A100-8C", 8192, 5), new VgpuType("A100-5C", 5120, 8), new VgpuType("A100-4C", 4096, 10),
        new VgpuType("T4-4C", 4096, 4))) {
      DOCUMENTED.put(t.name(), t);
    }
  }

  public VgpuType {
    if (maxPerGpu <= 0) throw new IllegalArgumentException("vGPU type " + name + ": maximum per GPU must be > 0");
  }

  /** A documented type by name. */
  public static Optional<VgpuType> of(String name) {
    return Optional.ofNullable(DOCUMENTED.get(name));
  }

  /** The documented types, in the guide's order. */
  public static List<String> names() {
    return List.copyOf(DOCUMENTED.keySet());
  }

  /** The fixed-share fraction of one vGPU of this type: 1 / {@link #maxPerGpu} (§7.1: T4-4C, 4 per GPU, 25 %). */
  public double fixedShare() {
    return 1.0 / maxPerGpu;
  }

  /** Whether the high-density defaults apply (§7.3 Table 1: more than 8 vGPUs per GPU). */
  public boolean highDensity() {
    return maxPerGpu > 8;
  }
}
