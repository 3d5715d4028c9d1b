package org.gpuemu.emulator.faults;

import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.clock.Timed;
import org.gpuemu.emulator.config.FaultPlan;

/**
 * Injects the run's planned faults ({@link FaultPlan}): from time zero it arms one timer per fault and, at
 * each fault's model time, tells the run to strike it ({@link Strike}; the guardian routes it to the actor the kind
 * hits, since this package sits below every actor it can hit). The hit actors answer when the fault healed and when
 * the target VM completed a request again ({@link Outcome}); {@link Report} hands the record of every fault over at
 * the end. With no fault planned it arms nothing and hears nothing: a run without faults carries no extra message.
 */
public final class FaultInjector extends AbstractBehavior<FaultInjector.Command> {

  public sealed interface Command {}

  /** Emulated time zero: the faults' timers are armed from here. */
  public enum Begin implements Command { INSTANCE }

  /** To the run: strike {@code fault} now, at {@code atNanos}; the hit actors tell {@code outcomes} how it went. */
  public record Strike(FaultPlan.Fault fault, long atNanos, ActorRef<Outcome> outcomes) {}

  /** What a hit actor tells of a fault. */
  public sealed interface Outcome extends Command {}

  /** Fault {@code fault}'s effect ended at {@code atNanos} (the watchdog's reset, the restart, the stall's end). */
  public record Healed(int fault, long atNanos) implements Outcome {}

  /** The target VM of fault {@code fault} completed a request at {@code atNanos}, its first since the heal. */
  public record Recovered(int fault, long atNanos) implements Outcome {}

  public record Report(ActorRef<List<Record>> replyTo) implements Command {}

  /**
   * To whoever marks fault windows (the timeline): fault {@code fault}, {@code label} ({@code kind@target}), began or
   * ended at {@code atNanos}.
   */
  public record Window(int fault, String label, long atNanos, boolean began) {}

  /**
   * A fault not in the plan, struck now (a control from outside the run, docs/guides/report-and-dashboard.md): it takes
   * the next id and is struck, healed, recovered and reported as a planned one.
   */
  public record Inject(FaultPlan.Kind kind, String target, long healAfterNanos) implements Command {}

  /** What happened to one fault; times are emulated nanoseconds, -1 when it did not happen (yet). */
  public record Record(FaultPlan.Fault fault, long injectedNanos, long healedNanos, long recoveredNanos) {}

  private record Fire(int fault, long due) implements Command, Timed {}

  private final FaultPlan plan;
  private final RunContext run;
  private final TimerScheduler<Command> timers;
  private final ActorRef<Strike> strikes;
  private final ActorRef<Window> windows;
  /** The plan's faults, then those injected from outside, by id. */
  private final List<FaultPlan.Fault> faults;
  private long[] injected;
  private long[] healed;
  private long[] recovered;

  /** {@code windows} hears when each fault begins and ends. */
  public static Behavior<Command> create(FaultPlan plan, RunContext run, ActorRef<Strike> strikes,
      ActorRef<Window> windows) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers ->
        run.causal(new FaultInjector(ctx, plan, run, timers, strikes, windows))));
  }

  private FaultInjector(ActorContext<Command> ctx, FaultPlan plan, RunContext run, TimerScheduler<Command> timers,
      ActorRef<Strike> strikes, ActorRef<Window> windows) {
    super(ctx);
    this.windows = windows;
    this.plan = plan;
    this.run = run;
    this.timers = timers;
    this.strikes = strikes;
    this.faults = new ArrayList<>(plan.faults());
    int n = plan.faults().size();
    injected = filled(n);
    healed = filled(n);
    recovered = filled(n);
  }

  private static long[] filled(int n) {
    long[] a = new long[n];
    java.util.Arrays.fill(a, -1);
    return a;
  }

  @Override public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Begin.class, m -> onBegin())
        .onMessage(Fire.class, this::onFire)
        .onMessage(Inject.class, this::onInject)
        .onMessage(Healed.class, this::onHealed)
        .onMessage(Recovered.class, this::onRecovered)
        .onMessage(Report.class, this::onReport)
        .build();
  }

  private Behavior<Command> onBegin() {
    for (FaultPlan.Fault f : plan.faults()) run.arm(timers, f.id(), new Fire(f.id(), f.atNanos()), f.atNanos());
    return Behaviors.same();
  }

  private Behavior<Command> onFire(Fire msg) {
    strike(faults.get(msg.fault()), run.fired(msg.due()));
    return Behaviors.same();
  }

  private Behavior<Command> onInject(Inject msg) {
    long at = run.now();
    FaultPlan.Fault f = new FaultPlan.Fault(faults.size(), msg.kind(), at, msg.target(), msg.healAfterNanos());
    faults.add(f);
    injected = grown(injected);
    healed = grown(healed);
    recovered = grown(recovered);
    strike(f, at);
    return Behaviors.same();
  }

  private static long[] grown(long[] a) {
    long[] b = java.util.Arrays.copyOf(a, a.length + 1);
    b[a.length] = -1;
    return b;
  }

  private void strike(FaultPlan.Fault f, long at) {
    injected[f.id()] = at;
    getContext().getLog().info("fault {}: {} on {} at {} s (heal after {} s)", f.id(), f.kind().label(), f.target(),
        at / 1e9, f.healAfterNanos() / 1e9);
    windows.tell(new Window(f.id(), label(f), at, true));
    if (f.kind() == FaultPlan.Kind.EMULATOR_STALL) {
      stall(f.healAfterNanos());
      healed[f.id()] = at; // the model did not move while the emulator stood still
      recovered[f.id()] = at;
      windows.tell(new Window(f.id(), label(f), at, false));
    } else {
      strikes.tell(new Strike(f, at, getContext().getSelf().narrow()));
    }
  }

  /**
   * emulator-stall: blocks this dispatcher thread for {@code wallNanos}, holding up the event it handles. Under the
   * conservative order the whole model waits for it (nothing later may be handled first) and falls behind the wall
   * clock by as much; under the arrival order the other thread runs on, and events that should have come after
   * this one are handled before what it sends.
   */
  private static void stall(long wallNanos) {
    long end = System.nanoTime() + wallNanos;
    for (long left = wallNanos; left > 0; left = end - System.nanoTime()) {
      java.util.concurrent.locks.LockSupport.parkNanos(left);
    }
  }

  private Behavior<Command> onHealed(Healed msg) {
    if (healed[msg.fault()] >= 0) return Behaviors.same();
    healed[msg.fault()] = msg.atNanos();
    windows.tell(new Window(msg.fault(), label(faults.get(msg.fault())), msg.atNanos(), false));
    return Behaviors.same();
  }

  private static String label(FaultPlan.Fault f) {
    return f.kind().label() + "@" + f.target();
  }

  private Behavior<Command> onRecovered(Recovered msg) {
    if (recovered[msg.fault()] < 0) recovered[msg.fault()] = msg.atNanos();
    return Behaviors.same();
  }

  private Behavior<Command> onReport(Report msg) {
    List<Record> records = new ArrayList<>();
    for (FaultPlan.Fault f : faults) {
      records.add(new Record(f, injected[f.id()], healed[f.id()], recovered[f.id()]));
    }
    msg.replyTo().tell(List.copyOf(records));
    return Behaviors.same();
  }
}
