package org.gpuemu.emulator.clock;

import com.typesafe.config.Config;
import java.util.concurrent.ThreadFactory;
import java.util.function.LongSupplier;
import org.apache.pekko.event.NoLogging;

/** The run's timer scheduler keeps the {@link SchedulerContract}. */
class HighResSchedulerTest extends SchedulerContract<HighResScheduler> {
  @Override
  HighResScheduler create(long spinNanos, LongSupplier nanoSource, ThreadFactory threadFactory) {
    return new HighResScheduler(spinNanos, nanoSource, NoLogging.getInstance(), threadFactory);
  }

  @Override
  HighResScheduler fromConfig(Config config, ThreadFactory threadFactory) {
    return new HighResScheduler(config, NoLogging.getInstance(), threadFactory);
  }

  @Override
  long spinNanos(HighResScheduler scheduler) {
    return scheduler.spinNanos();
  }

  @Override
  void wake(HighResScheduler scheduler) {
    scheduler.wake();
  }

  @Override
  void pause(HighResScheduler scheduler, long wallNanos) {
    scheduler.pause(wallNanos);
  }

  @Override
  void resume(HighResScheduler scheduler, long wallNanos) {
    scheduler.resume(wallNanos);
  }

  @Override
  void close(HighResScheduler scheduler) {
    scheduler.close();
  }
}
