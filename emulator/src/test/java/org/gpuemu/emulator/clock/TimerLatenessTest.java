package org.gpuemu.emulator.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TimerLatenessTest {

  private final ManualClock clock = new ManualClock();
  private final TimerLateness lateness = new TimerLateness(clock);

  private void recordLatenessNanos(long latenessNanos) {
    long due = clock.nowNanos();
    clock.advance(latenessNanos);
    lateness.recordDue(due);
  }

  @Test
  void percentiles_ofOneToHundredMicros_areExact() {
    for (int micros = 1; micros <= 100; micros++) {
      recordLatenessNanos(micros * 1_000L);
    }
    // Nearest rank: p50 is the 50th of 100 values, p99 the 99th, p99.9 rounds up to the 100th; values below
    // 2048 are exact at 3 significant digits.
    assertEquals(new TimerLateness.Snapshot(100, 50, 99, 100, 100), lateness.snapshot());
  }

  @Test
  void earlyTimer_countsAsZeroLateness() {
    clock.set(1_000_000);
    lateness.recordDue(3_000_000);
    assertEquals(new TimerLateness.Snapshot(1, 0, 0, 0, 0), lateness.snapshot());
  }

  @Test
  void nanoseconds_roundToNearestMicrosecond() {
    recordLatenessNanos(1_499);
    recordLatenessNanos(2_500);
    TimerLateness.Snapshot snapshot = lateness.snapshot();
    assertEquals(1, snapshot.p50());
    assertEquals(3, snapshot.max());
  }

  @Test
  void lateness_isInEmulatedTime_whateverTheScale() {
    ManualClock slowMotion = new ManualClock(0.1);
    TimerLateness slow = new TimerLateness(slowMotion);
    slowMotion.set(250_000);
    slow.recordDue(0);
    // 250 emulated µs, even though they took 2.5 wall ms at scale 0.1.
    assertEquals(250, slow.snapshot().max());
  }

  @Test
  void snapshots_accumulateEverythingRecorded() {
    recordLatenessNanos(10_000);
    assertEquals(1, lateness.snapshot().count());
    recordLatenessNanos(20_000);
    recordLatenessNanos(30_000);
    TimerLateness.Snapshot snapshot = lateness.snapshot();
    assertEquals(3, snapshot.count());
    assertEquals(30, snapshot.max());
  }

  @Test
  void emptyRecord_snapshotsAsZeros() {
    assertEquals(new TimerLateness.Snapshot(0, 0, 0, 0, 0), lateness.snapshot());
  }

  @Test
  void hugeLateness_isClampedToOneHour() {
    recordLatenessNanos(5L * 3_600 * 1_000_000_000L);
    // 3.6e9 µs at 3 significant digits reads back within 0.1 %.
    long max = lateness.snapshot().max();
    assertEquals(3_600_000_000L, max, 3_600_000_000L / 1_000.0);
  }

  @Test
  void concurrentRecorders_loseNothing() throws InterruptedException {
    clock.set(5_000);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      Thread thread = new Thread(() -> {
        for (int i = 0; i < 10_000; i++) {
          lateness.recordDue(0);
        }
      });
      thread.start();
      threads.add(thread);
    }
    for (Thread thread : threads) {
      thread.join();
    }
    TimerLateness.Snapshot snapshot = lateness.snapshot();
    assertEquals(40_000, snapshot.count());
    assertEquals(5, snapshot.p50());
  }

  @Test
  void window_seesOnlyWhatIsRecordedAfterItOpens() {
    recordLatenessNanos(900_000);
    TimerLateness.Window window = lateness.window();
    recordLatenessNanos(10_000);
    recordLatenessNanos(20_000);
    assertEquals(new TimerLateness.Snapshot(2, 10, 20, 20, 20), window.snapshot());
    // The total still holds everything.
    assertEquals(3, lateness.snapshot().count());
  }

  @Test
  void window_take_startsTheNextPeriod() {
    TimerLateness.Window window = lateness.window();
    recordLatenessNanos(40_000);
    assertEquals(40, window.take().p99());
    recordLatenessNanos(5_000);
    assertEquals(new TimerLateness.Snapshot(1, 5, 5, 5, 5), window.take());
    assertEquals(new TimerLateness.Snapshot(0, 0, 0, 0, 0), window.take());
  }

  @Test
  void closedWindow_isNoLongerFed() {
    TimerLateness.Window window = lateness.window();
    recordLatenessNanos(7_000);
    window.close();
    recordLatenessNanos(8_000);
    assertEquals(1, window.snapshot().count());
  }

  @Test
  void totalSnapshots_doNotDrainOpenWindows() {
    TimerLateness.Window window = lateness.window();
    recordLatenessNanos(3_000);
    lateness.snapshot(); // folds the recorder: the window must get the value too
    assertEquals(1, window.snapshot().count());
  }

  @Test
  void reached_isTheLatestDueTimeRecorded_orMinusOneBeforeAny() {
    assertEquals(-1, lateness.reachedNanos());
    clock.set(5_000_000);
    lateness.recordDue(4_000_000);
    lateness.recordDue(2_000_000); // an older timer handled late does not move it back
    assertEquals(4_000_000, lateness.reachedNanos());
  }
}
