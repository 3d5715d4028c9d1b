package org.gpuemu.policies.gpu;

/**
 * What a GPU policy knows about a vGPU when it joins.
 *
 * @param vgpu   dense index of the vGPU (0..n-1), also its VM's index
 * @param name   the VM's name, for reasons and traces
 * @param weight relative weight (> 0)
 */
public record VgpuParams(int vgpu, String name, int weight) {}
