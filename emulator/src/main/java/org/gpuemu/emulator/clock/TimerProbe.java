package org.gpuemu.emulator.clock;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.ToLongFunction;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * Measures how late {@code Behaviors.withTimers} timers arrive under a given Pekko scheduler configuration: the
 * harness behind the {@code bench} command, and a {@link #main} that compares Pekko's default scheduler, its 1 ms
 * tick and {@link HighResScheduler} on this machine.
 *
 * <p>Lateness is due-to-receipt: it includes the dispatcher hop, because that is what an emulated kernel or frame
 * actually experiences.
 */
public final class TimerProbe {

  /**
   * The default dispatcher the emulator should run on: the Pekko notes in CONTRIBUTING.md found JDK 17's ForkJoinPool
   * with parallelism 1-2 starving timer-driven actors when two actor chains stayed busy (apache/pekko#661), while a
   * fixed 2-thread pool did not and gave the best loaded lateness. Two threads because this machine has two cores;
   * never more threads than cores. With {@link HighResScheduler} spinning, two threads are already one busy thread more
   * than two cores: {@link #main} has a one-thread row to weigh that.
   */
  public static final Config RECOMMENDED_DISPATCHER =
      ConfigFactory.parseString(
          """
          pekko.actor.default-dispatcher {
            executor = "thread-pool-executor"
            thread-pool-executor.fixed-pool-size = 2
          }
          """);

  /** Installs {@link HighResScheduler} as the actor system's scheduler. */
  public static final Config HIGH_RES_SCHEDULER =
      ConfigFactory.parseString("pekko.scheduler.implementation = \"" + HighResScheduler.class.getName() + "\"");

  // Quiet, and no JVM hook: the probe owns the system's whole life and its output is the table.
  private static final Config PROBE_DEFAULTS =
      ConfigFactory.parseString(
          """
          pekko.loglevel = "WARNING"
          pekko.stdout-loglevel = "WARNING"
          pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off
          """);

  private TimerProbe() {}

  /**
   * The three timer mechanisms the bench compares, in table order: Pekko's default scheduler (10 ms tick), its
   * finest tick (1 ms) and {@link HighResScheduler}, the emulator's timer path. Each runs on {@link
   * #RECOMMENDED_DISPATCHER}, so that only the scheduler differs.
   */
  public static List<Variant> schedulers() {
    return List.of(
        new Variant("pekko default (10ms tick)", RECOMMENDED_DISPATCHER),
        new Variant("pekko tick-duration=1ms",
            ConfigFactory.parseString("pekko.scheduler.tick-duration = 1ms").withFallback(RECOMMENDED_DISPATCHER)),
        new Variant("HighResScheduler (emulator)", HIGH_RES_SCHEDULER.withFallback(RECOMMENDED_DISPATCHER)));
  }

  /**
   * Lateness of {@code timers} actors each arming {@code rounds} successive single timers of random delay.
   *
   * @param pekkoOverrides configuration laid over the classpath's (scheduler, dispatcher)
   * @param timers concurrent actors, each with one timer armed at any moment
   * @param minDelayNanos shortest delay, inclusive
   * @param maxDelayNanos longest delay, inclusive
   * @param rounds timers each actor arms one after the other
   * @param seed seed of the delays, so that compared configurations see the same ones
   * @return due-to-receipt lateness in microseconds
   */
  public static Result measure(
      Config pekkoOverrides, int timers, long minDelayNanos, long maxDelayNanos, int rounds, long seed) {
    return measure(pekkoOverrides, new Setup(timers, minDelayNanos, maxDelayNanos, rounds), seed);
  }

  /** Lateness of the setup's timers under the given Pekko configuration; see {@link Setup}. */
  public static Result measure(Config pekkoOverrides, Setup setup, long seed) {
    // Scale 1: emulated and wall time coincide, so the numbers read directly as scheduler quality.
    EmulatedClock clock = new ScaledClock(1.0);
    TimerLateness lateness = new TimerLateness(clock);
    Spec spec = new Spec(setup, seed, clock, lateness);
    Config config = pekkoOverrides.withFallback(PROBE_DEFAULTS).withFallback(ConfigFactory.load());
    ActorSystem<Collector.Command> system = ActorSystem.create(Collector.create(spec), "timer-probe", config);
    // Generous: even a 10 ms tick is at most a few ticks late per round; a hang must still end the bench.
    long timeoutMillis =
        30_000 + setup.rounds() * (TimeUnit.NANOSECONDS.toMillis(setup.maxDelayNanos()) + 1_000);
    try {
      system.getWhenTerminated().toCompletableFuture().get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      system.terminate();
      throw new IllegalStateException("timer probe did not finish within " + timeoutMillis + " ms", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("timer probe actor system failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      system.terminate();
      throw new IllegalStateException("interrupted while probing timers", e);
    }
    return Result.of(lateness.snapshot());
  }

  /**
   * Measures every variant {@code trials} times, interleaved (trial 1 of each, then trial 2 of each, ...) after
   * {@code warmUps} unrecorded rounds of each, so that JIT warm-up and machine noise fall on all variants alike.
   * Within a trial every variant gets the same delays (the same seed).
   *
   * @param each told of every recorded measurement as it completes (progress), may be a no-op
   * @return per variant, in the order given, its results in trial order
   */
  public static List<List<Result>> interleaved(
      List<Variant> variants, Setup setup, int warmUps, int trials, long seed, BiConsumer<Variant, Result> each) {
    for (int warmUp = 0; warmUp < warmUps; warmUp++) {
      for (Variant variant : variants) {
        measure(variant.config(), setup, seed);
      }
    }
    List<List<Result>> results = new ArrayList<>();
    for (int v = 0; v < variants.size(); v++) {
      results.add(new ArrayList<>());
    }
    for (int trial = 0; trial < trials; trial++) {
      for (int v = 0; v < variants.size(); v++) {
        Result r = measure(variants.get(v).config(), setup, seed + trial);
        results.get(v).add(r);
        each.accept(variants.get(v), r);
      }
    }
    return results;
  }

  /**
   * Prints lateness of 100 actors x 10 rounds of 0.1-10 ms timers under the default, 1 ms-tick and high-resolution
   * schedulers, plus two high-resolution variants (no spin; one dispatcher thread). With arguments {@code TIMERS
   * ROUNDS TRIALS}: that many actors and rounds, that many interleaved trials, of the timer designs alone: Pekko's
   * 1 ms tick, {@link HighResScheduler} and {@link WheelScheduler}.
   */
  public static void main(String[] args) {
    boolean designs = args.length == 3;
    Setup setup = designs
        ? new Setup(Integer.parseInt(args[0]), TimeUnit.MICROSECONDS.toNanos(100), TimeUnit.MILLISECONDS.toNanos(10),
            Integer.parseInt(args[1]))
        : new Setup(100, TimeUnit.MICROSECONDS.toNanos(100), TimeUnit.MILLISECONDS.toNanos(10), 10);
    int warmUps = designs ? 1 : 4;
    int trials = designs ? Integer.parseInt(args[2]) : 7;
    long seed = 42;
    List<Variant> variants = new ArrayList<>();
    if (designs) {
      variants.add(schedulers().get(1));
      variants.add(schedulers().get(2));
      variants.add(new Variant("WheelScheduler", ConfigFactory.parseString("pekko.scheduler.implementation = \""
          + WheelScheduler.class.getName() + "\"").withFallback(RECOMMENDED_DISPATCHER)));
    } else {
      variants.addAll(schedulers());
      // Park only: shows what the spin buys and what it costs when dense timers keep it spinning.
      variants.add(new Variant("HighResScheduler spin=0",
          ConfigFactory.parseString(HighResScheduler.SPIN_PATH + " = 0us")
              .withFallback(HIGH_RES_SCHEDULER).withFallback(RECOMMENDED_DISPATCHER)));
      // Spinning timer thread + 2 dispatcher threads is one busy thread more than 2 cores: this row shows the price
      // of that against 1 dispatcher thread.
      variants.add(new Variant("HighResScheduler, 1 disp. thread",
          ConfigFactory.parseString("pekko.actor.default-dispatcher.thread-pool-executor.fixed-pool-size = 1")
              .withFallback(HIGH_RES_SCHEDULER).withFallback(RECOMMENDED_DISPATCHER)));
    }

    System.out.printf(
        Locale.ROOT,
        "Timer lateness, due to receipt, us: %d actors x %d rounds of %d-%d us single timers; %d cores, Java %s,"
            + " default dispatcher = fixed 2-thread thread-pool-executor unless named; %d warm-up rounds, %d trials%n",
        setup.timers(), setup.rounds(), setup.minDelayNanos() / 1_000, setup.maxDelayNanos() / 1_000,
        Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), warmUps, trials);
    List<List<Result>> results = interleaved(variants, setup, warmUps, trials, seed, (v, r) -> {});

    String row = "%-32s %-7s %7s %9s %9s %9s %9s%n";
    System.out.printf(Locale.ROOT, row, "scheduler", "trial", "timers", "p50", "p99", "p99.9", "max");
    for (int v = 0; v < variants.size(); v++) {
      String name = variants.get(v).name();
      List<Result> all = results.get(v);
      for (int trial = 0; trial < all.size(); trial++) {
        Result r = all.get(trial);
        System.out.printf(Locale.ROOT, row, name, trial + 1, r.count(), r.p50(), r.p99(), r.p999(), r.max());
      }
      Result m = Result.median(all);
      System.out.printf(Locale.ROOT, row, name, "median", m.count(), m.p50(), m.p99(), m.p999(), m.max());
    }
  }

  /**
   * What to probe: {@code timers} actors, each with one single timer armed at any moment, re-armed {@code rounds}
   * times with a delay drawn uniformly in [{@code minDelayNanos}, {@code maxDelayNanos}].
   */
  public record Setup(int timers, long minDelayNanos, long maxDelayNanos, int rounds) {
    public Setup {
      if (timers < 1 || rounds < 1 || minDelayNanos < 0 || maxDelayNanos < minDelayNanos) {
        throw new IllegalArgumentException(
            "need timers >= 1, rounds >= 1 and 0 <= minDelay <= maxDelay; got timers="
                + timers + " rounds=" + rounds + " delays=[" + minDelayNanos + ", " + maxDelayNanos + "]ns");
      }
    }
  }

  /** A named Pekko configuration to probe (scheduler and dispatcher settings). */
  public record Variant(String name, Config config) {}

  /**
   * Due-to-receipt lateness of the probed timers, in microseconds.
   *
   * @param count timers that fired
   * @param p50 median lateness, µs
   * @param p99 99th percentile, µs
   * @param p999 99.9th percentile, µs
   * @param max largest lateness, µs
   */
  public record Result(long count, long p50, long p99, long p999, long max) {
    static Result of(TimerLateness.Snapshot s) {
      return new Result(s.count(), s.p50(), s.p99(), s.p999(), s.max());
    }

    /** Column by column median of trials (upper median for an even count); each column is a median of its own. */
    public static Result median(List<Result> trials) {
      if (trials.isEmpty()) {
        throw new IllegalArgumentException("no trials to take the median of");
      }
      return new Result(
          median(trials, Result::count), median(trials, Result::p50), median(trials, Result::p99),
          median(trials, Result::p999), median(trials, Result::max));
    }

    private static long median(List<Result> results, ToLongFunction<Result> column) {
      long[] values = results.stream().mapToLong(column).sorted().toArray();
      return values[values.length / 2];
    }
  }

  private record Spec(Setup setup, long seed, EmulatedClock clock, TimerLateness lateness) {}

  /** Guardian: spawns the samplers and stops (ending the actor system) when the last one is done. */
  private static final class Collector extends AbstractBehavior<Collector.Command> {
    sealed interface Command {}

    enum SamplerFinished implements Command {
      INSTANCE
    }

    private int running;

    static Behavior<Command> create(Spec spec) {
      return Behaviors.setup(ctx -> new Collector(ctx, spec));
    }

    private Collector(ActorContext<Command> ctx, Spec spec) {
      super(ctx);
      SplittableRandom seeds = new SplittableRandom(spec.seed());
      for (int i = 0; i < spec.setup().timers(); i++) {
        // split() in spawn order: each sampler's delays depend only on the seed and its index.
        ctx.spawn(Sampler.create(spec, seeds.split(), ctx.getSelf()), "sampler-" + i);
      }
      running = spec.setup().timers();
    }

    @Override
    public Receive<Command> createReceive() {
      return newReceiveBuilder().onMessage(SamplerFinished.class, this::onSamplerFinished).build();
    }

    private Behavior<Command> onSamplerFinished(SamplerFinished finished) {
      running--;
      return running == 0 ? Behaviors.stopped() : this;
    }
  }

  /** Arms one single timer after another and records how late each arrives. */
  private static final class Sampler extends AbstractBehavior<Sampler.Command> {
    sealed interface Command {}

    private record Fired(long dueEmulatedNanos) implements Command {}

    private enum TimerKey {
      INSTANCE
    }

    private final Spec spec;
    private final SplittableRandom random;
    private final TimerScheduler<Command> timers;
    private final ActorRef<Collector.Command> collector;
    private int remaining;

    static Behavior<Command> create(Spec spec, SplittableRandom random, ActorRef<Collector.Command> collector) {
      return Behaviors.setup(
          ctx -> Behaviors.withTimers(timers -> new Sampler(ctx, spec, random, timers, collector)));
    }

    private Sampler(
        ActorContext<Command> ctx,
        Spec spec,
        SplittableRandom random,
        TimerScheduler<Command> timers,
        ActorRef<Collector.Command> collector) {
      super(ctx);
      this.spec = spec;
      this.random = random;
      this.timers = timers;
      this.collector = collector;
      this.remaining = spec.setup().rounds();
      arm();
    }

    @Override
    public Receive<Command> createReceive() {
      return newReceiveBuilder().onMessage(Fired.class, this::onFired).build();
    }

    private Behavior<Command> onFired(Fired fired) {
      spec.lateness().recordDue(fired.dueEmulatedNanos());
      remaining--;
      if (remaining == 0) {
        collector.tell(Collector.SamplerFinished.INSTANCE);
        return Behaviors.stopped();
      }
      arm();
      return this;
    }

    private void arm() {
      Setup setup = spec.setup();
      long delay = setup.minDelayNanos() + random.nextLong(setup.maxDelayNanos() - setup.minDelayNanos() + 1);
      EmulatedClock clock = spec.clock();
      timers.startSingleTimer(
          TimerKey.INSTANCE, new Fired(clock.nowNanos() + delay), Duration.ofNanos(clock.toWallNanos(delay)));
    }
  }
}
