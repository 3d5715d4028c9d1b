package org.gpuemu.emulator.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The live fidelity figures, against an injected wall clock and a manual emulated clock. */
class FidelityMeterTest {

  private final ManualClock clock = new ManualClock();
  private final TimerLateness lateness = new TimerLateness(clock);
  private final AtomicLong wall = new AtomicLong(1_000_000_000L);

  private void fire(long due, long latenessNanos) {
    clock.set(due + latenessNanos);
    lateness.recordDue(due);
  }

  @Test
  void keepingUp_readsTheTimeScale_andThePeriodsP99() {
    fire(1_000_000, 0);
    FidelityMeter meter = new FidelityMeter(lateness, wall::get);
    // In 250 wall ms the timers went from 1 ms to 251 ms of emulated time: real time, factor 1.
    for (int i = 1; i <= 100; i++) fire(1_000_000 + i * 2_500_000L, i * 1_000L);
    wall.addAndGet(250_000_000L);
    FidelityMeter.Reading r = meter.read();
    assertEquals(1.0, r.realTimeFactor(), 1e-9);
    assertEquals(99, r.p99Micros(), "the 99th of 1..100 us");
    assertEquals(100, r.timers());
  }

  @Test
  void fallingBehind_readsLessThanTheScale() {
    fire(0, 0);
    FidelityMeter meter = new FidelityMeter(lateness, wall::get);
    fire(100_000_000L, 150_000_000L); // 100 emulated ms reached in 250 wall ms: the timers lag
    wall.addAndGet(250_000_000L);
    assertEquals(0.4, meter.read().realTimeFactor(), 1e-9);
  }

  @Test
  void noTimerYet_isUnknown_andAnEmptyPeriodHasNoP99() {
    FidelityMeter meter = new FidelityMeter(lateness, wall::get);
    wall.addAndGet(250_000_000L);
    FidelityMeter.Reading r = meter.read();
    assertTrue(Double.isNaN(r.realTimeFactor()), r.toString());
    assertEquals(-1, r.p99Micros());
    assertEquals(0, r.timers());
  }

  @Test
  void stalledPeriod_readsZero() {
    fire(0, 0);
    FidelityMeter meter = new FidelityMeter(lateness, wall::get);
    wall.addAndGet(250_000_000L);
    assertEquals(0.0, meter.read().realTimeFactor());
  }

  @Test
  void successivePeriods_areIndependent() {
    fire(0, 0);
    FidelityMeter meter = new FidelityMeter(lateness, wall::get);
    fire(10_000_000L, 500_000L);
    wall.addAndGet(10_000_000L);
    assertEquals(500, meter.read().p99Micros());
    fire(20_000_000L, 3_000L);
    wall.addAndGet(10_000_000L);
    assertEquals(3, meter.read().p99Micros(), "the 500 us of the previous period are not in this one");
  }

  @Test
  void realTimeFactor_ofAnEmptyWallInterval_isUnknown() {
    assertTrue(Double.isNaN(FidelityMeter.realTimeFactor(0, 10, 0)));
    assertEquals(10.0, FidelityMeter.realTimeFactor(0, 1_000, 100));
  }
}
