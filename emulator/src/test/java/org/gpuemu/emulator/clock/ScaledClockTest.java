package org.gpuemu.emulator.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ScaledClockTest {

  // An arbitrary non-zero origin: the clock must measure from its start, not from nanoTime's zero.
  private final AtomicLong wallNanos = new AtomicLong(5_000_000_000L);

  @Test
  void slowMotion_tenthScale_tenWallMillisAreOneEmulatedMilli() {
    ScaledClock clock = new ScaledClock(0.1, wallNanos::get);
    wallNanos.addAndGet(10_000_000);
    assertEquals(1_000_000, clock.nowNanos());
    // docs/concepts/time-and-order.md: at 0.1 a 46 µs kernel takes 460 µs of wall time.
    assertEquals(460_000, clock.toWallNanos(46_000));
    assertEquals(46_000, clock.toEmulatedNanos(460_000));
  }

  @Test
  void fastForward_tenfoldScale_oneWallMilliIsTenEmulatedMillis() {
    ScaledClock clock = new ScaledClock(10, wallNanos::get);
    wallNanos.addAndGet(1_000_000);
    assertEquals(10_000_000, clock.nowNanos());
    assertEquals(1_600_000, clock.toWallNanos(16_000_000));
    assertEquals(10.0, clock.timeScale());
  }

  @Test
  void start_movesEmulatedZeroToNow() {
    ScaledClock clock = new ScaledClock(1.0, wallNanos::get);
    wallNanos.addAndGet(7_000);
    assertEquals(7_000, clock.nowNanos());
    clock.start();
    assertEquals(0, clock.nowNanos());
    wallNanos.addAndGet(3_000);
    assertEquals(3_000, clock.nowNanos());
  }

  @Test
  void systemClock_neverRunsBackwards() {
    ScaledClock clock = new ScaledClock(1.0);
    long first = clock.nowNanos();
    long second = clock.nowNanos();
    assertTrue(first >= 0 && second >= first, first + " then " + second);
  }

  @ParameterizedTest
  @ValueSource(doubles = {0.0, -1.0, Double.NaN, Double.POSITIVE_INFINITY})
  void invalidScale_isRejected(double scale) {
    assertThrows(IllegalArgumentException.class, () -> new ScaledClock(scale));
    assertThrows(IllegalArgumentException.class, () -> new ManualClock(scale));
  }

  @Test
  void pause_standsStill_andResumeGoesOnFromThere_theOriginMovedByThePause() {
    ScaledClock clock = new ScaledClock(2.0, wallNanos::get);
    wallNanos.addAndGet(1_000);
    clock.pause(wallNanos.get());
    wallNanos.addAndGet(5_000_000);
    assertEquals(2_000, clock.nowNanos(), "still 1 µs of wall at scale 2");
    assertTrue(clock.paused());
    assertEquals(5_000_000, clock.resume(wallNanos.get()), "how long it stood still");
    assertEquals(2_000, clock.nowNanos(), "no jump at the resume");
    wallNanos.addAndGet(500);
    assertEquals(3_000, clock.nowNanos());
    assertEquals(0, clock.resume(wallNanos.get()), "not paused: nothing to resume");
  }
}
