package org.gpuemu.emulator.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import org.gpuemu.workloads.KernelType;
import org.junit.jupiter.api.Test;

class FluidModelTest {

  @Test
  void workNanos_scalesInverselyWithTheGroupsShareOfSms() {
    // a 1 ms kernel on half of an 82-SM GPU needs 2 ms of that group's time
    assertEquals(2_000_000.0, FluidModel.workNanos(1_000_000, 41, 82), 1e-6);
    assertEquals(1_000_000.0, FluidModel.workNanos(1_000_000, 82, 82), 1e-6);
  }

  @Test
  void alone_akernelRunsAtFullRate() {
    assertArrayEquals(new double[] {1.0}, FluidModel.sharedEqually().rates(List.of(KernelType.CD)), 1e-12);
  }

  @Test
  void sameType_coRunnersSerialise_eachAtOneOverN() {
    double[] r = FluidModel.sharedEqually().rates(List.of(KernelType.CD, KernelType.CD, KernelType.CD));
    assertArrayEquals(new double[] {1 / 3.0, 1 / 3.0, 1 / 3.0}, r, 1e-12);
  }

  @Test
  void differentTypes_overlapByTheTablesReduction() {
    // COMBO Table 3: CD+TC co-location cuts the makespan of the pair by 44.12 %
    FluidModel m = FluidModel.withReductions(Map.of("CD+TC", 0.4412));
    double[] r = m.rates(List.of(KernelType.TC, KernelType.CD));
    double each = 1.0 / (2 * (1 - 0.4412));
    assertArrayEquals(new double[] {each, each}, r, 1e-12);
    // two equal 1 ms kernels then finish together after 2 ms × (1 − 0.4412)
    assertEquals(2 * (1 - 0.4412), 1.0 / each, 1e-12);
    // same types still serialise under that table
    assertArrayEquals(new double[] {0.5, 0.5}, m.rates(List.of(KernelType.CD, KernelType.CD)), 1e-12);
  }

  @Test
  void reductionOutsideZeroToOne_isRejected() {
    assertThrows(IllegalArgumentException.class, () -> FluidModel.withReductions(Map.of("CD+RT", 1.0)));
  }
}
