package org.gpuemu.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class StepLoopTest {
  private static final long US = 1_000;

  @Test
  void soloRate_isRequestsPerIterationOverItsSerialLength() {
    StepLoop loop = new StepLoop("t", "t", List.of(new Step.CpuBurst(100 * US),
        new Step.LaunchKernel(KernelSpec.cd("k", 300 * US)), new Step.SyncCall(KernelSpec.cd("copy", 50 * US)),
        new Step.Sleep(50 * US)));
    // 2 requests in 100 + 300 + 50 + 50 = 500 us
    assertEquals(4_000, loop.soloRequestsPerSecond().getAsDouble(), 1e-9);
  }

  @Test
  void soloRate_isEmptyWithoutGpuRequests_andForGames() {
    assertTrue(new StepLoop("t", "t", List.of(new Step.CpuBurst(US))).soloRequestsPerSecond().isEmpty());
    assertTrue(WorkloadCatalog.get("dirt3").soloRequestsPerSecond().isEmpty());
  }
}
