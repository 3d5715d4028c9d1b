/**
 * GPU-aware placement of VMs on the hosts of a GPU cloud: which host, and which of its GPUs, a VM goes to
 * when it arrives. Plain Java like every policy: a {@link org.gpuemu.policies.placement.PlacementPolicy} sees the VM's
 * request and each GPU's free capacity ({@link org.gpuemu.policies.placement.Candidate}) and decides; the
 * {@link org.gpuemu.policies.placement.PlacementPlan} keeps the reservations over time and asks the policy in model
 * time order, so that the same arrivals give the same placement in every run.
 */
package org.gpuemu.policies.placement;
