/**
 * GPU time sharing: which queued request goes to the GPU next. A {@link org.gpuemu.policies.gpu.GpuPolicy} hears
 * that a vGPU queued a request or that one completed and answers with a {@link
 * org.gpuemu.policies.gpu.GpuDecision} (dispatch this request, stay idle until the next event, or wake at a given
 * emulated time); the GpuScheduler actor does the dispatching. Policies are found by name in {@link
 * org.gpuemu.policies.gpu.GpuPolicies}; the baselines here are the default driver's global FCFS queue ({@code
 * fcfs}) and gVirt's round robin ({@code round-robin}); the VGRIS policies ({@code vgris-sla}, {@code vgris-share},
 * {@code vgris-hybrid}) live in {@code org.gpuemu.policies.vgris}, VMCG and its gVirt baseline ({@code vmcg},
 * {@code gvirt}) in {@code org.gpuemu.policies.vmcg}, FairGV and its baselines ({@code fairgv}, {@code credit-poll},
 * {@code credit-hs}, {@code strict-co}) in {@code org.gpuemu.policies.fairgv}. Every policy checks that no request
 * is lost or run twice.
 */
package org.gpuemu.policies.gpu;
