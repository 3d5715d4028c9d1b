package org.gpuemu.emulator.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.Scheduler;
import org.apache.pekko.dispatch.ExecutionContexts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import scala.concurrent.ExecutionContext;

/**
 * The contract every timer scheduler of the emulator keeps (the run's {@link HighResScheduler} and the
 * {@link WheelScheduler} measured against it), run once per implementation by its subclass.
 *
 * <p>Most tests drive the scheduler with a fake nano source: deadlines are then exact, nothing fires until the test
 * moves time, and ordering cannot depend on how fast the test thread runs. Waits are only "it happened", with
 * timeouts far above any plausible delay; no test asserts how fast anything was.
 */
abstract class SchedulerContract<S extends Scheduler> {

  /** A scheduler spinning {@code spinNanos} before each deadline, reading time from {@code nanoSource}. */
  abstract S create(long spinNanos, LongSupplier nanoSource, ThreadFactory threadFactory);

  /** A scheduler configured from {@code config}, as Pekko builds it. */
  abstract S fromConfig(Config config, ThreadFactory threadFactory);

  abstract long spinNanos(S scheduler);

  /** Makes the timer thread look at the (fake) clock again. */
  abstract void wake(S scheduler);

  abstract void pause(S scheduler, long wallNanos);

  abstract void resume(S scheduler, long wallNanos);

  abstract void close(S scheduler);


  static final long SPIN_NANOS = 150_000;
  static final long MS = 1_000_000;
  static final long WAIT_SECONDS = 10;
  static final ExecutionContext SAME_THREAD = ExecutionContexts.fromExecutor(Runnable::run);

  final AtomicLong fakeNanos = new AtomicLong(1_000 * MS);
  final List<Thread> timerThreads = new CopyOnWriteArrayList<>();
  S scheduler;

  final ThreadFactory threadFactory = runnable -> {
    Thread thread = new Thread(runnable, getClass().getSimpleName());
    thread.setDaemon(true);
    timerThreads.add(thread);
    return thread;
  };

  S fakeTimeScheduler() {
    return scheduler(fakeNanos::get);
  }

  S scheduler(LongSupplier nanoSource) {
    scheduler = create(SPIN_NANOS, nanoSource, threadFactory);
    return scheduler;
  }

  void advanceTo(long nanosAfterStart) {
    fakeNanos.set(1_000 * MS + nanosAfterStart);
    wake(scheduler);
  }

  Cancellable once(long delayNanos, Runnable task) {
    return scheduler.scheduleOnce(Duration.ofNanos(delayNanos), task, SAME_THREAD);
  }

  @AfterEach
  void closeScheduler() {
    if (scheduler != null) {
      close(scheduler);
    }
  }

  @Test
  void tasks_runInDeadlineOrder_tiesInSubmissionOrder() throws InterruptedException {
    fakeTimeScheduler();
    List<String> ran = new CopyOnWriteArrayList<>();
    CountDownLatch allRan = new CountDownLatch(4);
    for (String name : List.of("c@3", "a@1", "b@2", "b'@2")) {
      long delay = Long.parseLong(name.substring(name.indexOf('@') + 1)) * MS;
      once(delay, () -> {
        ran.add(name);
        allRan.countDown();
      });
    }
    advanceTo(10 * MS);
    assertTrue(allRan.await(WAIT_SECONDS, TimeUnit.SECONDS), "ran only " + ran);
    assertEquals(List.of("a@1", "b@2", "b'@2", "c@3"), ran);
  }

  @Test
  void nothingRuns_beforeItsDeadline() throws InterruptedException {
    fakeTimeScheduler();
    AtomicBoolean early = new AtomicBoolean();
    CountDownLatch firstRan = new CountDownLatch(1);
    once(1 * MS, firstRan::countDown);
    once(5 * MS, () -> early.set(true));
    advanceTo(2 * MS);
    assertTrue(firstRan.await(WAIT_SECONDS, TimeUnit.SECONDS));
    // The 5 ms task sat behind the 1 ms one in the queue, so the loop has already looked at it and passed.
    assertFalse(early.get());
  }

  @Test
  void cancel_preventsRunning() throws InterruptedException {
    fakeTimeScheduler();
    AtomicBoolean cancelledRan = new AtomicBoolean();
    CountDownLatch laterRan = new CountDownLatch(1);
    Cancellable cancelled = once(1 * MS, () -> cancelledRan.set(true));
    Cancellable later = once(2 * MS, laterRan::countDown);

    assertTrue(cancelled.cancel());
    assertTrue(cancelled.isCancelled());
    assertFalse(cancelled.cancel(), "a second cancel reports nothing left to cancel");
    advanceTo(5 * MS);

    assertTrue(laterRan.await(WAIT_SECONDS, TimeUnit.SECONDS));
    // The cancelled task was due first, so had it been run it would have run before the later one.
    assertFalse(cancelledRan.get());
    assertFalse(later.cancel(), "a task that already ran cannot be cancelled");
  }

  @Test
  void periodic_isFixedRate_nextDeadlineFromPreviousDueTime() throws InterruptedException {
    fakeTimeScheduler();
    List<Long> ranAtMicros = new CopyOnWriteArrayList<>();
    Semaphore runs = new Semaphore(0);
    Cancellable periodic = scheduler.scheduleAtFixedRate(
        Duration.ofMillis(1), Duration.ofMillis(1),
        () -> {
          ranAtMicros.add((fakeNanos.get() - 1_000 * MS) / 1_000);
          runs.release();
        },
        SAME_THREAD);

    advanceTo(1 * MS);
    assertTrue(runs.tryAcquire(1, WAIT_SECONDS, TimeUnit.SECONDS));
    // 2.5 ms late: the runs due at 2 and 3 ms both happen now (fixed-delay would run once and move on to 4.5).
    advanceTo(3_500_000);
    assertTrue(runs.tryAcquire(2, WAIT_SECONDS, TimeUnit.SECONDS), "ran at " + ranAtMicros);
    // Still on the original grid: due at 4 ms, not at 3.5 + 1 ms.
    advanceTo(4 * MS);
    assertTrue(runs.tryAcquire(1, WAIT_SECONDS, TimeUnit.SECONDS), "ran at " + ranAtMicros);
    assertTrue(periodic.cancel());

    assertEquals(List.of(1_000L, 3_500L, 3_500L, 4_000L), ranAtMicros);
  }

  @Test
  void failingTask_doesNotStopLaterTimers() throws InterruptedException {
    fakeTimeScheduler();
    CountDownLatch laterRan = new CountDownLatch(1);
    once(1 * MS, () -> {
      throw new IllegalStateException("boom (expected by the test)");
    });
    once(2 * MS, laterRan::countDown);
    advanceTo(3 * MS);
    assertTrue(laterRan.await(WAIT_SECONDS, TimeUnit.SECONDS));
  }

  @Test
  void close_runsPendingTaskRunOnClose_dropsTheRest_andStopsTheThread() throws InterruptedException {
    fakeTimeScheduler();
    AtomicBoolean onCloseRan = new AtomicBoolean();
    AtomicBoolean cancelledOnCloseRan = new AtomicBoolean();
    AtomicBoolean plainRan = new AtomicBoolean();
    once(TimeUnit.HOURS.toNanos(1), (RunOnClose) () -> onCloseRan.set(true));
    once(TimeUnit.HOURS.toNanos(1), (RunOnClose) () -> cancelledOnCloseRan.set(true)).cancel();
    once(TimeUnit.HOURS.toNanos(1), () -> plainRan.set(true));

    close(scheduler);

    // close() runs them on the closing thread before it returns: actor-system termination waits on them.
    assertTrue(onCloseRan.get());
    assertFalse(cancelledOnCloseRan.get());
    assertFalse(plainRan.get());
    Thread timerThread = timerThreads.get(0);
    timerThread.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
    assertFalse(timerThread.isAlive());
    assertThrows(IllegalStateException.class, () -> once(MS, () -> {}));
    close(scheduler); // idempotent
  }

  @Test
  void earlierTaskFromAnotherThread_wakesTheParkedTimerThread() throws InterruptedException {
    scheduler(System::nanoTime);
    once(TimeUnit.HOURS.toNanos(1), () -> {});
    CountDownLatch soonRan = new CountDownLatch(1);
    // The timer thread is parked for an hour; only the unpark on a new earliest deadline gets this task run.
    Thread other = new Thread(() -> once(MS, soonRan::countDown));
    other.start();
    other.join();
    assertTrue(soonRan.await(WAIT_SECONDS, TimeUnit.SECONDS));
  }

  @Test
  void spin_isReadFromConfig_defaultFromReferenceConf() {
    scheduler = fromConfig(ConfigFactory.parseString("gpuemu.high-res-scheduler.spin = 200us"), threadFactory);
    assertEquals(200_000, spinNanos(scheduler));
    close(scheduler);
    scheduler = fromConfig(ConfigFactory.load(), threadFactory);
    assertEquals(150_000, spinNanos(scheduler));
  }

  @Test
  void negativeSpinOrNonPositiveInterval_isRejected() {
    assertThrows(IllegalArgumentException.class,
        () -> create(-1, System::nanoTime, threadFactory));
    fakeTimeScheduler();
    assertThrows(IllegalArgumentException.class,
        () -> scheduler.scheduleAtFixedRate(Duration.ZERO, Duration.ZERO, () -> {}, SAME_THREAD));
  }

  /** A task Pekko needs run at shutdown, as its own termination hooks are. */
  private interface RunOnClose extends Runnable, Scheduler.TaskRunOnClose {}

  @Test
  void pause_firesNothing_andResumeShiftsEveryDeadlineByThePause() throws InterruptedException {
    fakeTimeScheduler();
    List<String> ran = new CopyOnWriteArrayList<>();
    CountDownLatch armedBefore = new CountDownLatch(1);
    CountDownLatch armedDuring = new CountDownLatch(1);
    once(2 * MS, () -> {
      ran.add("before");
      armedBefore.countDown();
    });
    advanceTo(1 * MS);
    pause(scheduler, fakeNanos.get());
    // armed while paused: its 3 ms count from the pause's instant
    once(3 * MS, () -> {
      ran.add("during");
      armedDuring.countDown();
    });
    advanceTo(50 * MS);
    assertFalse(armedBefore.await(200, TimeUnit.MILLISECONDS), "nothing fires while paused: " + ran);
    resume(scheduler, fakeNanos.get()); // paused 49 ms: the first is due at 51 ms, the second at 53 ms
    advanceTo(51 * MS);
    assertTrue(armedBefore.await(WAIT_SECONDS, TimeUnit.SECONDS));
    assertFalse(armedDuring.await(200, TimeUnit.MILLISECONDS), "the second is due 2 ms later: " + ran);
    advanceTo(53 * MS);
    assertTrue(armedDuring.await(WAIT_SECONDS, TimeUnit.SECONDS));
    assertEquals(List.of("before", "during"), ran);
  }
}
