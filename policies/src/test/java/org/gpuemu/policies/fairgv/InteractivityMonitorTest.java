package org.gpuemu.policies.fairgv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class InteractivityMonitorTest {
  private static final long US = 1_000;
  private static final long MS = 1_000_000;

  private final InteractivityMonitor monitor = monitor();

  private static InteractivityMonitor monitor() {
    InteractivityMonitor m = new InteractivityMonitor(10, 10 * MS);
    m.add(0);
    return m;
  }

  /** {@code n} synchronous calls every {@code every} ns from {@code from}; returns the time of the last. */
  private static long calls(InteractivityMonitor m, int n, long from, long every) {
    for (int i = 0; i < n; i++) m.syncCall(0, from + i * every);
    return from + (n - 1) * every;
  }

  @Test
  void moreThanTenSyncCallsIn10ms_isInteractive_tenIsNot() {
    long last = calls(monitor, 10, 0, 500 * US);
    assertFalse(monitor.interactive(0, last), "exactly 10: not 'more than 10'");
    monitor.syncCall(0, last + 1);
    assertTrue(monitor.interactive(0, last + 1));
  }

  @Test
  void classification_followsPhaseChanges_slidingContinuously() {
    calls(monitor, 11, 0, 100 * US); // 0 .. 1 ms
    assertTrue(monitor.interactive(0, 5 * MS));
    assertEquals(11, monitor.syncCallsInWindow(0, 9_999_999));
    assertEquals(10, monitor.syncCallsInWindow(0, 10 * MS), "the call at 0 left the window at 10 ms");
    assertFalse(monitor.interactive(0, 10 * MS));
    assertEquals(0, monitor.syncCallsInWindow(0, 12 * MS));
  }

  @Test
  void table3Rates_classifyAsTable3Does() {
    // Evenly spread calls at Table 3's synchronous rates per 10 ms for 10 s, observed at the last call.
    record Rate(String name, double per10ms, boolean interactive) {}
    for (Rate r : new Rate[] {new Rate("BS", 26.355, true), new Rate("HW", 11.233, true),
        new Rate("SRD1", 643.589, true), new Rate("MM", 0.033, false), new Rate("PF", 0.078, false),
        new Rate("LMD", 0.061, false)}) {
      InteractivityMonitor m = monitor();
      long every = (long) (10 * MS / r.per10ms());
      long last = calls(m, (int) (10_000 * MS / every), 0, every);
      assertEquals(r.interactive(), m.interactive(0, last), r.name());
    }
  }

  @Test
  void timeSpentWaitingForTheGpu_isNotPartOfTheWindow() {
    InteractivityMonitor wallClock = monitor();
    // 6 calls, then 20 ms waiting for the GPU (its guest blocked on the last), then 5 more calls.
    calls(monitor, 6, 0, 100 * US);
    calls(wallClock, 6, 0, 100 * US);
    monitor.waiting(0, true, MS);
    monitor.waiting(0, true, 5 * MS); // repeating a state changes nothing
    monitor.waiting(0, false, 21 * MS);
    calls(monitor, 5, 21 * MS, 100 * US);
    calls(wallClock, 5, 21 * MS, 100 * US);
    long now = 22 * MS;
    assertTrue(monitor.interactive(0, now), "11 calls within 2 ms of the vGPU's own time");
    assertFalse(wallClock.interactive(0, now), "counted in wall time the first 6 left the window");
  }

  @Test
  void rejectsUnknownVgpus_andNonsenseParameters() {
    assertThrows(IllegalArgumentException.class, () -> monitor.syncCall(3, 0));
    assertThrows(IllegalArgumentException.class, () -> monitor.add(0));
    assertThrows(IllegalArgumentException.class, () -> new InteractivityMonitor(10, 0));
  }
}
