package org.gpuemu.emulator.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.gpuemu.workloads.WorkloadCatalog;
import org.junit.jupiter.api.Test;

/** Analytic ideals, from the catalog's own figures. */
class IdealTest {

  @Test
  void cudaLoop_isCpuThenEveryKernelBackToBack() {
    // 50 us CPU + 2 x 200 us + 100 us = 550 us per iteration of 3 kernels, the GPU busy 500 of them.
    Ideal ideal = Ideal.of(WorkloadCatalog.get("cuda-loop"));
    assertEquals("kernels/s", ideal.unit());
    assertEquals(3 / 550e-6, ideal.perSecond(), 1e-6);
    assertEquals(500.0 / 550.0, ideal.gpuUsage(), 1e-12);
    assertEquals(50_000, ideal.shortestStepNanos());
  }

  @Test
  void syncLoop_isOneRoundTripOf11Microseconds() {
    Ideal ideal = Ideal.of(WorkloadCatalog.get("sync-loop"));
    assertEquals(1e9 / 11_000, ideal.perSecond(), 1e-6);
    assertEquals(1_000, ideal.shortestStepNanos());
  }

  @Test
  void gpuBoundGame_runsAtItsGpuRate_withTheGpuAlwaysBusy() {
    // PostProcess: 1/158 s of GPU per frame in 3 batches of whole nanoseconds; CPU 0.5 ms and no pacing.
    Ideal ideal = Ideal.of(WorkloadCatalog.get("postprocess"));
    assertEquals("fps", ideal.unit());
    assertEquals(158.0, ideal.perSecond(), 1e-4);
    assertEquals(1.0, ideal.gpuUsage(), 1e-12);
  }

  @Test
  void benchGame_runsAt60Fps_andItsShortestStepIsTheCpuBurst() {
    Ideal ideal = Ideal.of(WorkloadCatalog.get("game-60fps"));
    assertEquals(60.0, ideal.perSecond(), 1e-5);
    assertEquals(2_000_000, ideal.shortestStepNanos(), "2 ms of CPU; the pacing sleep is longer");
    assertEquals(0.0006, ideal.gpuUsage(), 1e-6);
  }

  @Test
  void gamesWithScenesOrPhases_haveNoAnalyticIdeal() {
    assertThrows(IllegalArgumentException.class, () -> Ideal.of(WorkloadCatalog.get("dirt3")));
    assertThrows(IllegalArgumentException.class, () -> Ideal.of(WorkloadCatalog.get("3dmark05")));
  }
}
