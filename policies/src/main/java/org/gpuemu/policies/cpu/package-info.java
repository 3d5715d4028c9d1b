/**
 * CPU scheduling of one physical core among the vCPUs placed on it: a {@link
 * org.gpuemu.policies.cpu.CpuPolicy} hears that vCPUs became runnable, blocked or ran, and picks which vCPU runs
 * next for how long ({@link org.gpuemu.policies.cpu.CpuDecision}). The GPU papers' effects (a vCPU descheduled
 * while its guest waits on the GPU, coscheduling) depend on this layer, so it is a policy like the GPU ones, found
 * by name in {@link org.gpuemu.policies.cpu.CpuPolicies}; {@code weighted-fair} is the CFS-like host default.
 */
package org.gpuemu.policies.cpu;
