package org.gpuemu.policies.vmcg;

import org.gpuemu.policies.ParamChecks;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.gpu.GpuPolicy;
import org.gpuemu.policies.gpu.RoundRobinPolicy;

/**
 * {@code gvirt}: gVirt as VMCG measures it (vmcg.txt §1, §2.1, §5.1). All VMs' CRBs go into one queue in Dom0, "a
 * request block is scheduled in its arrival sequence", and gVirt's scheduler gives the render engine to one vGPU at
 * a time for a 16 ms slice, switching only once the engine is idle. That is a {@link RoundRobinPolicy} whose next
 * owner is the VM whose oldest CRB arrived first ({@link RoundRobinPolicy.TurnOrder#OLDEST_REQUEST}: the head of
 * the shared FCFS queue decides whose turn it is) and which puts no limit on how many CRBs a VM submits in its slice
 * ("each DomU may issue as many GPU command request blocks as it wants"). The owner submits its own CRBs in arrival
 * order. Weights are ignored, as in the paper's gVirt, where 1:1:1 weights still gave 81-122, 109-284 and 30-46 FPS.
 *
 * <p>Why identical VMs end up unequal (Figure 9), as the emulator models it; the paper names the ingredients (a
 * shared FCFS queue, "each DomU may issue as many CRBs as it wants", CRBs "submitted through the host CPU domain",
 * a GPU scheduler "separated from the CPU scheduler") but not how they combine, so this is an interpretation. The
 * owner keeps the engine for up to 16 ms only while it keeps the shared queue supplied; once its CRBs run out it
 * loses the engine, and the VM whose CRB has waited longest takes it. A VM keeps up only if its vCPU computes the
 * next frame as fast as the GPU renders the last, i.e. if it has its core when its Present returns. The DomUs have
 * one vCPU each and their Direct3D runtime spins while Present waits (scenario {@code present-wait = poll}); a VM
 * whose vCPU shares a core with another's waits for that spinning neighbour, drains its queue early and loses the
 * rest of its slice, while a VM with a core of its own holds the engine for its full slice. So GPU time follows
 * where the vCPUs happen to run. VMCG's four CRBs per VM per round (Algorithm 1) ask a VM only to have four CRBs
 * ready once per round, which the slower VMs manage, so there the same placement leaves the VMs equal.
 *
 * <p>Parameters: {@code slice} (nanos, &gt; 0; gVirt's 16 ms) and {@code max-inflight} (count, &gt; 0).
 */
public final class GvirtBaseline {
  /** Registry name. */
  public static final String NAME = "gvirt";

  private GvirtBaseline() {}

  /** Reads {@code slice} and {@code max-inflight}. */
  public static GpuPolicy create(PolicyParams params) {
    return new RoundRobinPolicy(NAME, ParamChecks.positiveNanos(params, NAME, RoundRobinPolicy.SLICE),
        Integer.MAX_VALUE, ParamChecks.positiveCount(params, NAME, RoundRobinPolicy.MAX_INFLIGHT),
        RoundRobinPolicy.TurnOrder.OLDEST_REQUEST);
  }
}
