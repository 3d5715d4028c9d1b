package org.gpuemu.policies.vmcg;

/**
 * A VM's V-Channel and credits at one moment, for timelines and tests.
 *
 * @param vgpu          the VM's vGPU
 * @param pendingCrbs   req[i] (GPUCRB_i): CRBs in its pending queue
 * @param ringCrbs      CRBs in its virtual ring, sent but not yet on the GPU
 * @param credits       credit1[i] (RMNC_i): credits left
 * @param reallocated   credit2[i] (RALC_i): credits at its last reallocation
 * @param sliceNanos    its time slice in the current polling period (Algorithm 1)
 * @param entitledNanos TIME_i of Eq. 1: its part of the current interval TIME_G
 */
public record ChannelState(int vgpu, int pendingCrbs, int ringCrbs, long credits, long reallocated, long sliceNanos,
    long entitledNanos) {}
