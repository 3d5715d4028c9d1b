package org.gpuemu.policies.fairgv;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class CpuCoschedulingTest {
  @Test
  void algorithm4_wakesAnIdleVcpu_thenTicklesItsCore() {
    assertEquals(List.of(new CpuCoscheduling.Action.Wake(7), new CpuCoscheduling.Action.Reschedule(2)),
        CpuCoscheduling.algorithm4(7, 2, true));
  }

  @Test
  void algorithm4_onlyTicklesTheCore_ofARunnableVcpu() {
    assertEquals(List.of(new CpuCoscheduling.Action.Reschedule(2)), CpuCoscheduling.algorithm4(7, 2, false));
  }
}
