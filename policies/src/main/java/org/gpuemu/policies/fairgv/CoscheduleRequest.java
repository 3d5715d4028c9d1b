package org.gpuemu.policies.fairgv;

import java.util.OptionalInt;

/**
 * FairGV's GPU-centric coscheduling request (fairgv.txt Algorithm 3, §4.3), from the GPU scheduler to the CPU
 * scheduler: the GPU has just switched to an interactive vGPU, so its vCPU should run now. The CPU side handles it
 * by Algorithm 4 ({@link CpuCoscheduling#algorithm4}).
 *
 * @param vgpu  the vGPU the GPU switched to (also its VM's index)
 * @param vcpu  the vCPU the frontend tagged the vGPU's latest request with (§3.2.3: "The frontend sends its CPU
 *              number ... when it submits GPU requests"); empty when none was tagged, in which case the vCPU
 *              running the VM's main program is meant
 * @param nanos emulated time of the switch
 */
public record CoscheduleRequest(int vgpu, OptionalInt vcpu, long nanos) {}
