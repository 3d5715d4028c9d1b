package org.gpuemu.emulator.run;

import com.typesafe.config.Config;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.pekko.dispatch.DispatcherPrerequisites;
import org.apache.pekko.dispatch.ExecutorServiceConfigurator;
import org.apache.pekko.dispatch.ExecutorServiceFactory;
import org.apache.pekko.dispatch.MonitorableThreadFactory;
import org.gpuemu.emulator.clock.Causality;

/**
 * The executor of a dispatcher of one thread (the conservative order's, and each host thread's:
 * {@code executor = "org.gpuemu.emulator.run.DispatcherThread"}), in place of a {@code ThreadPoolExecutor} of one
 * thread. Most of what such a dispatcher runs is scheduled from its own thread (an actor sends to an idle actor of
 * the same dispatcher, whose mailbox is then put on the executor): that goes into a plain queue of the thread's own,
 * without the pool's lock, its signal to idle workers or a queue node per mailbox. What other threads schedule (the
 * timer thread's timers, another dispatcher's messages) goes into a concurrent queue, which the thread drains into its
 * own before it runs the next task; it unparks the thread only when the thread has parked for want of work. Tasks run
 * one at a time in the order they were scheduled from each side, as the pool ran them; the run's figures do not
 * depend on that order (the causal order decides what each actor handles when).
 */
public final class DispatcherThread extends ExecutorServiceConfigurator {

  /** The constructor Pekko calls for a configured executor. */
  public DispatcherThread(Config config, DispatcherPrerequisites prerequisites) {
    super(config, prerequisites);
  }

  @Override
  public ExecutorServiceFactory createExecutorServiceFactory(String id, ThreadFactory threadFactory) {
    // named as Pekko's own executors name their threads: the system's name, the dispatcher's id, a number
    ThreadFactory named = threadFactory instanceof MonitorableThreadFactory m ? m.withName(m.name() + "-" + id)
        : threadFactory;
    return new ExecutorServiceFactory() {
      @Override
      public ExecutorService createExecutorService() {
        return new Executor(named);
      }
    };
  }

  /** One thread, its own queue, and a concurrent queue for what other threads schedule. */
  static final class Executor extends AbstractExecutorService {
    private final Thread thread;
    /** Scheduled from the thread itself; touched by the thread only. */
    private final ArrayDeque<Runnable> own = new ArrayDeque<>();
    /** Scheduled from other threads. */
    private final ConcurrentLinkedQueue<Runnable> others = new ConcurrentLinkedQueue<>();
    /** Set after a task is put into {@link #others}: the thread drains it before the next task. */
    private volatile boolean othersPending;
    /** The thread found no work and is about to park, or parks: a task from another thread must unpark it. */
    private volatile boolean idle;
    private volatile boolean shutdown;
    private volatile boolean terminated;

    Executor(ThreadFactory threadFactory) {
      thread = causal(threadFactory.newThread(this::work));
      thread.start();
    }

    /**
     * The thread Pekko's factory made ({@code made}, not started: its name, daemon flag, exception handler), as a
     * {@link Causality.CausalThread}, which carries the causal order's per-thread state in a field.
     */
    private Thread causal(Thread made) {
      Thread t = new Causality.CausalThread(this::work, made.getName());
      t.setDaemon(made.isDaemon());
      t.setPriority(made.getPriority());
      t.setUncaughtExceptionHandler(made.getUncaughtExceptionHandler());
      t.setContextClassLoader(made.getContextClassLoader());
      return t;
    }

    @Override
    public void execute(Runnable task) {
      if (shutdown) throw new RejectedExecutionException("the dispatcher thread is shut down");
      if (Thread.currentThread() == thread) {
        own.addLast(task);
        return;
      }
      others.offer(task);
      othersPending = true;
      // shut down between the check above and the offer: the thread may have left already, so take the task back
      // (if it is still there) and refuse it, as ThreadPoolExecutor re-checks after queueing
      if (shutdown && others.remove(task)) {
        throw new RejectedExecutionException("the dispatcher thread is shut down");
      }
      if (idle) LockSupport.unpark(thread);
    }

    private void work() {
      try {
        while (true) {
          if (othersPending) drainOthers();
          Runnable task = own.pollFirst();
          if (task != null) {
            run(task);
            continue;
          }
          if (shutdown && others.isEmpty()) return;
          idle = true;
          // a task put into the queue before idle was set is seen here; one put after it unparks the thread
          if (!othersPending && !shutdown) LockSupport.park(this);
          idle = false;
        }
      } finally {
        terminated = true;
      }
    }

    private void drainOthers() {
      othersPending = false;
      Runnable task;
      while ((task = others.poll()) != null) own.addLast(task);
    }

    private void run(Runnable task) {
      try {
        task.run();
      } catch (Throwable t) {
        Thread.UncaughtExceptionHandler handler = thread.getUncaughtExceptionHandler();
        if (handler != null) handler.uncaughtException(thread, t);
      } finally {
        // an interrupt a task left set would make every later park return at once (a busy loop when idle);
        // ThreadPoolExecutor clears it between tasks too
        Thread.interrupted();
      }
    }

    @Override
    public void shutdown() {
      shutdown = true;
      LockSupport.unpark(thread);
    }

    @Override
    public List<Runnable> shutdownNow() {
      shutdown();
      List<Runnable> left = new ArrayList<>();
      Runnable task;
      while ((task = others.poll()) != null) left.add(task);
      return left;
    }

    @Override
    public boolean isShutdown() {
      return shutdown;
    }

    @Override
    public boolean isTerminated() {
      return terminated;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
      thread.join(Math.max(1, unit.toMillis(timeout)));
      return terminated;
    }
  }
}
