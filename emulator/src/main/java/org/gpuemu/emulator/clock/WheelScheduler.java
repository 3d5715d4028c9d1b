package org.gpuemu.emulator.clock;

import com.typesafe.config.Config;
import java.io.Closeable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
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
 * A Pekko scheduler for many concurrent timers: a hashed timing wheel (G. Varghese and T. Lauck, "Hashed and
 * hierarchical timing wheels", SOSP 1987, scheme 6; the layout of Netty's {@code HashedWheelTimer}) owned by one
 * dedicated thread, installed with {@code pekko.scheduler.implementation = org.gpuemu.emulator.clock.WheelScheduler}.
 *
 * <p>What it changes against {@link HighResScheduler} (a heap under a lock, one task per turn of the loop, an unpark
 * for every new earliest task): a task is handed over through a lock-free queue and only the timer thread touches the
 * wheel, so a dispatcher arming a timer never waits for the timer thread, nor it for them; the wheel's slots are
 * {@value #TICK_NANOS} ns of deadline each ({@value #SLOTS} of them, one turn about 67 ms; a later deadline waits in its
 * slot for its turn), insertion and cancellation are O(1); every task due when the thread looks is fired in that turn,
 * so a burst of deadlines costs one wake-up, not one each; and a thread that arms a timer unparks the timer thread
 * only when the new deadline is earlier than the one it parks for. Deadlines keep their precision: the thread parks
 * until the earliest deadline of the earliest non-empty slot, then spins the last {@code gpuemu.high-res-scheduler.spin}
 * to it, with the same bound on spinning without blocking as {@link HighResScheduler}.
 *
 * <p>Tasks run on the timer thread, as with {@link HighResScheduler} (everything Pekko schedules is a message send or a
 * promise completion). Periodic tasks are fixed-rate. {@link #pause}/{@link #resume} stop and restart firing for the
 * dashboard's pause: deadlines are kept on a clock that does not advance while paused (the wall clock less the time
 * spent paused), so resuming moves nothing.
 */
public final class WheelScheduler extends NanoSchedulerBase implements Closeable {

  /** Slot width in ns: 2^16 (65.5 µs), below the 0.1 ms shortest model timer step of the shipped workloads. */
  static final int TICK_SHIFT = 16;
  static final long TICK_NANOS = 1L << TICK_SHIFT;
  /** Slots per turn: 1,024 (a turn of 67 ms holds the 0.1-10 ms timers of the probe without a second turn). */
  static final int SLOTS = 1024;
  private static final int MASK = SLOTS - 1;
  private static final long MAX_SPIN_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  /** Whether the scheduler is paused, since when (on the wheel's clock), and how long it was paused before. */
  private record Pause(boolean paused, long atNanos, long pausedNanos) {}

  private final long spinNanos;
  private final LongSupplier nanoTime;
  private final LoggingAdapter log;
  private final Thread timerThread;
  private final ConcurrentLinkedQueue<Task> incoming = new ConcurrentLinkedQueue<>();
  /** Confined to the timer thread: each slot a linked list of tasks through {@link Task#next}. */
  private final Task[] slots = new Task[SLOTS];
  private int inWheel; // confined to the timer thread
  private long currentTick; // confined to the timer thread
  private long lastBlockedNanos; // confined to the timer thread
  /** The timer thread is awake: a new task needs no unpark, the thread drains the hand-over queue before it parks. */
  private static final long AWAKE = Long.MIN_VALUE;
  /** The wheel-clock instant the timer thread parks until (Long.MAX_VALUE: until woken; {@link #AWAKE}). */
  private volatile long plannedWake = AWAKE;
  private volatile Pause pause = new Pause(false, 0, 0);
  private volatile boolean closed;
  private final Object closeLock = new Object();

  /** The constructor Pekko calls reflectively when this class is configured as the scheduler. */
  public WheelScheduler(Config config, LoggingAdapter log, ThreadFactory threadFactory) {
    this(config.getDuration(HighResScheduler.SPIN_PATH, TimeUnit.NANOSECONDS), System::nanoTime, log, threadFactory);
  }

  WheelScheduler(long spinNanos, LongSupplier nanoTime, LoggingAdapter log, ThreadFactory threadFactory) {
    if (spinNanos < 0 || spinNanos > MAX_SPIN_NANOS) {
      throw new IllegalArgumentException(HighResScheduler.SPIN_PATH + " must be between 0 and 10ms, got " + spinNanos
          + "ns");
    }
    this.spinNanos = spinNanos;
    this.nanoTime = nanoTime;
    this.log = log;
    this.currentTick = wheelNow(pause) >> TICK_SHIFT;
    this.timerThread = threadFactory.newThread(this::runTimerLoop);
    timerThread.start();
  }

  /** The wheel's clock: the nano source less the time spent paused (frozen while paused). */
  private long wheelNow(Pause p) {
    return p.paused() ? p.atNanos() : nanoTime.getAsLong() - p.pausedNanos();
  }

  @Override
  Cancellable enqueue(Runnable runnable, ExecutionContext executor, long delayNanos, long periodNanos) {
    return enqueue(new Task(runnable, executor, delayNanos, periodNanos));
  }

  /** Park-to-spin threshold in nanoseconds, as configured. */
  public long spinNanos() {
    return spinNanos;
  }

  // Re-evaluates the wheel now; tests call it after moving the injected nano source.
  void wake() {
    LockSupport.unpark(timerThread);
  }

  /** Stops firing at wall instant {@code wallNanos} of the nano source until {@link #resume}. */
  public void pause(long wallNanos) {
    synchronized (closeLock) {
      Pause p = pause;
      if (p.paused()) return;
      pause = new Pause(true, wallNanos - p.pausedNanos(), p.pausedNanos());
    }
    LockSupport.unpark(timerThread);
  }

  /** Fires again from wall instant {@code wallNanos}: every deadline moves on by the time paused. */
  public void resume(long wallNanos) {
    synchronized (closeLock) {
      Pause p = pause;
      if (!p.paused()) return;
      long pausedNanos = Math.max(p.pausedNanos(), wallNanos - p.atNanos());
      pause = new Pause(false, 0, pausedNanos);
    }
    LockSupport.unpark(timerThread);
  }

  @Override
  public void close() {
    synchronized (closeLock) {
      if (closed) return;
      closed = true;
    }
    LockSupport.unpark(timerThread);
    if (Thread.currentThread() != timerThread) {
      try {
        timerThread.join(1_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    // The thread has stopped (or is stuck in a task): what is left runs its close tasks, in deadline order.
    List<Task> pending = new ArrayList<>();
    for (Task head : slots) {
      for (Task t = head; t != null; t = t.next) pending.add(t);
    }
    Task t;
    while ((t = incoming.poll()) != null) pending.add(t);
    pending.sort(Comparator.comparingLong((Task x) -> x.deadline).thenComparingLong(x -> x.seq));
    for (Task task : pending) {
      if (task.runnable instanceof Scheduler.TaskRunOnClose && task.claimForRun()) runSafely(task.runnable);
    }
  }

  private final java.util.concurrent.atomic.AtomicLong seqs = new java.util.concurrent.atomic.AtomicLong();

  private Cancellable enqueue(Task task) {
    if (closed) throw new SchedulerException("cannot enqueue after timer shutdown");
    task.deadline += wheelNow(pause);
    task.seq = seqs.getAndIncrement();
    incoming.offer(task);
    // Dekker with the timer thread: it publishes plannedWake, then looks at incoming once more before parking.
    long wake = plannedWake;
    if (wake != AWAKE && task.deadline - wake < 0 && Thread.currentThread() != timerThread) {
      LockSupport.unpark(timerThread);
    }
    return task;
  }

  private void runTimerLoop() {
    lastBlockedNanos = nanoTime.getAsLong();
    List<Task> due = new ArrayList<>();
    while (!closed) {
      Thread.interrupted();
      drainIncoming();
      Pause p = pause;
      if (p.paused()) {
        plannedWake = Long.MAX_VALUE;
        if (incoming.isEmpty() && pause.paused() && !closed) LockSupport.park(this);
        lastBlockedNanos = nanoTime.getAsLong();
        plannedWake = AWAKE;
        continue;
      }
      long now = wheelNow(p);
      collectDue(now, due);
      if (!due.isEmpty()) {
        for (Task t : due) fire(t);
        due.clear();
        continue; // firing took time: look again before waiting
      }
      long next = earliestDeadline();
      if (next == Long.MAX_VALUE) {
        plannedWake = Long.MAX_VALUE;
        if (incoming.isEmpty() && !closed && !pause.paused()) LockSupport.park(this);
        lastBlockedNanos = nanoTime.getAsLong();
        plannedWake = AWAKE;
        continue;
      }
      long wait = next - now;
      if (wait > spinNanos) {
        plannedWake = next;
        if (incoming.isEmpty() && !closed) LockSupport.parkNanos(this, wait - spinNanos);
        lastBlockedNanos = nanoTime.getAsLong();
        plannedWake = AWAKE;
      } else if (nanoTime.getAsLong() - lastBlockedNanos > spinNanos) {
        // as HighResScheduler: never spin from one deadline to the next without blocking once
        plannedWake = next;
        LockSupport.parkNanos(this, 1L);
        lastBlockedNanos = nanoTime.getAsLong();
        plannedWake = AWAKE;
      } else {
        plannedWake = next;
        while (wheelNow(pause) - next < 0 && incoming.isEmpty() && !closed && !pause.paused()) Thread.onSpinWait();
        plannedWake = AWAKE;
      }
    }
  }

  private void drainIncoming() {
    Task t;
    while ((t = incoming.poll()) != null) {
      if (t.isCancelled()) continue;
      insert(t);
    }
  }

  private void insert(Task t) {
    long tick = Math.max(t.deadline >> TICK_SHIFT, currentTick);
    int slot = (int) (tick & MASK);
    t.next = slots[slot];
    slots[slot] = t;
    inWheel++;
  }

  /** Takes every task due at {@code now} (and drops cancelled ones) from the slots up to now's, into {@code due}. */
  private void collectDue(long now, List<Task> due) {
    long nowTick = now >> TICK_SHIFT;
    long from = currentTick;
    if (nowTick - from >= SLOTS) from = nowTick - SLOTS + 1; // a long stall: every slot once
    for (long tick = from; tick <= nowTick; tick++) {
      int slot = (int) (tick & MASK);
      Task prev = null;
      for (Task t = slots[slot]; t != null; ) {
        Task next = t.next;
        if (t.isCancelled() || t.deadline - now <= 0) {
          if (prev == null) slots[slot] = next; else prev.next = next;
          t.next = null;
          inWheel--;
          if (!t.isCancelled()) due.add(t);
        } else {
          prev = t;
        }
        t = next;
      }
    }
    if (nowTick > currentTick) currentTick = nowTick;
    if (due.size() > 1) due.sort(Comparator.comparingLong((Task x) -> x.deadline).thenComparingLong(x -> x.seq));
  }

  /** The earliest deadline in the wheel (Long.MAX_VALUE: none): the first slot, in turn order, with a task of its turn. */
  private long earliestDeadline() {
    if (inWheel == 0) return Long.MAX_VALUE;
    long best = Long.MAX_VALUE;
    for (int i = 0; i < SLOTS; i++) {
      long tick = currentTick + i;
      for (Task t = slots[(int) (tick & MASK)]; t != null; t = t.next) {
        if (!t.isCancelled() && (t.deadline >> TICK_SHIFT) <= tick && t.deadline < best) best = t.deadline;
      }
      if (best != Long.MAX_VALUE) return best;
    }
    // only later turns: wake at the next turn's start and look again
    return (currentTick + SLOTS) << TICK_SHIFT;
  }

  private void fire(Task task) {
    if (task.period == 0L) {
      if (task.claimForRun()) runSafely(task.runnable);
      return;
    }
    if (task.isCancelled()) return;
    runSafely(task.runnable);
    task.deadline += task.period;
    if (!closed && !task.isCancelled()) {
      task.seq = seqs.getAndIncrement();
      insert(task);
    }
  }

  private void runSafely(Runnable runnable) {
    try {
      runnable.run();
    } catch (SchedulerException e) {
      // the target was terminated during shutdown: expected, as in Pekko's own scheduler
    } catch (VirtualMachineError e) {
      throw e;
    } catch (Throwable e) {
      log.error(e, "exception while running a timer task");
    }
  }

  /** A scheduled runnable and the handle its submitter cancels it with; a cancelled one leaves at its slot's turn. */
  private static final class Task implements Cancellable {
    private static final int SCHEDULED = 0;
    private static final int DONE = 1;
    private static final int CANCELLED = 2;

    final Runnable runnable;
    final ExecutionContext executor;
    final long period;
    long deadline;
    long seq;
    Task next;
    private final AtomicInteger state = new AtomicInteger(SCHEDULED);

    Task(Runnable runnable, ExecutionContext executor, long deadline, long period) {
      this.runnable = runnable;
      this.executor = executor;
      this.deadline = deadline;
      this.period = period;
    }

    boolean claimForRun() {
      return state.compareAndSet(SCHEDULED, DONE);
    }

    @Override
    public boolean cancel() {
      if (!state.compareAndSet(SCHEDULED, CANCELLED)) return false;
      if (runnable instanceof SchedulerTask schedulerTask) {
        try {
          executor.execute(schedulerTask::cancelled);
        } catch (RuntimeException e) {
          executor.reportFailure(e);
        }
      }
      return true;
    }

    @Override
    public boolean isCancelled() {
      return state.get() == CANCELLED;
    }
  }
}
