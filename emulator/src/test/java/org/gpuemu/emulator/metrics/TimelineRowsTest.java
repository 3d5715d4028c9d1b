package org.gpuemu.emulator.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Each VM's FPS range over the timeline's whole periods (summary.json vms.*.fps_min and fps_max: vmcg.txt's "varies
 * between 309 and 314 FPS"): a period cut short at the run's end does not count, and before a whole period there is
 * none.
 */
class TimelineRowsTest {
  private static final long MS = 1_000_000L;
  private static final List<MetricsHub.VmInfo> VMS =
      List.of(new MetricsHub.VmInfo(0, "a", 30, 1), new MetricsHub.VmInfo(1, "b", 30, 1));

  /** A period of 500 ms ending at {@code end} in which the VMs presented {@code a} and {@code b} frames. */
  private static void period(MetricsStore h, long end, long a, long b) {
    h.periodFrames[0] = a;
    h.periodFrames[1] = b;
    TimelineRows.period(h, VMS, end);
  }

  @Test
  void fpsRange_isTheLowestAndHighestWholePeriod_notTheCutLastOne() {
    MetricsStore h = new MetricsStore(2, 500 * MS, false, new int[] {1, 1},
        new long[] {Long.MAX_VALUE, Long.MAX_VALUE}, null);
    assertTrue(Double.isNaN(h.fpsMin[0]) && Double.isNaN(h.fpsMax[1]), "no whole period yet");
    period(h, 500 * MS, 50, 10);    // 100 and 20 FPS
    period(h, 1_000 * MS, 60, 12);  // 120 and 24 FPS
    period(h, 1_500 * MS, 55, 8);   // 110 and 16 FPS
    period(h, 1_510 * MS, 0, 1);    // 10 ms at the end: 0 and 100 FPS, a cut period that does not count
    assertEquals(100, h.fpsMin[0], 1e-9);
    assertEquals(120, h.fpsMax[0], 1e-9);
    assertEquals(16, h.fpsMin[1], 1e-9);
    assertEquals(24, h.fpsMax[1], 1e-9);
  }

  @Test
  void fpsRange_reachesTheFinalMetrics() {
    MetricsHub.VmMetrics m = new FrameLatencies(1).of(0, 10, 0, 4, 5, 309, 314, null, null);
    assertEquals(309, m.fpsMin(), 0);
    assertEquals(314, m.fpsMax(), 0);
    assertEquals(10, m.frames());
  }
}
