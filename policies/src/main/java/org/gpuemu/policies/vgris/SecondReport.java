package org.gpuemu.policies.vgris;

/**
 * One running VM's performance over the second that just ended, as its agent reports it to the controller.
 *
 * @param vgpu     the VM's vGPU
 * @param fps      frames presented in that second
 * @param gpuUsage fraction of the GPU's time the VM's requests used in that second (0 = none, 1 = all of it)
 */
public record SecondReport(int vgpu, double fps, double gpuUsage) {
  public SecondReport {
    if (!(fps >= 0) || Double.isInfinite(fps)) {
      throw new IllegalArgumentException("vGPU " + vgpu + ": FPS must be finite and >= 0, got " + fps);
    }
    if (!(gpuUsage >= 0) || Double.isInfinite(gpuUsage)) {
      throw new IllegalArgumentException("vGPU " + vgpu + ": GPU usage must be finite and >= 0, got " + gpuUsage);
    }
  }
}
