/**
 * FairGV (Hong et al., "FairGV: Fair and Fast GPU Virtualization", fairgv.txt §3, §5) and its baselines, as pure
 * policies. {@link org.gpuemu.policies.fairgv.FairgvPolicy} ({@code fairgv}) is fair queuing over vGPUs by start
 * tags ({@link org.gpuemu.policies.fairgv.StartTags}), work conserving by hybrid spinning, collaborative scheduling
 * with accounting and sampling on non-preemptive GPUs ({@link org.gpuemu.policies.fairgv.CollaborativeTurn}),
 * kernel slicing ({@link org.gpuemu.policies.fairgv.KernelSlicing}) and GPU-centric coscheduling of CPU-GPU
 * interactive vGPUs ({@link org.gpuemu.policies.fairgv.InteractivityMonitor}, Algorithms 3–4: the GpuScheduler
 * takes {@link org.gpuemu.policies.fairgv.CoscheduleRequest}s through {@link
 * org.gpuemu.policies.fairgv.GpuCentricCoscheduling} and the CPU side applies {@link
 * org.gpuemu.policies.fairgv.CpuCoscheduling}). The baselines are Xen's credit scheduler on vGPUs ({@link
 * org.gpuemu.policies.fairgv.CreditPolicy}: {@code credit-poll}, {@code credit-hs}, differing only in how guests
 * wait, {@link org.gpuemu.policies.fairgv.GuestWaitRule}) and Pegasus's strict coscheduling ({@link
 * org.gpuemu.policies.fairgv.StrictCoPolicy}: {@code strict-co}, Algorithms 1–2 through {@link
 * org.gpuemu.policies.fairgv.CpuCentricCoscheduling}). {@link org.gpuemu.policies.fairgv.FairnessMetrics} computes
 * the paper's normalized throughput, Min-Max Ratio and aggregated overhead. FairGV's per-vGPU memory caps (§6) are
 * the {@code static} memory policy.
 */
package org.gpuemu.policies.fairgv;
