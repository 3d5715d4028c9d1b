/**
 * VMCG (Tan et al., "A Virtual Multi-Channel GPU Fair Scheduling Method for Virtual Machines", vmcg.txt §3-6):
 * instead of gVirt's one CRB queue shared by all VMs, every VM has a V-Channel (pending queue and virtual ring) in
 * front of the shared physical ring. {@link org.gpuemu.policies.vmcg.VmcgPolicy} ({@code vmcg}) runs Algorithm 1:
 * time slices from CPU scheduling time ({@link org.gpuemu.policies.vmcg.TimeSlices}), credits from Eq. 1-2 ({@link
 * org.gpuemu.policies.vmcg.CreditModel}) kept in the credit1/credit2 arrays of §4.2 ({@link
 * org.gpuemu.policies.vmcg.CreditAccounts}), four CRBs per credit; the GpuScheduler actor feeds it CPU times and
 * resource shares through {@link org.gpuemu.policies.vmcg.VmcgInputs}. {@link
 * org.gpuemu.policies.vmcg.GvirtTbsPolicy} ({@code gvirt}) is the paper's baseline, XenGT's timer-based scheduler, and {@link
 * org.gpuemu.policies.vmcg.Fairness} its fairness metric λ.
 */
package org.gpuemu.policies.vmcg;
