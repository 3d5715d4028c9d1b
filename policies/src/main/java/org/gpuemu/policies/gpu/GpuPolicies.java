package org.gpuemu.policies.gpu;

import java.util.List;
import java.util.stream.Stream;
import org.gpuemu.policies.fairgv.CreditPolicy;
import org.gpuemu.policies.fairgv.FairgvPolicy;
import org.gpuemu.policies.fairgv.StrictCoPolicy;
import org.gpuemu.policies.spi.Param;
import org.gpuemu.policies.spi.PolicyInput;
import org.gpuemu.policies.spi.PolicyProvider;
import org.gpuemu.policies.spi.PolicySpec;
import org.gpuemu.policies.vgris.VgrisPolicy;
import org.gpuemu.policies.vmcg.GvirtTbsPolicy;
import org.gpuemu.policies.vmcg.VmcgPolicy;

/**
 * The built-in GPU time-sharing policies, registered through the plugin interface like any other provider's.
 * Scenario files name them in {@code scheduler.gpu.policy}; each parameter's default and its source are here.
 */
public final class GpuPolicies implements PolicyProvider {
  private static Param maxInflight(long n) {
    return Param.integer("max-inflight", n, "depth of the hardware queue: requests handed to the GPU but not finished");
  }

  private static List<Param> credit() {
    return List.of(
        Param.duration("slice", "30ms", "time slice (Xen's credit scheduler default; the paper gives none for vGPUs)"),
        Param.duration("accounting-period", "30ms", "credits are handed out by weight every period (Xen's 30 ms)"),
        Param.duration("idle-spin", "1ms", "a vGPU with an empty ring spins this long, then yields the GPU (as fairgv's)"),
        Param.integer("max-inflight", 16, "depth of the hardware queue; an unaccounted slice overruns by what it holds"));
  }

  @Override public List<PolicySpec<?>> policies() {
    return Stream.of(drivers(), vgris(), vmcg(), fairgv()).flatMap(List::stream).toList();
  }

  /** The drivers' own sharing: one FCFS queue, gVirt's round robin. */
  private static List<PolicySpec<?>> drivers() {
    return List.of(
        PolicySpec.gpu(FcfsPolicy.NAME,
            "one global first-come first-serve queue, the default driver sharing (VGRIS §2.2, gVirt in VMCG §2)",
            FcfsPolicy::new)
            .param(maxInflight(2)),
        PolicySpec.gpu(RoundRobinPolicy.NAME,
            "gVirt round robin: each vGPU owns the GPU for a time slice, switching after the GPU drains (VMCG §2, §5.1)",
            RoundRobinPolicy::new)
            .param(Param.duration("slice", "16ms", "gVirt's time slice"),
                Param.integer("max-kernels-per-slice", 64, "requests one vGPU may submit in a slice"),
                maxInflight(2)));
  }

  private static List<PolicySpec<?>> vgris() {
    Param vgrisInflight = Param.integer("max-inflight", 2, "depth of the hardware queue of the FCFS dispatch underneath");
    return List.of(
        // VGRIS (vgris.txt §3.2): requests are dispatched FCFS as by the driver; VGRIS decides when each VM may Present.
        PolicySpec.gpu(VgrisPolicy.SLA_AWARE,
            "VGRIS SLA-aware: each VM sleeps before Present to hold its SLA frame latency; FCFS dispatch (VGRIS §3.2)",
            VgrisPolicy::slaAware)
            .param(vgrisInflight,
                Param.integer("present-history", 20,
                    "Present costs averaged to predict the next one (\"the past twenty Present calls\")"))
            .needs(PolicyInput.PRESENT),
        PolicySpec.gpu(VgrisPolicy.PROPORTIONAL_SHARE,
            "VGRIS proportional share: a VM presents only while its Eq. 1 budget is positive; FCFS dispatch (§3.2)",
            VgrisPolicy::proportionalShare)
            .param(vgrisInflight,
                Param.duration("period", "1ms", "budget replenishment period t of Eq. 1 (the paper's 1 ms)"))
            .needs(PolicyInput.PRESENT),
        PolicySpec.gpu(VgrisPolicy.HYBRID,
            "VGRIS hybrid: Algorithm 1 switches between SLA-aware and proportional share, Eq. 2 shares (VGRIS §3.2)",
            VgrisPolicy::hybrid)
            .param(vgrisInflight,
                Param.integer("present-history", 20, "Present costs averaged to predict the next one, while SLA-aware"),
                Param.duration("period", "1ms", "budget replenishment period t of Eq. 1, while proportional share"),
                Param.real("fps-threshold", 30.0,
                    "FPSthres of Algorithm 1: a VM below it for `window` turns SLA-aware on"),
                Param.real("gpu-threshold", 0.9, "GPUthres: total GPU usage below it for `window` turns proportional "
                    + "share back on (the paper gives no number; 0.9 = more than a tenth of the GPU left idle)"),
                Param.duration("window", "5s", "Time of Algorithm 1, whole seconds (VMs report once a second)"))
            .needs(PolicyInput.PRESENT));
  }

  private static List<PolicySpec<?>> vmcg() {
    return List.of(
        // gVirt as VMCG ran it (vmcg.txt §2.1, §6.1: Xen 4.5.0, Linux 3.18.0, HD 4600): XenGT's timer-based
        // scheduler (intel/XenGT-Preview-kernel a71a2c7, drivers/gpu/drm/i915/vgt/sched.c), see GvirtTbsPolicy.
        PolicySpec.gpu(GvirtTbsPolicy.NAME,
            "gVirt (XenGT 3.18): a 15 ms timer hands the engine to the next vGPU with work, after the ring drains",
            GvirtTbsPolicy::new)
            .param(Param.duration("period", "15ms",
                    "timer period (XenGT vgt.h VGT_TBS_DEFAULT_PERIOD: 15 ms; 'HSW 15ms', the HD 4600 of vmcg §6.1)"),
                Param.integer("max-inflight", 64, "CRBs on the physical ring at once: XenGT submits all of the "
                    + "owner's held tail writes (MAX_CMD_BUDGET), so any bound above the guests' own (driver-queue)")),
        // VMCG (vmcg.txt §3-5): a V-Channel per VM, credits by Eq. 2, slices from CPU time, Algorithm 1.
        PolicySpec.gpu(VmcgPolicy.NAME,
            "VMCG: a V-Channel per VM, Eq. 2 credits, slices from CPU time, 4 CRBs per credit (VMCG Algorithm 1)",
            VmcgPolicy::new)
            .param(Param.duration("max-slice", "16ms",
                    "slice t_1 of the VM that used the most CPU; the k-th gets cpu_t[k]/cpu_t[1] of it"),
                Param.duration("slice-granularity", "1ms",
                    "slices are cut to whole multiples (33/34 x 16 ms = 15.5 ms is the paper's 15 ms)"),
                Param.integer("crbs-per-dispatch", 4,
                    "CRBs a VM sends to its virtual ring per dispatch, for one credit (CFQ's 4, §5.2)"),
                Param.integer("total-credits", 100, "CREDIT of Eq. 2 (the §6.3 example allocates 34 + 33 + 33)"),
                Param.integer("max-inflight", 2, "depth of the physical ring: CRBs handed to the GPU but not finished"))
            .needs(PolicyInput.CPU_TIME, PolicyInput.BUS_AND_MEMORY));
  }

  private static List<PolicySpec<?>> fairgv() {
    return List.of(
        // FairGV (fairgv.txt §3): fair queuing by start tags, work conserving, GPU-centric coscheduling of CPU-GPU
        // interactive vGPUs, collaborative scheduling on non-preemptive GPUs, kernel slicing. Guests hybrid-spin.
        PolicySpec.gpu(FairgvPolicy.NAME,
            "FairGV: fair queuing by start tags, work conserving, GPU-centric coscheduling, collaborative turns (§3)",
            FairgvPolicy::new)
            .param(Param.text("discipline", "non-preemptive",
                    "the GPU's: non-preemptive (collaborative turns, §3.3.2) | preemptive (timed turns)"),
                Param.duration("non-preemptive-slice", "6ms",
                    "time slice on a non-preemptive GPU (§3.2.1: 6 ms \"to improve the responsiveness\")"),
                Param.duration("preemptive-slice", "30ms",
                    "time slice on a preemptive GPU (§3.2.1: 30 ms against context-switch costs)"),
                Param.integer("samples", 5,
                    "requests timed one by one at the start of a turn (§3.3.2: \"5 in our system\")"),
                // §3.2.2: "after spinning 100K times". 100K iterations of a polling loop (a pause, about 10 cycles on
                // the testbed's Haswell Xeon E5-2620 v3, plus a load, compare and branch: about 24 cycles) at its
                // 2.4 GHz take about 1 ms. Guests keep their VM's spin-limit (docs/papers/fairgv.md: why not the same 1
                // ms).
                Param.duration("idle-spin", "1ms",
                    "a vGPU with an empty ring spins this long, then releases the GPU (§3.2.2: 100K spins, ~1 ms)"),
                Param.flag("work-conserving", true,
                    "false: an idle vGPU polls its ring until its slice is used up (Figure 10)"),
                Param.integer("interactive-sync-calls", 10,
                    "more synchronous calls than this per window make a vGPU interactive (§3.2.3)"),
                Param.duration("interactive-window", "10ms", "... \"more than 10 synchronous calls per 10 ms\""),
                Param.integer("max-inflight", 2,
                    "depth of the hardware queue while a turn's inferred requests run back to back"),
                Param.integer("slice-above-blocks", 360000,
                    "kernels with more thread blocks than this are sliced (600x600, §5.5.2)"),
                Param.integer("sub-kernel-blocks", 1500, "a sub-kernel has at least this many thread blocks (§5.5.2, Table 4)"))
            .needs(PolicyInput.GPU_COSCHEDULING, PolicyInput.KERNEL_SLICING, PolicyInput.GUEST_WAIT),
        // Xen's credit scheduler on vGPUs (fairgv.txt §5.3), guests polling (credit-poll) or hybrid-spinning (credit-hs).
        PolicySpec.gpu(CreditPolicy.POLL,
            "Xen credit scheduling of vGPUs on a time slice, guests polling for responses (FairGV §5.3)",
            CreditPolicy::poll)
            .params(credit())
            .needs(PolicyInput.GUEST_WAIT),
        PolicySpec.gpu(CreditPolicy.HYBRID_SPIN,
            "Xen credit scheduling of vGPUs on a time slice, guests hybrid-spinning for responses (FairGV §5.3)",
            CreditPolicy::hybridSpin)
            .params(credit())
            .needs(PolicyInput.GUEST_WAIT),
        // Pegasus strict coscheduling (fairgv.txt Algorithms 1-2) on credit scheduling; guests poll.
        PolicySpec.gpu(StrictCoPolicy.NAME,
            "Pegasus strict coscheduling: credit, CPU-requested vGPU switches under a fairness check (FairGV Alg. 1-2)",
            StrictCoPolicy::new)
            .params(credit())
            .needs(PolicyInput.CPU_COSCHEDULING, PolicyInput.GUEST_WAIT));
  }
}
