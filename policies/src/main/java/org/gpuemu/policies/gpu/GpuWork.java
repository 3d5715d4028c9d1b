package org.gpuemu.policies.gpu;

/**
 * One request on a vGPU's request ring as the GPU scheduler sees it.
 *
 * @param id          unique per run
 * @param vgpu        the vGPU that queued it
 * @param soloNanos   emulated duration alone on the whole GPU (what the policy may predict or account)
 * @param queuedNanos emulated time it was queued
 * @param sync        whether a vCPU is blocked waiting for it
 */
public record GpuWork(long id, int vgpu, long soloNanos, long queuedNanos, boolean sync) {}
