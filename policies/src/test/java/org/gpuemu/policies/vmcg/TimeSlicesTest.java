package org.gpuemu.policies.vmcg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.gpuemu.policies.vmcg.TimeSlices.Turn;
import org.junit.jupiter.api.Test;

class TimeSlicesTest {
  private static final long MS = 1_000_000;

  private final TimeSlices slices = new TimeSlices(16 * MS, MS);

  private static SortedMap<Integer, Long> cpu(long... nanos) {
    SortedMap<Integer, Long> map = new TreeMap<>();
    for (int v = 0; v < nanos.length; v++) {
      map.put(v, nanos[v]);
    }
    return map;
  }

  @Test
  void algorithm1_paperExample_cpuTimesProportionalTo34_33_33_give16_15_15ms() {
    // §6.3: "VMCG allocates 16 ms, 15 ms, and 15 ms to DomU1, DomU2, and DomU3": 33/34 × 16 ms = 15.53 ms, cut to
    // whole milliseconds (rounding would give 16).
    assertEquals(List.of(new Turn(0, 16 * MS), new Turn(1, 15 * MS), new Turn(2, 15 * MS)),
        slices.turns(cpu(34 * MS, 33 * MS, 33 * MS)));
  }

  @Test
  void algorithm1_sortsByCpuTimeDescending_theLargestGets16ms() {
    // cpu_t = 5, 20, 10 ms: order 1, 2, 0; t = 16, 10/20 × 16 = 8, 5/20 × 16 = 4 ms.
    assertEquals(List.of(new Turn(1, 16 * MS), new Turn(2, 8 * MS), new Turn(0, 4 * MS)),
        slices.turns(cpu(5 * MS, 20 * MS, 10 * MS)));
  }

  @Test
  void algorithm1_tiesKeepVgpuOrder() {
    assertEquals(List.of(new Turn(1, 16 * MS), new Turn(0, 8 * MS), new Turn(2, 8 * MS)),
        slices.turns(cpu(3 * MS, 6 * MS, 3 * MS)));
  }

  @Test
  void withNoCpuTimeMeasured_everyVmGetsTheLargestSlice() {
    assertEquals(List.of(new Turn(0, 16 * MS), new Turn(1, 16 * MS)), slices.turns(cpu(0, 0)));
  }

  @Test
  void aSliceIsAtLeastOneGranule() {
    // 1 µs against 1 s of CPU: 16 ns, raised to 1 ms so the VM still gets the engine for its CRBs.
    assertEquals(List.of(new Turn(1, 16 * MS), new Turn(0, MS)), slices.turns(cpu(1_000, 1_000 * MS)));
  }

  @Test
  void slicesAreExact_evenForHugeCpuTimes() {
    // 15/16 of 16 ms is exactly 15 ms: no floating-point 14.999... cut down to 14. Hours of CPU do not overflow.
    long hour = 3_600_000 * MS;
    assertEquals(List.of(new Turn(1, 16 * MS), new Turn(0, 15 * MS)), slices.turns(cpu(15 * hour, 16 * hour)));
  }

  @Test
  void granularityAboveTheLargestSlice_isRejected() {
    assertThrows(IllegalArgumentException.class, () -> new TimeSlices(MS, 2 * MS));
    assertThrows(IllegalArgumentException.class, () -> new TimeSlices(MS, 0));
  }
}
