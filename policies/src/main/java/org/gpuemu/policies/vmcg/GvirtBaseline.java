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
