package org.gpuemu.policies.gpu;

import java.util.SortedSet;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.PolicyRegistry;
import org.gpuemu.policies.fairgv.CreditPolicy;
import org.gpuemu.policies.fairgv.FairgvPolicy;
import org.gpuemu.policies.fairgv.StrictCoPolicy;
import org.gpuemu.policies.vgris.VgrisPolicy;
import org.gpuemu.policies.vmcg.GvirtBaseline;
import org.gpuemu.policies.vmcg.VmcgPolicy;

/** The one registry of GPU time-sharing policies; scenario files name them in {@code policy}. */
public final class GpuPolicies {
  private static final PolicyRegistry<GpuPolicy> REGISTRY = PolicyRegistry.<GpuPolicy>builder("GPU policy")
      .add(FcfsPolicy.NAME,
          "one global first-come first-serve queue, the default driver sharing (VGRIS §2.2, gVirt in VMCG §2)",
          FcfsPolicy::new)
      .add(RoundRobinPolicy.NAME,
          "gVirt round robin: each vGPU owns the GPU for a time slice, switching after the GPU drains (VMCG §2, §5.1)",
          RoundRobinPolicy::new)
      .add(VgrisPolicy.SLA_AWARE,
          "VGRIS SLA-aware: each VM sleeps before Present to hold its SLA frame latency; FCFS dispatch (VGRIS §3.2)",
          VgrisPolicy::slaAware)
      .add(VgrisPolicy.PROPORTIONAL_SHARE,
          "VGRIS proportional share: a VM presents only while its Eq. 1 budget is positive; FCFS dispatch (§3.2)",
          VgrisPolicy::proportionalShare)
      .add(VgrisPolicy.HYBRID,
          "VGRIS hybrid: Algorithm 1 switches between SLA-aware and proportional share, Eq. 2 shares (VGRIS §3.2)",
          VgrisPolicy::hybrid)
      .add(GvirtBaseline.NAME,
          "gVirt as VMCG measures it: one FCFS CRB queue in Dom0, 16 ms round-robin slices (VMCG §1-2, §5.1)",
          GvirtBaseline::create)
      .add(VmcgPolicy.NAME,
          "VMCG: a V-Channel per VM, Eq. 2 credits, slices from CPU time, 4 CRBs per credit (VMCG Algorithm 1)",
          VmcgPolicy::new)
      .add(FairgvPolicy.NAME,
          "FairGV: fair queuing by start tags, work conserving, GPU-centric coscheduling, collaborative turns (§3)",
          FairgvPolicy::new)
      .add(CreditPolicy.POLL,
          "Xen credit scheduling of vGPUs on a time slice, guests polling for responses (FairGV §5.3)",
          CreditPolicy::poll)
      .add(CreditPolicy.HYBRID_SPIN,
          "Xen credit scheduling of vGPUs on a time slice, guests hybrid-spinning for responses (FairGV §5.3)",
          CreditPolicy::hybridSpin)
      .add(StrictCoPolicy.NAME,
          "Pegasus strict coscheduling: credit, CPU-requested vGPU switches under a fairness check (FairGV Alg. 1-2)",
          StrictCoPolicy::new)
      .build();

  private GpuPolicies() {}

  /** A new policy by registry name; an unknown name fails listing the valid ones. */
  public static GpuPolicy create(String name, PolicyParams params) {
    return REGISTRY.create(name, params);
  }

  /** Every registered name, sorted. */
  public static SortedSet<String> names() {
    return REGISTRY.names();
  }

  /** One line describing a registered policy. */
  public static String describe(String name) {
    return REGISTRY.describe(name);
  }
}
