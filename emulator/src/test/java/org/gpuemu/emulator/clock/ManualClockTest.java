package org.gpuemu.emulator.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ManualClockTest {

  @Test
  void advanceAndSet_moveEmulatedTimeExactly() {
    ManualClock clock = new ManualClock();
    assertEquals(0, clock.nowNanos());
    assertEquals(1_500, clock.advance(1_500));
    assertEquals(2_000, clock.advance(500));
    clock.set(42);
    assertEquals(42, clock.nowNanos());
  }

  @Test
  void negativeAdvanceOrTime_isRejected() {
    ManualClock clock = new ManualClock();
    assertThrows(IllegalArgumentException.class, () -> clock.advance(-1));
    assertThrows(IllegalArgumentException.class, () -> clock.set(-1));
  }

  @Test
  void scale_onlyAffectsConversions() {
    ManualClock clock = new ManualClock(0.5);
    clock.advance(1_000);
    // The manual clock holds emulated time directly; only wall conversions see the scale.
    assertEquals(1_000, clock.nowNanos());
    assertEquals(2_000, clock.toWallNanos(1_000));
    assertEquals(500, clock.toEmulatedNanos(1_000));
  }
}
