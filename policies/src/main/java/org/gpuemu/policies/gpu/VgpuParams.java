package org.gpuemu.policies.gpu;

/**
 * What a GPU policy knows about a vGPU when it joins.
 *
 * @param vgpu   dense index of the vGPU (0..n-1), also its VM's index
 * @param name   the VM's name, for reasons and traces
 * @param weight relative weight (> 0)
 * @param share  the VM's GPU share for proportional sharing, in (0, 1]; {@link #UNSET_SHARE} (NaN) when the
 *               scenario set none, so the VM splits what the others left (VGRIS §4.2 sets 0.3 and 0.5, sum 0.8)
 * @param slaFps the frame rate the VM's SLA asks for (&gt; 0; VGRIS §4: 30 FPS); its target frame latency is 1/slaFps
 */
public record VgpuParams(int vgpu, String name, int weight, double share, double slaFps) {
  /** The share of a VM whose scenario set none. */
  public static final double UNSET_SHARE = Double.NaN;
  /** The SLA frame rate of a VM whose scenario set none (VGRIS's 30 FPS criteria). */
  public static final double DEFAULT_SLA_FPS = 30.0;

  public VgpuParams {
    if (!Double.isNaN(share) && !(share > 0 && share <= 1)) {
      throw new IllegalArgumentException("VM " + name + ": share must be in (0, 1] or unset, got " + share);
    }
    if (!(slaFps > 0) || Double.isInfinite(slaFps)) {
      throw new IllegalArgumentException("VM " + name + ": SLA FPS must be a finite number > 0, got " + slaFps);
    }
  }

  /** A VM without a share and with the default SLA of {@value #DEFAULT_SLA_FPS} FPS. */
  public VgpuParams(int vgpu, String name, int weight) {
    this(vgpu, name, weight, UNSET_SHARE, DEFAULT_SLA_FPS);
  }

  /** Whether the scenario set this VM's share. */
  public boolean hasShare() {
    return !Double.isNaN(share);
  }
}
