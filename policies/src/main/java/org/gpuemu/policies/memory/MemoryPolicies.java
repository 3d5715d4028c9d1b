package org.gpuemu.policies.memory;

import java.util.ArrayList;
import java.util.List;
import org.gpuemu.policies.gballoon.GballoonPolicy;
import org.gpuemu.policies.gballoon.GvirtStaticPolicy;
import org.gpuemu.policies.spi.Param;
import org.gpuemu.policies.spi.PolicyInput;
import org.gpuemu.policies.spi.PolicyProvider;
import org.gpuemu.policies.spi.PolicySpec;

/** The built-in GPU memory policies, registered through the plugin interface. */
public final class MemoryPolicies implements PolicyProvider {
  /** Parameters every slot policy (static-384 ... static-2048, gballoon) shares: gballoon.txt Table 1, §2.1, §3.2. */
  static List<Param> gvtgSlots() {
    return List.of(
        Param.bytes("low-memory", "256MiB", "the host's low global graphics memory (Table 1)"),
        Param.bytes("high-memory", "3840MiB", "the host's high global graphics memory (Table 1)"),
        Param.bytes("dom0-high-memory", "384MiB",
            "high memory Dom0 keeps (Table 1); guests share the rest: 3456MiB, 54 slots"),
        Param.bytes("guest-low-memory", "64MiB",
            "low memory every guest gets: one range all guests share, copied like a slot (§4)"),
        Param.bytes("slot", "64MiB", "guests' high memory is handed out and shared in slots of this size (§2.1)"),
        // calibrated on the emulated Figure 2 (1024 MB 3.5x slower than 384 MB in 6 and 9 VMs), see CopyCost
        Param.duration("copy-per-slot", "3.76ms",
            "CPU time to copy one slot's 16,384 GTT entries at a vGPU context switch; calibrated on Figure 2"),
        Param.duration("period", "500ms", "profiling period t: W, Rcopy and f(W, Rcopy) every 0.5 s (§3.2)"),
        // Table 1's 15 guests of 2 vCPUs always runnable on 8 cores each wait 22/30 of the time, 30 x 22/30 = 2200 %
        Param.real("max-w", 2200.0, "largest W (Eq. 2, %), alpha = 1/max-w: Table 1's 15 guests on 8 cores"),
        // one CPU copies (§3.2), so at most t of t x N: 100 % / 8 CPUs (Table 1)
        Param.real("max-rcopy", 12.5, "largest Rcopy (Eq. 1, %), beta = 1/max-rcopy: one CPU copies, 100 % / 8 CPUs"));
  }

  @Override public List<PolicySpec<?>> policies() {
    List<PolicySpec<?>> specs = new ArrayList<>();
    specs.add(PolicySpec.memory(StaticCapPolicy.NAME,
        "static per-VM allocation with a hard cap; beyond it allocations are rejected (FairGV §6)",
        StaticCapPolicy::new));
    // gVirt with gScale's slot sharing at a fixed GVT-g type (gballoon.txt §2, §4: gVirt-384 and gVirt-1024): every
    // VM gets the type's high memory as a range of shared slots when it joins and keeps it.
    for (int mib : GvirtStaticPolicy.TYPES_MIB) {
      specs.add(PolicySpec.memory(GvirtStaticPolicy.nameOf(mib),
          "gVirt-" + mib + ": " + mib + " MiB of high memory per VM in shared 64 MiB slots, GTT copies at switches "
              + "(gBalloon §2, §4)",
          params -> new GvirtStaticPolicy(params, mib))
          .params(gvtgSlots())
          .needs(PolicyInput.GTT_COPIES));
    }
    specs.add(PolicySpec.memory(GballoonPolicy.NAME,
        "gBalloon: slots expand on lack of memory, shrink by f(W, Rcopy) every 0.5 s, Algorithm 1 (gBalloon §3)",
        GballoonPolicy::new)
        .params(gvtgSlots())
        .param(Param.bytes("initial-high-memory", "384MiB",
                "every VM's high memory when it joins (§4.4: 384 MB), whole slots; never less"),
            Param.real("threshold-low", 0.5, "f(W, Rcopy) below it: approve every expansion, reduce nothing (§3.2)"),
            Param.real("threshold-high", 1.0,
                "f above it: refuse expansions, take two slots regardless of usage (§3.2)"),
            Param.integer("expansion-slots", 1, "most slots one expansion adds (§4.4: \"the slots are increased one by one\")"),
            Param.integer("between-reduction-slots", 1,
                "unused slots taken per period between the thresholds (the paper gives none)"),
            Param.integer("above-reduction-slots", 2,
                "slots taken per period above threshold-high (§3.2: \"two 64 MB slots\")"))
        .needs(PolicyInput.GTT_COPIES));
    return List.copyOf(specs);
  }
}
