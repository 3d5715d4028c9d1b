package org.example;

import java.util.List;
import org.gpuemu.policies.spi.Param;
import org.gpuemu.policies.spi.PolicyProvider;
import org.gpuemu.policies.spi.PolicySpec;

/** Registers fair-gpu-time with the emulator (listed in META-INF/services). */
public final class FairGpuTimeProvider implements PolicyProvider {
  @Override public List<PolicySpec<?>> policies() {
    return List.of(PolicySpec.gpu(FairGpuTimePolicy.NAME,
            "fair GPU time: start-time fair queuing on each request's estimated GPU time",
            FairGpuTimePolicy::new)
        .param(Param.integer("max-inflight", 2, "requests handed to the GPU but not finished")));
  }
}
