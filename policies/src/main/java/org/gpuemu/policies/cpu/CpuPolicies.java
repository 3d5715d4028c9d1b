package org.gpuemu.policies.cpu;

import java.util.List;
import org.gpuemu.policies.spi.Param;
import org.gpuemu.policies.spi.PolicyProvider;
import org.gpuemu.policies.spi.PolicySpec;

/** The built-in CPU scheduling policies for a physical core, registered through the plugin interface. */
public final class CpuPolicies implements PolicyProvider {
  @Override public List<PolicySpec<?>> policies() {
    return List.of(
        PolicySpec.cpu(WeightedFairPolicy.NAME,
            "CFS-like weighted fair share: smallest virtual runtime first, slices of the period by weight",
            WeightedFairPolicy::new)
            .param(Param.duration("period", "6ms", "CFS target latency: every runnable vCPU runs once per period"),
                Param.duration("min-granularity", "750us", "shortest slice"),
                Param.duration("wakeup-granularity", "1ms",
                    "a woken vCPU preempts the running one when that one is this far ahead (CFS)")));
  }
}
