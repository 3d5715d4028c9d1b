package org.gpuemu.emulator.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The floor measurements' bookkeeping; their numbers are measurements, never asserted. */
class OsFloorTest {

  @Test
  void parkOvershoot_recordsEverySample() {
    TimerProbe.Result r = OsFloor.parkOvershoot(20, 10_000, 50_000, 1);
    assertEquals(20, r.count());
    assertTrue(r.p50() <= r.p99() && r.p99() <= r.max(), r.toString());
  }

  @Test
  void wakeUp_recordsEverySample() throws InterruptedException {
    assertEquals(20, OsFloor.wakeUp(20, 10_000, 50_000, 1).count());
  }

  @Test
  void invertedDelays_areRejected() {
    assertThrows(IllegalArgumentException.class, () -> OsFloor.parkOvershoot(1, 2, 1, 1));
    assertThrows(IllegalArgumentException.class, () -> OsFloor.wakeUp(0, 1, 2, 1));
  }
}
