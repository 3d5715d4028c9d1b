package org.gpuemu.emulator.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.pekko.event.NoLogging;
import org.junit.jupiter.api.Test;

/** The wheel keeps the {@link SchedulerContract}, plus what only a wheel can get wrong: deadlines more than one
 * turn of the wheel away, and a task due within the slot being looked at. */
class WheelSchedulerTest extends SchedulerContract<WheelScheduler> {
  @Override
  WheelScheduler create(long spinNanos, LongSupplier nanoSource, ThreadFactory threadFactory) {
    return new WheelScheduler(spinNanos, nanoSource, NoLogging.getInstance(), threadFactory);
  }

  @Override
  WheelScheduler fromConfig(Config config, ThreadFactory threadFactory) {
    return new WheelScheduler(config, NoLogging.getInstance(), threadFactory);
  }

  @Override
  long spinNanos(WheelScheduler scheduler) {
    return scheduler.spinNanos();
  }

  @Override
  void wake(WheelScheduler scheduler) {
    scheduler.wake();
  }

  @Override
  void pause(WheelScheduler scheduler, long wallNanos) {
    scheduler.pause(wallNanos);
  }

  @Override
  void resume(WheelScheduler scheduler, long wallNanos) {
    scheduler.resume(wallNanos);
  }

  @Override
  void close(WheelScheduler scheduler) {
    scheduler.close();
  }

  @Test
  void deadlinesBeyondOneTurn_waitForTheirTurn_inDeadlineOrder() throws InterruptedException {
    fakeTimeScheduler();
    long turn = WheelScheduler.SLOTS * WheelScheduler.TICK_NANOS;
    List<String> ran = new CopyOnWriteArrayList<>();
    Semaphore runs = new Semaphore(0);
    // the same slot as the 1 ms task, one and two turns later
    for (String name : List.of("far2", "far1", "near")) {
      long delay = MS + (name.equals("far2") ? 2 * turn : name.equals("far1") ? turn : 0);
      once(delay, () -> {
        ran.add(name);
        runs.release();
      });
    }
    advanceTo(2 * MS);
    assertTrue(runs.tryAcquire(1, WAIT_SECONDS, TimeUnit.SECONDS));
    assertEquals(List.of("near"), ran, "the later turns' tasks share its slot but are not due");
    advanceTo(2 * MS + turn);
    assertTrue(runs.tryAcquire(1, WAIT_SECONDS, TimeUnit.SECONDS));
    assertEquals(List.of("near", "far1"), ran);
    advanceTo(2 * MS + 2 * turn);
    assertTrue(runs.tryAcquire(1, WAIT_SECONDS, TimeUnit.SECONDS), "ran only " + ran);
    assertEquals(List.of("near", "far1", "far2"), ran);
  }

  @Test
  void tasksOfOneSlot_fireAtTheirOwnDeadlines() throws InterruptedException {
    fakeTimeScheduler();
    List<String> ran = new CopyOnWriteArrayList<>();
    Semaphore runs = new Semaphore(0);
    // both in the slot that starts at or after 1 ms: 10 us apart, 30 and 40 us into it
    long start = 1_000 * MS + MS;
    long base = (start + WheelScheduler.TICK_NANOS - 1) / WheelScheduler.TICK_NANOS * WheelScheduler.TICK_NANOS
        - 1_000 * MS;
    once(base + 40_000, () -> {
      ran.add("second");
      runs.release();
    });
    once(base + 30_000, () -> {
      ran.add("first");
      runs.release();
    });
    advanceTo(base + 35_000);
    assertTrue(runs.tryAcquire(1, WAIT_SECONDS, TimeUnit.SECONDS));
    assertEquals(List.of("first"), ran, "the second is in the same slot but not due");
    advanceTo(base + 40_000);
    assertTrue(runs.tryAcquire(1, WAIT_SECONDS, TimeUnit.SECONDS));
    assertEquals(List.of("first", "second"), ran);
  }
}
