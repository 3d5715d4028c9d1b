/**
 * VGRIS (Yu et al., "VGRIS: Virtualized GPU Resource Isolation and Scheduling in Cloud Gaming", §3): GPU sharing
 * between game VMs controlled not by reordering the driver's queue (requests are still dispatched first come,
 * first served) but by deciding when each VM's {@code Present} may go. SLA-aware scheduling paces each VM to its
 * target frame latency ({@link org.gpuemu.policies.vgris.SlaPacer}, {@link
 * org.gpuemu.policies.vgris.PresentCostPredictor}); proportional share holds a Present back while the VM's
 * posterior-enforcement budget is spent ({@link org.gpuemu.policies.vgris.ShareBudget}, Eq. 1); hybrid switches
 * between the two on per-second feedback ({@link org.gpuemu.policies.vgris.HybridController}, Algorithm 1, shares by
 * Eq. 2 in {@link org.gpuemu.policies.vgris.Shares}). {@link org.gpuemu.policies.vgris.VgrisPolicy} is the GPU
 * policy behind {@code vgris-sla}, {@code vgris-share} and {@code vgris-hybrid}; the GpuScheduler actor (VGRIS's
 * controller) drives it through {@link org.gpuemu.policies.vgris.PresentGate}, and each VM's agent applies the
 * {@link org.gpuemu.policies.vgris.PresentMode} it is told.
 */
package org.gpuemu.policies.vgris;
