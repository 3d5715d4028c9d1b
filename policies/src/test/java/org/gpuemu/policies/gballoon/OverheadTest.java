package org.gpuemu.policies.gballoon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.gpuemu.policies.gballoon.Overhead.VcpuTime;
import org.junit.jupiter.api.Test;

class OverheadTest {
  private static final long MS = 1_000_000L;

  @Test
  void eq1_rcopy_isCopyTimeOverPeriodTimesCpus() {
    // 250 ms of copying in a 0.5 s period on Table 1's 8 CPUs: 250 / (500 x 8) = 6.25 %.
    assertEquals(6.25, Overhead.rcopy(250 * MS, 500 * MS, 8), 1e-12);
    // One CPU copying the whole period is the most R_copy can be: 100 % / N.
    assertEquals(12.5, Overhead.rcopy(500 * MS, 500 * MS, 8), 1e-12);
    assertEquals(0, Overhead.rcopy(0, 500 * MS, 8));
  }

  @Test
  void eq2_w_sumsEveryVcpusStealRate_notTheirMean() {
    // 100 ms stolen of 400 ms is 25 %; two such vCPUs give 50 %, a third that never waited adds 0, and one with no
    // time at all adds nothing.
    List<VcpuTime> vcpus = List.of(new VcpuTime(100 * MS, 300 * MS), new VcpuTime(100 * MS, 300 * MS),
        new VcpuTime(0, 400 * MS), new VcpuTime(0, 0));
    assertEquals(50, Overhead.w(vcpus), 1e-12);
    // Always waiting counts 100 % per vCPU: 30 such vCPUs give 3000 %.
    assertEquals(3000, Overhead.w(java.util.Collections.nCopies(30, new VcpuTime(MS, 0))), 1e-9);
  }

  @Test
  void eq3_f_weighsWAndRcopyByTheReciprocalsOfTheirMaxima() {
    // Half of each maximum gives 0.5 + 0.5; both at their maxima give 2, the top of f's range.
    assertEquals(1.0, Overhead.f(1100, 6.25, 2200, 12.5), 1e-12);
    assertEquals(2.0, Overhead.f(2200, 12.5, 2200, 12.5), 1e-12);
    assertEquals(0.25, Overhead.f(0, 3.125, 2200, 12.5), 1e-12);
    assertThrows(IllegalArgumentException.class, () -> Overhead.f(1, 1, 0, 12.5));
  }

  @Test
  void bands_splitAtThresholds_aThresholdItselfIsNotAbove() {
    assertEquals(Band.BELOW_LOW, Band.of(0.4999, 0.5, 1.0));
    assertEquals(Band.BETWEEN, Band.of(0.5, 0.5, 1.0));
    assertEquals(Band.BETWEEN, Band.of(1.0, 0.5, 1.0));
    assertEquals(Band.ABOVE_HIGH, Band.of(1.0001, 0.5, 1.0));
    assertEquals(Band.BELOW_LOW, Band.of(0, 0.5, 1.0));
    assertThrows(IllegalArgumentException.class, () -> Band.of(0.7, 1.0, 0.5));
  }

  @Test
  void inputs_mustBeMeaningful() {
    assertThrows(IllegalArgumentException.class, () -> Overhead.rcopy(-1, 500 * MS, 8));
    assertThrows(IllegalArgumentException.class, () -> Overhead.rcopy(0, 0, 8));
    assertThrows(IllegalArgumentException.class, () -> Overhead.rcopy(0, 500 * MS, 0));
    assertThrows(IllegalArgumentException.class, () -> new VcpuTime(-1, 0));
  }
}
