package org.gpuemu.emulator.cpu;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.gpuemu.emulator.clock.Timed;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.javadsl.AbstractMatchingBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.faults.Crashed;
import org.gpuemu.emulator.faults.FaultInjector;
import org.gpuemu.policies.cpu.CpuPolicy;

/**
 * One physical core, shared among the vCPUs placed on it by a CPU policy. A vCPU asks to run for some CPU time
 * (or to spin until told to stop); the core runs one vCPU at a time in slices the policy chooses, and the time a
 * request waited while runnable is that vCPU's steal time. Slices are timed from their due time, not from when
 * the timer message arrived, so timer lateness never accumulates into CPU accounting.
 *
 * <p>Host work ({@link HostRun}: the hypervisor's own, such as gVirt's GTT copies in Dom0) is above the CPU policy:
 * it preempts the running vCPU at once, runs to completion without slices (several in arrival order), and the
 * policy never sees it; the vCPUs it kept waiting count it as steal time, as a guest sees the hypervisor's work.
 *
 * <p>The rules — a request's end is not a scheduling point, and what a context switch costs — are in
 * {@link CoreModel}, which this actor carries out: it turns messages into the model's events at their model times,
 * and the model's effects into timers and messages.
 *
 * <p>Faults: {@code vcpu-stall} ({@link Stall}), {@code cpu-scheduler-crash} ({@link Crash}), the
 * withdrawal of a crashed or rebooting vCPU's request ({@link Withdraw}): {@link CoreLedger}; {@link Offline}: gate.
 */
public final class CpuScheduler extends AbstractMatchingBehavior<CpuScheduler.Command> {

  public sealed interface Command {}

  /**
   * Run vCPU {@code vcpu} for {@code nanos} of CPU time ({@link Long#MAX_VALUE}: spin until {@link Finish}), asked
   * at emulated time {@code atNanos} (the model time of the event the vCPU acted on; -1: when it arrives). Going by
   * the model time rather than the message's arrival keeps message latency out of emulated time. {@code yields}:
   * the vCPU, holding the core after its request ended, yields it before this request ({@link CoreModel#run}).
   */
  public record Run(int vcpu, int weight, long nanos, DoneTo replyTo, long atNanos, boolean yields)
      implements Command {
    public Run(int vcpu, int weight, long nanos, DoneTo replyTo, long atNanos) {
      this(vcpu, weight, nanos, replyTo, atNanos, false);
    }

    public Run(int vcpu, int weight, long nanos, ActorRef<Done> replyTo, long atNanos) {
      this(vcpu, weight, nanos, DoneTo.of(replyTo), atNanos, false);
    }

    public Run(int vcpu, int weight, long nanos, ActorRef<Done> replyTo) {
      this(vcpu, weight, nanos, replyTo, -1);
    }
  }

  /** The vCPU's request leaves the core at {@code atNanos}: answered with the CPU time left ({@link Done}). */
  public record Withdraw(int vcpu, long atNanos) implements Command {}

  /** Fault {@code fault} (cpu-scheduler-crash) at {@code atNanos}: see {@link CoreLedger}. */
  public record Crash(int fault, long atNanos, ActorRef<FaultInjector.Outcome> outcomes) implements Command {}

  /** Fault {@code fault} ({@code core-offline}) from {@code atNanos} to {@code untilNanos}: see {@link CoreGate}. */
  public record Offline(int fault, long atNanos, long untilNanos, ActorRef<Command> fallback) implements Command {}
  record Online(long due) implements Command, Timed {}

  /**
   * Run this vCPU next, now (FairGV's coscheduling, Algorithm 4's {@code resched_cpu}): the running one is
   * preempted and stays runnable. Ignored when the vCPU has no request here or already runs. {@code atNanos} is the
   * model time of the GPU switch that asked for it.
   */
  public record Boost(int vcpu, long atNanos) implements Command {}

  /**
   * Pegasus's strict coscheduling, CPU side (fairgv.txt Algorithm 1): from now on, whenever this core switches to a
   * vCPU of a VM with a vGPU, it tells {@code gpu} ({@link SwitchedTo}), which may switch the GPU to that vGPU.
   * {@code vgpuOfVcpu} maps every vCPU to its VM's vGPU.
   */
  public record CoscheduleGpu(ActorRef<SwitchedTo> gpu, Map<Integer, Integer> vgpuOfVcpu) implements Command {}

  /** To a coscheduling GPU scheduler: the core switched to a vCPU of vGPU {@code vgpu}'s VM at {@code atNanos}. */
  public record SwitchedTo(int vgpu, long atNanos) {}

  /**
   * Run host work of {@code nanos} CPU time, asked at emulated time {@code atNanos} (-1: on arrival), before any
   * vCPU; {@link Done} (vCPU {@link #HOST}) goes to {@code replyTo} when it is done.
   */
  public record HostRun(long nanos, ActorRef<Done> replyTo, long atNanos) implements Command {}

  /**
   * The vCPU whose request ended gives the core up at {@code atNanos} (its guest blocks: a sleep, a blocked call,
   * its program's end): after every {@link Done} a vCPU sends either this or its next {@link Run}, at the model time
   * the request ended.
   */
  public record Release(int vcpu, long atNanos) implements Command {}

  /** End the vCPU's current request as soon as it is on the core (a spin saw its response, at {@code atNanos}). */
  public record Finish(int vcpu, long atNanos) implements Command {}

  /** Final figures of this core. */
  public record Report(ActorRef<CoreReport> replyTo) implements Command {}

  private record SliceEnded(long token, long due) implements Command, Timed {}

  /**
   * Fault {@code fault} ({@code vcpu-stall}): vCPU {@code vcpu} gets no core from {@code atNanos} for {@code nanos}:
   * taken off the core or never picked, its request waits and the wait is steal time. Recovery: at the end it is
   * runnable again as a waking vCPU (it may preempt) and goes on where it was; {@code outcomes} hears then.
   */
  public record Stall(int fault, int vcpu, long nanos, long atNanos, ActorRef<FaultInjector.Outcome> outcomes)
      implements Command {}

  private record StallEnded(int fault, long due) implements Command, Timed {}

  /**
   * Reply to {@link Run}: done at {@code endNanos}; it ran {@code ranNanos} and waited {@code stealNanos};
   * {@code remainingNanos} > 0: taken back before it was done ({@link Withdraw}, a crash), this much left to ask for
   * (the core does not hold for it: its vCPU sends no {@link Release}).
   */
  public record Done(int vcpu, long ranNanos, long stealNanos, long endNanos, long remainingNanos) {
    public Done(int vcpu, long ranNanos, long stealNanos, long endNanos) {
      this(vcpu, ranNanos, stealNanos, endNanos, 0);
    }
  }

  /**
   * Where the answer to a {@link Run} goes. A vCPU answers itself in its own protocol, one message it makes from these
   * figures, in place of a message adapter: an adapted reply costs a wrapper for the adapter's reference, another for
   * the registered adapters' lookup and that lookup in the receiver's interpreter, on every CPU request. Called on the
   * core's actor as it answers, so the message is sent from the event that ended the request, as any reply is.
   */
  public interface DoneTo {
    /** The request of {@code vcpu} ended at {@code endNanos}: the fields of {@link Done}. */
    void done(int vcpu, long ranNanos, long stealNanos, long endNanos, long remainingNanos);

    /** Answers {@code ref} with a {@link Done}. */
    static DoneTo of(ActorRef<Done> ref) {
      return new DoneRef(ref);
    }
  }

  /** {@link DoneTo} as a {@link Done} told to an actor (host work's requesters, tests). */
  public record DoneRef(ActorRef<Done> ref) implements DoneTo {
    @Override public void done(int vcpu, long ranNanos, long stealNanos, long endNanos, long remainingNanos) {
      ref.tell(new Done(vcpu, ranNanos, stealNanos, endNanos, remainingNanos));
    }
  }

  /** A core's final figures; {@code switches}: context switches it paid for ({@code host.vcpu-switch}). */
  public record CoreReport(int core, long busyNanos, long switches, List<String> violations) {}

  /** The vCPU number of host work in {@link Done}. */
  public static final int HOST = -1;

  private static final Object SLICE = "slice";

  private final int core;
  private final CpuPolicy policy;
  private final RunContext run;
  private final TimerScheduler<Command> timers;
  private final CoreModel<DoneTo> model;
  /** The model time of the core's latest event: never goes back. */
  private long clock;
  /** What survives a crash: counters, the coscheduling link, stalls, an offline. */
  private final CoreLedger ledger;

  /** A core whose CPU policy {@code policies} makes (again after a crash), whose context switches cost nothing. */
  public static Behavior<Command> create(int core, Supplier<CpuPolicy> policies, RunContext run) {
    return create(core, policies, run, 0);
  }

  /** A core with this one policy instance (not for a core that may crash: its restart would keep the policy). */
  public static Behavior<Command> create(int core, CpuPolicy policy, RunContext run, long switchNanos) {
    return create(core, () -> policy, run, switchNanos);
  }

  /**
   * A core whose CPU policy {@code policies} makes (again after a crash: a fresh one), whose context switches cost
   * {@code switchNanos} of CPU time each ({@code host.vcpu-switch}).
   */
  public static Behavior<Command> create(int core, Supplier<CpuPolicy> policies, RunContext run, long switchNanos) {
    if (switchNanos < 0) throw new IllegalArgumentException("core " + core + ": context switch of " + switchNanos + " ns");
    CoreLedger ledger = new CoreLedger();
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> run.causal(Behaviors.intercept(() -> new CoreGate(
        ledger, run, timers), Crashed.restarting(Behaviors.setup(c -> new CpuScheduler(c, new Core(core,
        switchNanos), policies.get(), ledger, run, timers)))))));
  }

  /** A physical core: its number, and the CPU time each context switch costs it. */
  private record Core(int index, long switchNanos) {}

  private CpuScheduler(ActorContext<Command> ctx, Core core, CpuPolicy policy, CoreLedger ledger, RunContext run,
      TimerScheduler<Command> timers) {
    super(ctx);
    long switchNanos = core.switchNanos();
    this.core = core.index();
    this.policy = policy;
    this.ledger = ledger;
    this.run = run;
    this.timers = timers;
    this.model = new CoreModel<>(policy, switchNanos, new CoreModel.Effects<>() {
      @Override public void armSlice(long token, long due) {
        run.arm(timers, SLICE, new SliceEnded(token, due), due);
      }

      @Override public void disarmSlice() {
        run.disarm(timers, SLICE);
      }

      @Override public void done(DoneTo to, int vcpu, long ran, long steal, long end, long remaining) {
        to.done(vcpu, ran, steal, end, remaining);
      }

      @Override public void switchedTo(int vcpu, long now) {
        CoscheduleGpu co = ledger.coscheduleGpu;
        Integer vgpu = co == null ? null : co.vgpuOfVcpu().get(vcpu);
        if (vgpu != null) co.gpu().tell(new SwitchedTo(vgpu, now));
      }
    }, ledger.busy, ledger.switches);
    clock = ledger.crashedAt;
    // a restarted incarnation: the stalls go on (their ends, cancelled by the restart, as before), and so does an
    // offline core's return
    for (Stall s : ledger.stalled.values()) {
      run.arm(timers, s, new StallEnded(s.fault(), ledger.stallEnd(s)), ledger.stallEnd(s));
    }
    for (int vcpu : ledger.stalledVcpus()) model.stall(vcpu, clock);
    if (ledger.offline != null) CoreGate.online(ledger.offline, run, timers);
  }

  /** The routing table: every request's messages first, each message to its handler. */
  @Override public Behavior<Command> onMessage(Command msg) {
    if (msg instanceof Run m) return onRun(m);
    if (msg instanceof Finish m) return onFinish(m);
    if (msg instanceof SliceEnded m) return onSliceEnded(m);
    if (msg instanceof Release m) return onRelease(m);
    if (msg instanceof HostRun m) return onHostRun(m);
    if (msg instanceof Boost m) return onBoost(m);
    if (msg instanceof CoscheduleGpu m) return ledger.coscheduled(m, this);
    if (msg instanceof Report m) return onReport(m);
    if (msg instanceof Stall m) return onStall(m);
    if (msg instanceof StallEnded m) return onStallEnded(m);
    if (msg instanceof Withdraw m) return onWithdraw(m);
    if (msg instanceof Crash m) return onCrash(m);
    return Behaviors.unhandled();
  }

  @Override public Behavior<Command> onSignal(Signal signal) {
    return signal instanceof PreRestart ? run.disarmAll(timers, Behaviors.same()) : Behaviors.unhandled();
  }

  /** The model time of an event stamped {@code at} (-1: now), never before the core's latest event. */
  private long at(long atNanos) {
    clock = atNanos >= 0 ? run.received(clock, atNanos) : Math.max(clock, run.now());
    return clock;
  }

  private Behavior<Command> onRun(Run msg) {
    model.run(msg.vcpu(), msg.weight(), msg.nanos(), msg.replyTo(), at(msg.atNanos()), msg.yields());
    return Behaviors.same();
  }

  private Behavior<Command> onRelease(Release msg) {
    if (!model.holds(msg.vcpu())) return Behaviors.same();
    model.release(msg.vcpu(), at(msg.atNanos()));
    return Behaviors.same();
  }

  private Behavior<Command> onHostRun(HostRun msg) {
    if (msg.nanos() <= 0) throw new IllegalArgumentException("host work of " + msg.nanos() + " ns on core " + core);
    model.hostRun(msg.nanos(), DoneTo.of(msg.replyTo()), at(msg.atNanos()));
    return Behaviors.same();
  }

  private Behavior<Command> onBoost(Boost msg) {
    if (!model.boostable(msg.vcpu())) return Behaviors.same(); // nothing changes: the core's clock does not move either
    model.boost(msg.vcpu(), at(msg.atNanos()));
    return Behaviors.same();
  }

  private Behavior<Command> onFinish(Finish msg) {
    if (!model.hasRequest(msg.vcpu())) return Behaviors.same();
    // a request not on the core ends when it is picked: the message's time moves nothing now
    model.finish(msg.vcpu(), model.runs(msg.vcpu()) ? at(msg.atNanos()) : clock);
    return Behaviors.same();
  }

  private Behavior<Command> onSliceEnded(SliceEnded msg) {
    model.sliceEnded(msg.token(), at(run.fired(msg.due())));
    return Behaviors.same();
  }

  /** A crashed or rebooting vCPU's request leaves the core, answered with what was left of it. */
  private Behavior<Command> onWithdraw(Withdraw msg) {
    if (!model.hasRequest(msg.vcpu()) && !model.holds(msg.vcpu())) return Behaviors.same();
    model.withdraw(msg.vcpu(), at(msg.atNanos()));
    return Behaviors.same();
  }

  /**
   * cpu-scheduler-crash: every request on the core is answered with what was left of it, so its vCPU (or its SM
   * group, for host work) asks the next incarnation again; the counters go to the ledger; then the actor fails.
   */
  private Behavior<Command> onCrash(Crash msg) {
    long now = at(msg.atNanos());
    model.takeBackAll(now);
    ledger.busy = model.busyNanos();
    ledger.switches = model.switches();
    ledger.crashed(now, msg, getContext().getLog(), core);
    throw new Crashed("core " + core, msg.fault());
  }

  private Behavior<Command> onStall(Stall msg) {
    long now = at(msg.atNanos());
    // stalls of one vCPU may overlap: it gets no core until the last of them ends, and each heals at its own end
    boolean already = ledger.stalledVcpus().contains(msg.vcpu());
    ledger.stalled.put(msg.fault(), msg);
    long end = Math.max(now, ledger.stallEnd(msg)); // the planned end, not shifted by the core's own clock
    run.arm(timers, msg, new StallEnded(msg.fault(), end), end);
    if (!already) model.stall(msg.vcpu(), now);
    return Behaviors.same();
  }

  private Behavior<Command> onStallEnded(StallEnded msg) {
    long now = at(run.fired(msg.due()));
    Stall s = ledger.stalled.remove(msg.fault());
    s.outcomes().tell(new FaultInjector.Healed(s.fault(), now));
    if (!ledger.stalledVcpus().contains(s.vcpu())) model.stallEnded(s.vcpu(), now);
    return Behaviors.same();
  }

  private Behavior<Command> onReport(Report msg) {
    msg.replyTo().tell(new CoreReport(core, model.busyNanos(), model.switches(), policy.checkInvariants()));
    return Behaviors.same();
  }
}
