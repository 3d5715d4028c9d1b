package org.gpuemu.emulator.clock;

import com.typesafe.config.Config;
import java.io.Closeable;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.Scheduler;
import org.apache.pekko.actor.SchedulerException;
import org.apache.pekko.actor.SchedulerTask;
import org.apache.pekko.event.LoggingAdapter;
import scala.concurrent.ExecutionContext;

/**
 * A Pekko scheduler with microsecond-scale median lateness, installed with
 * {@code pekko.scheduler.implementation = org.gpuemu.emulator.clock.HighResScheduler}.
 *
 * <p>Pekko's default scheduler sleeps in whole-millisecond ticks (p50 ~30 ms late at the 10 ms default, ~2.7 ms at
 * its 1 ms minimum; the Pekko notes in CONTRIBUTING.md): useless for 46 µs kernels. This one keeps every task in a
 * priority queue by {@link System#nanoTime()} deadline on one dedicated timer thread, which parks until {@code
 * gpuemu.high-res-scheduler.spin} before the earliest deadline (park alone overshoots by ~50-90 µs of Linux timer
 * slack), then busy-spins with {@link Thread#onSpinWait()} to the deadline; it never spins longer than that without
 * blocking once, so that dense timers cannot keep the threads it wakes off the CPU. Because it is the actor system's
 * scheduler, {@code Behaviors.withTimers} stays the one timer API and gets the precision for free.
 *
 * <p>Tasks run on the timer thread itself, whatever execution context they were given: everything Pekko schedules
 * is a message send or a promise completion (typed timers even ask for the parasitic context), and a hop to a
 * dispatcher would add the very latency this class removes. A task that blocks therefore delays every timer.
 * Periodic tasks are fixed-rate: each next deadline is the previous due time plus the interval, so a late firing
 * delays one run instead of shifting all later ones. {@link #close()} runs the pending {@link
 * Scheduler.TaskRunOnClose} tasks, without which actor-system termination hangs.
 */
public final class HighResScheduler extends NanoSchedulerBase implements Closeable {

  /** Config path of the park-to-spin threshold. */
  public static final String SPIN_PATH = "gpuemu.high-res-scheduler.spin";

  // A spin above this burns a core per timer for no precision gain (park's overshoot is < 0.1 ms); it is
  // almost certainly a unit mistake in a scenario file.
  private static final long MAX_SPIN_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  // Cancelled tasks stay in the heap until they surface (O(1) cancel); purge once they are the majority so
  // that re-armed timers cannot grow the heap without bound.
  private static final int PURGE_THRESHOLD = 256;

  private final long spinNanos;
  private final LongSupplier nanoTime;
  private final LoggingAdapter log;
  private final Thread timerThread;

  // Guarded by itself. A heap under a lock is enough: it is held for an O(log n) insert or poll, far shorter than
  // the message handling around every insert, so it is almost never contended.
  private final PriorityQueue<Task> queue = new PriorityQueue<>(HighResScheduler::byDeadline);
  private long nextSeq; // guarded by queue; keeps equal deadlines in submission order
  private int cancelledInQueue; // guarded by queue; approximate, only triggers purges
  private boolean closed; // guarded by queue
  // While paused (the dashboard's pause, docs/guides/report-and-dashboard.md) nothing fires, and a task armed meanwhile
  // counts its delay from the pause's instant; resume() moves every deadline on by the time paused.
  private boolean paused; // guarded by queue
  private long pausedAtNanos; // guarded by queue
  // Set when a new earliest task arrives while the timer thread may be spinning on the old one.
  private volatile boolean headChanged;
  private volatile boolean stopping;
  private long lastBlockedNanos; // confined to the timer thread

  /** The constructor Pekko calls reflectively when this class is configured as the scheduler. */
  public HighResScheduler(Config config, LoggingAdapter log, ThreadFactory threadFactory) {
    this(readSpin(config), System::nanoTime, log, threadFactory);
  }

  // Tests inject a nano source to decide deadlines exactly; wake() lets them re-evaluate after moving it.
  HighResScheduler(long spinNanos, LongSupplier nanoTime, LoggingAdapter log, ThreadFactory threadFactory) {
    if (spinNanos < 0 || spinNanos > MAX_SPIN_NANOS) {
      throw new IllegalArgumentException(SPIN_PATH + " must be between 0 and 10ms, got " + spinNanos + "ns");
    }
    this.spinNanos = spinNanos;
    this.nanoTime = nanoTime;
    this.log = log;
    this.timerThread = threadFactory.newThread(this::runTimerLoop);
    timerThread.start();
  }

  private static long readSpin(Config config) {
    return config.getDuration(SPIN_PATH, TimeUnit.NANOSECONDS);
  }

  /** Park-to-spin threshold in nanoseconds, as configured. */
  public long spinNanos() {
    return spinNanos;
  }

  @Override
  Cancellable enqueue(Runnable runnable, ExecutionContext executor, long delayNanos, long periodNanos) {
    return enqueue(new Task(runnable, executor, delayNanos, periodNanos));
  }

  /** Stops the timer thread and runs every pending {@link Scheduler.TaskRunOnClose}; idempotent. */
  @Override
  public void close() {
    List<Task> pending;
    synchronized (queue) {
      if (closed) {
        return;
      }
      closed = true;
      pending = new ArrayList<>(queue);
      queue.clear();
    }
    stopping = true;
    LockSupport.unpark(timerThread);
    pending.sort(HighResScheduler::byDeadline);
    for (Task task : pending) {
      if (task.runnable instanceof Scheduler.TaskRunOnClose && task.claimForRun()) {
        runSafely(task.runnable);
      }
    }
    if (Thread.currentThread() != timerThread) {
      try {
        // Bounded: a task stuck on the timer thread must not turn close() into a hang of its own.
        timerThread.join(1_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  // Re-evaluates the queue now; tests call it after moving the injected nano source.
  void wake() {
    LockSupport.unpark(timerThread);
  }

  /**
   * Stops firing at wall instant {@code wallNanos} (of this scheduler's nano source): nothing runs until
   * {@link #resume}, and a task scheduled meanwhile counts its delay from {@code wallNanos}. Stops the run's timers
   * with its clock ({@code ScaledClock#pause}). A second pause keeps the first's instant.
   */
  public void pause(long wallNanos) {
    synchronized (queue) {
      if (paused) return;
      paused = true;
      pausedAtNanos = wallNanos;
      headChanged = true;
    }
  }

  /**
   * Fires again from wall instant {@code wallNanos}: every deadline moves on by the time paused, so each task fires
   * as long after the resume as it was due after the pause.
   */
  public void resume(long wallNanos) {
    synchronized (queue) {
      if (!paused) return;
      long shift = Math.max(0, wallNanos - pausedAtNanos);
      for (Task task : queue) task.deadline += shift; // the same shift for all: the heap's order stands
      paused = false;
      headChanged = true;
    }
    LockSupport.unpark(timerThread);
  }

  private Cancellable enqueue(Task task) {
    boolean newHead;
    synchronized (queue) {
      if (closed) {
        throw new SchedulerException("cannot enqueue after timer shutdown");
      }
      task.deadline += paused ? pausedAtNanos : nanoTime.getAsLong(); // the delay from now (or from the pause)
      task.seq = nextSeq++;
      queue.add(task);
      newHead = queue.peek() == task;
      if (newHead) {
        headChanged = true;
      }
    }
    // Only an earlier deadline can shorten the timer thread's park; on its own thread there is nothing to wake.
    if (newHead && Thread.currentThread() != timerThread) {
      LockSupport.unpark(timerThread);
    }
    return task;
  }

  private static int byDeadline(Task a, Task b) {
    // Subtraction keeps the order right across System.nanoTime() wrap-around.
    int byTime = Long.compare(a.deadline - b.deadline, 0L);
    return byTime != 0 ? byTime : Long.compare(a.seq, b.seq);
  }

  private void runTimerLoop() {
    lastBlockedNanos = nanoTime.getAsLong();
    while (!stopping) {
      // A task that interrupted its (our) thread would make every park return at once: a hidden busy loop.
      Thread.interrupted();
      Task due = null;
      long waitNanos = 0L;
      Task head;
      synchronized (queue) {
        if (closed) {
          return;
        }
        headChanged = false;
        head = queue.peek();
        while (head != null && head.isCancelled()) {
          queue.poll();
          cancelledInQueue = Math.max(0, cancelledInQueue - 1);
          head = queue.peek();
        }
        if (paused) {
          head = null; // nothing fires: park until resume() unparks
        } else if (head != null) {
          waitNanos = head.deadline - nanoTime.getAsLong();
          if (waitNanos <= 0) {
            due = queue.poll();
          }
        }
      }
      if (due != null) {
        fire(due);
      } else if (head == null) {
        LockSupport.park(this);
        lastBlockedNanos = nanoTime.getAsLong();
      } else if (waitNanos > spinNanos) {
        LockSupport.parkNanos(this, waitNanos - spinNanos);
        lastBlockedNanos = nanoTime.getAsLong();
      } else if (nanoTime.getAsLong() - lastBlockedNanos > spinNanos) {
        // Dense deadlines would chain spins forever. The dispatcher thread our last task woke is usually
        // queued on this very core (wake-affine), and a spinner keeps it there until the kernel's tick (4 ms
        // here): with 100 timer-driven actors that made p99 ~2.5x worse. Blocking once per spin lets it run.
        LockSupport.parkNanos(this, 1L);
        lastBlockedNanos = nanoTime.getAsLong();
      } else {
        spinUntil(head);
      }
    }
  }

  private void spinUntil(Task head) {
    // Bounded by the spin threshold: we only get here within spinNanos of the deadline.
    while (nanoTime.getAsLong() - head.deadline < 0 && !headChanged && !stopping && !head.isCancelled()) {
      Thread.onSpinWait();
    }
  }

  private void fire(Task task) {
    if (task.period == 0L) {
      if (task.claimForRun()) {
        runSafely(task.runnable);
      }
      return;
    }
    if (task.isCancelled()) {
      return;
    }
    runSafely(task.runnable);
    // Fixed rate: from the due time, not from now, so lateness does not accumulate over the runs.
    task.deadline += task.period;
    synchronized (queue) {
      // After close() the run that just finished was the last one, as with Pekko's own scheduler.
      if (!closed && !task.isCancelled()) {
        task.seq = nextSeq++;
        queue.add(task);
      }
    }
  }

  private void runSafely(Runnable runnable) {
    try {
      runnable.run();
    } catch (SchedulerException e) {
      // The target was terminated during shutdown: expected, as in Pekko's own scheduler.
    } catch (VirtualMachineError e) {
      throw e;
    } catch (Throwable e) {
      // One failing task must not take down the timer thread and with it every other timer.
      log.error(e, "exception while running a timer task");
    }
  }

  private void onCancelled() {
    synchronized (queue) {
      cancelledInQueue++;
      if (cancelledInQueue > PURGE_THRESHOLD && cancelledInQueue > queue.size() / 2) {
        queue.removeIf(Task::isCancelled);
        cancelledInQueue = 0;
      }
    }
  }

  /** A scheduled runnable and the handle its submitter cancels it with. */
  private final class Task implements Cancellable {
    private static final int SCHEDULED = 0;
    private static final int DONE = 1;
    private static final int CANCELLED = 2;

    final Runnable runnable;
    final ExecutionContext executor;
    final long period; // 0 for one-shot tasks
    // the delay until enqueued, then the deadline; written under the queue's lock, or by the timer thread between
    // runs of a periodic task (out of the queue)
    long deadline;
    long seq; // guarded by queue
    private final AtomicInteger state = new AtomicInteger(SCHEDULED);

    Task(Runnable runnable, ExecutionContext executor, long deadline, long period) {
      this.runnable = runnable;
      this.executor = executor;
      this.deadline = deadline;
      this.period = period;
    }

    // One-shot run or final run on close: whoever flips SCHEDULED first wins against cancel().
    boolean claimForRun() {
      return state.compareAndSet(SCHEDULED, DONE);
    }

    @Override
    public boolean cancel() {
      if (!state.compareAndSet(SCHEDULED, CANCELLED)) {
        return false;
      }
      onCancelled();
      if (runnable instanceof SchedulerTask schedulerTask) {
        notifyCancelled(schedulerTask);
      }
      return true;
    }

    private void notifyCancelled(SchedulerTask schedulerTask) {
      // Pekko's contract: the task learns of its cancellation on its own execution context.
      try {
        executor.execute(schedulerTask::cancelled);
      } catch (RuntimeException e) {
        executor.reportFailure(e);
      }
    }

    @Override
    public boolean isCancelled() {
      return state.get() == CANCELLED;
    }
  }
}
