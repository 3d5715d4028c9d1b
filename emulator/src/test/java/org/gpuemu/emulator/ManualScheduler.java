package org.gpuemu.emulator;

import com.typesafe.config.Config;
import java.io.Closeable;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.ThreadFactory;
import org.apache.pekko.actor.AbstractSchedulerBase;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.Scheduler;
import org.apache.pekko.event.LoggingAdapter;
import scala.concurrent.ExecutionContext;
import scala.concurrent.duration.FiniteDuration;

/**
 * An actor system's scheduler whose time moves only when a test moves it ({@link #advanceTo}), to the nanosecond:
 * installed with {@code pekko.scheduler.implementation} by {@link ManualTimeKit}. Pekko's own {@code ManualTime}
 * counts whole milliseconds and pauses 100 ms of wall time at every move; this one does neither, and it tells when
 * its next task is due ({@link #nextDue}), so that a test can move time from one timer to the next.
 */
public final class ManualScheduler extends AbstractSchedulerBase implements Closeable {
  private final PriorityQueue<Task> queue = new PriorityQueue<>((a, b) ->
      a.due != b.due ? Long.compare(a.due, b.due) : Long.compare(a.seq, b.seq));
  private long now;
  private long seq;
  private boolean closed;

  /** The constructor Pekko calls. */
  public ManualScheduler(Config config, LoggingAdapter log, ThreadFactory threadFactory) {}

  @Override
  public synchronized Cancellable scheduleOnce(FiniteDuration delay, Runnable runnable, ExecutionContext executor) {
    return enqueue(new Task(runnable, now + Math.max(0, delay.toNanos()), 0));
  }

  @Override
  @SuppressWarnings("deprecation") // deprecated for callers; it stays the primitive scheduleAtFixedRate calls
  public synchronized Cancellable schedule(FiniteDuration initialDelay, FiniteDuration interval, Runnable runnable,
      ExecutionContext executor) {
    if (interval.toNanos() <= 0) throw new IllegalArgumentException("interval must be > 0: " + interval);
    return enqueue(new Task(runnable, now + Math.max(0, initialDelay.toNanos()), interval.toNanos()));
  }

  @Override
  public double maxFrequency() {
    return 1e9;
  }

  /** The scheduler's time, ns from its start. */
  public synchronized long now() {
    return now;
  }

  /** When the next task not cancelled is due (Long.MAX_VALUE: none). */
  public synchronized long nextDue() {
    while (!queue.isEmpty() && queue.peek().cancelled) queue.poll();
    return queue.isEmpty() ? Long.MAX_VALUE : queue.peek().due;
  }

  /** Moves time to {@code time} (not back), running every task due until then in due order, each at its time. */
  public void advanceTo(long time) {
    while (true) {
      Task next;
      synchronized (this) {
        if (time < now) throw new IllegalArgumentException("time goes back: " + time + " < " + now);
        next = queue.peek();
        if (next == null || next.due > time) {
          now = time;
          return;
        }
        queue.poll();
        now = next.due;
        if (next.cancelled) continue;
        if (next.period > 0) {
          next.due += next.period;
          next.seq = seq++;
          queue.add(next);
        } else {
          next.done = true;
        }
      }
      next.runnable.run();
    }
  }

  /** Runs the tasks that must run when the scheduler closes (Pekko's contract); the rest are dropped. */
  @Override
  public void close() {
    List<Task> onClose = new ArrayList<>();
    synchronized (this) {
      if (closed) return;
      closed = true;
      for (Task t : queue) if (!t.cancelled && t.runnable instanceof Scheduler.TaskRunOnClose) onClose.add(t);
      queue.clear();
    }
    for (Task t : onClose) t.runnable.run();
  }

  private Cancellable enqueue(Task task) {
    if (closed) throw new IllegalStateException("the scheduler is closed");
    task.seq = seq++;
    queue.add(task);
    return task;
  }

  /** A scheduled runnable and its handle. */
  private final class Task implements Cancellable {
    final Runnable runnable;
    final long period;
    long due;
    long seq;
    boolean cancelled;
    boolean done;

    Task(Runnable runnable, long due, long period) {
      this.runnable = runnable;
      this.due = due;
      this.period = period;
    }

    @Override
    public boolean cancel() {
      synchronized (ManualScheduler.this) {
        if (cancelled || done) return false;
        cancelled = true;
        return true;
      }
    }

    @Override
    public boolean isCancelled() {
      synchronized (ManualScheduler.this) {
        return cancelled;
      }
    }
  }
}
