package org.gpuemu.policies.nvidia;

import java.util.List;
import org.gpuemu.policies.ParamChecks;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.gpu.RoundRobinPolicy;
import org.gpuemu.policies.spi.Param;
import org.gpuemu.policies.spi.PolicyProvider;
import org.gpuemu.policies.spi.PolicySpec;

/**
 * NVIDIA vGPU's three time-sliced schedulers as GPU policies, registered through the plugin interface like every
 * other provider's: {@code vgpu-best-effort}, {@code vgpu-equal-share}, {@code vgpu-fixed-share}. Sources: NVIDIA AI
 * Enterprise User Guide v5.0 §7 (schedulers, RmPVMRL ranges and defaults) and Appendix A (vGPU types); NVIDIA vGPU
 * knowledge base "vGPU Schedulers" (2025-10-17). Every parameter is checked against the documented range; a value
 * outside it is bad input rather than clamped as the driver would clamp it, so that a scenario says what runs.
 */
public final class NvidiaPolicies implements PolicyProvider {
  /** Registry names. */
  public static final String BEST_EFFORT = "vgpu-best-effort";
  public static final String EQUAL_SHARE = "vgpu-equal-share";
  public static final String FIXED_SHARE = "vgpu-fixed-share";
  /** Parameters. */
  public static final String VGPU_TYPE = "vgpu-type";
  public static final String FREQUENCY = "frequency";
  public static final String AVERAGING_FACTOR = "averaging-factor";
  public static final String MAX_INFLIGHT = "max-inflight";
  /** The value of {@link #FREQUENCY} that takes §7.3 Table 1's default for the vGPU type's density. */
  public static final String BY_DENSITY = "density";

  private static Param vgpuType() {
    return Param.text(VGPU_TYPE, "A100-10C", "time-sliced vGPU type of every vGPU on the GPU (one of "
        + String.join(", ", VgpuType.names()) + "): its maximum per GPU fixes the fixed-share fraction and the "
        + "density defaults (NVAIE User Guide v5.0 App. A.4, §7.1)");
  }

  private static Param maxInflight() {
    return Param.integer(MAX_INFLIGHT, 2, "depth of the hardware queue: requests handed to the GPU but not finished "
        + "(the vendor gives none; the emulator's default, as fcfs)");
  }

  private static List<Param> strictRoundRobin() {
    return List.of(vgpuType(),
        Param.text(FREQUENCY, BY_DENSITY, "scheduling frequency in Hz, 63-960 (RmPVMRL FFF); density = 480 Hz for "
            + "types with at most 8 vGPUs per GPU, else 960 Hz (§7.3 Table 1); the time slice is 1/frequency"),
        Param.integer(AVERAGING_FACTOR, VgpuSchedulerSettings.DEFAULT_AVERAGING_FACTOR, "averaging factor, 1-60 "
            + "(RmPVMRL AA, default 33, §7.3): a turn is shortened by the vGPU's accrued overshoot / this"),
        maxInflight());
  }

  @Override public List<PolicySpec<?>> policies() {
    return List.of(
        PolicySpec.gpu(BEST_EFFORT,
            "NVIDIA vGPU best effort: time-sliced round robin by demand, idle vGPUs cede their turn (NVAIE v5.0 §7)",
            NvidiaPolicies::bestEffort)
            .param(vgpuType(), maxInflight()),
        PolicySpec.gpu(EQUAL_SHARE,
            "NVIDIA vGPU equal share: each powered-on vGPU an equal fraction, strict round robin (NVAIE v5.0 §7.1)",
            p -> share(p, EQUAL_SHARE, ShareSchedulerPolicy.Share.EQUAL))
            .params(strictRoundRobin()),
        PolicySpec.gpu(FIXED_SHARE,
            "NVIDIA vGPU fixed share: 1/(max vGPUs of the type) each, even when others idle (NVAIE v5.0 §7.1)",
            p -> share(p, FIXED_SHARE, ShareSchedulerPolicy.Share.FIXED))
            .params(strictRoundRobin()));
  }

  /**
   * Best effort as a round robin in vGPU index order that skips vGPUs with nothing queued ("If a VM has no task or
   * has used up its time slice, the scheduler will move to the next VM", knowledge base "vGPU Schedulers"). Its time
   * slice is not documented (RmPVMRL sets it for equal and fixed share only, §7.2); we take §7.3 Table 1's default
   * time slice for the type's density (2 ms, or 1 ms above 8 vGPUs per GPU) and say so.
   */
  static RoundRobinPolicy bestEffort(PolicyParams params) {
    VgpuType type = type(params, BEST_EFFORT);
    long slice = VgpuSchedulerSettings.defaultTimeSliceMs(type) * 1_000_000L;
    return new RoundRobinPolicy(BEST_EFFORT, slice, Integer.MAX_VALUE,
        ParamChecks.positiveCount(params, BEST_EFFORT, MAX_INFLIGHT));
  }

  static ShareSchedulerPolicy share(PolicyParams params, String name, ShareSchedulerPolicy.Share share) {
    VgpuType type = type(params, name);
    String f = params.text(FREQUENCY).trim();
    int frequency;
    if (f.equals(BY_DENSITY)) {
      frequency = VgpuSchedulerSettings.defaultFrequencyHz(type);
    } else {
      try {
        frequency = Integer.parseInt(f);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(name + ": parameter '" + FREQUENCY + "' must be " + BY_DENSITY
            + " or a whole number of Hz in 63-960, got " + f);
      }
    }
    long aa = params.count(AVERAGING_FACTOR);
    return new ShareSchedulerPolicy(name, share, type, frequency, (int) Math.max(Integer.MIN_VALUE,
        Math.min(Integer.MAX_VALUE, aa)), ParamChecks.positiveCount(params, name, MAX_INFLIGHT));
  }

  private static VgpuType type(PolicyParams params, String name) {
    String t = params.text(VGPU_TYPE);
    return VgpuType.of(t).orElseThrow(() -> new IllegalArgumentException(name + ": parameter '" + VGPU_TYPE
        + "' must be one of the documented time-sliced types " + String.join(", ", VgpuType.names()) + ", got " + t));
  }
}
