package org.gpuemu.policies.vgris;

import java.util.List;
import java.util.SortedMap;
import org.gpuemu.policies.gpu.GpuPolicy;

/**
 * The VGRIS side of a GPU policy, called by the GpuScheduler actor in its role of VGRIS's central controller
 * (§3.1). Requests still go through {@link GpuPolicy} and are dispatched in arrival order; what VGRIS decides is
 * how each VM's agent treats {@code Present} ({@link #presentMode}) and, under proportional share, when a Present
 * may go ({@link #requestPresent}). The GPU time each VM consumed, which proportional share charges to its budget,
 * is learned from {@link GpuPolicy#completed}. Times are emulated nanoseconds.
 */
public interface PresentGate extends GpuPolicy {
  /** What the VM's agent must do with Presents now; changes only when {@link #secondEnded} returns true. */
  PresentMode presentMode(int vgpu);

  /** Whether the VM may Present at {@code now}; when postponed, the caller asks again at the time given. */
  PresentDecision requestPresent(int vgpu, long now);

  /**
   * The second ending at {@code now}: one report per running VM (VMs that are not running send none). True when the
   * algorithm changed, so every agent must fetch its {@link #presentMode} again.
   */
  boolean secondEnded(long now, List<SecondReport> running);

  /** The algorithm in force, for the per-second timeline. */
  Algorithm algorithm();

  /** Every algorithm change so far, oldest first. */
  List<AlgorithmSwitch> switches();

  /**
   * Each present VM's proportional share by vGPU: the shares in force under proportional share, the ones that will
   * be used again under SLA-aware (hybrid), none for a policy that never shares ({@code vgris-sla}).
   */
  SortedMap<Integer, Double> shares();

  /** The mode of a VM's agent under any GPU policy: a policy that is no {@link PresentGate} passes Present through. */
  static PresentMode presentModeOf(GpuPolicy policy, int vgpu) {
    return policy instanceof PresentGate gate ? gate.presentMode(vgpu) : new PresentMode.PassThrough();
  }
}
