package org.gpuemu.emulator.cpu;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.gpuemu.emulator.clock.Timed;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.faults.Crashed;
import org.gpuemu.emulator.faults.FaultInjector;
import org.gpuemu.policies.cpu.CpuDecision;
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
 * <p>Faults (issue 18): {@code vcpu-stall} ({@link Stall}), {@code cpu-scheduler-crash} ({@link Crash}), the
 * withdrawal of a crashed or rebooting vCPU's request ({@link Withdraw}): {@link CoreLedger}; {@link Offline}: gate.
 */
public final class CpuScheduler extends AbstractBehavior<CpuScheduler.Command> {

  public sealed interface Command {}

  /**
   * Run vCPU {@code vcpu} for {@code nanos} of CPU time ({@link Long#MAX_VALUE}: spin until {@link Finish}), asked
   * at emulated time {@code atNanos} (the model time of the event the vCPU acted on; -1: when it arrives). Going by
   * the model time rather than the message's arrival keeps message latency out of emulated time.
   */
  public record Run(int vcpu, int weight, long nanos, ActorRef<Done> replyTo, long atNanos) implements Command {}

  /**
   * Run this vCPU next, now, at the GPU switch's time {@code atNanos} (FairGV's Algorithm 4, {@code resched_cpu}): the
   * running one is preempted and stays runnable. Ignored when the vCPU has no request here or already runs.
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

  /** Host work of {@code nanos} CPU time from {@code atNanos}, before any vCPU; {@link Done} ({@link #HOST}) after. */
  public record HostRun(long nanos, ActorRef<Done> replyTo, long atNanos) implements Command {}

  /** End the vCPU's current request as soon as it is on the core (a spin saw its response, at {@code atNanos}). */
  public record Finish(int vcpu, long atNanos) implements Command {}

  /** Final figures of this core. */
  public record Report(ActorRef<CoreReport> replyTo) implements Command {}

  /** The vCPU's request leaves the core at {@code atNanos}: answered with the CPU time left ({@link Done}). */
  public record Withdraw(int vcpu, long atNanos) implements Command {}

  /** Fault {@code fault} (cpu-scheduler-crash) at {@code atNanos}: see {@link CoreLedger}. */
  public record Crash(int fault, long atNanos, ActorRef<FaultInjector.Outcome> outcomes) implements Command {}

  private record SliceEnded(long token, long due) implements Command, Timed {}

  /** Fault {@code fault} ({@code vcpu-stall}): vCPU {@code vcpu} gets no core from {@code atNanos} for {@code nanos}. */
  public record Stall(int fault, int vcpu, long nanos, long atNanos, ActorRef<FaultInjector.Outcome> outcomes)
      implements Command {}

  private record StallEnded(int vcpu, long due) implements Command, Timed {}

  /** Fault {@code fault} ({@code core-offline}) from {@code atNanos} to {@code untilNanos}: see {@link CoreGate}. */
  public record Offline(int fault, long atNanos, long untilNanos, ActorRef<Command> fallback) implements Command {}
  record Online(long due) implements Command, Timed {}

  /**
   * Reply to {@link Run}: done at {@code endNanos}; it ran {@code ranNanos} and waited {@code stealNanos};
   * {@code remainingNanos} > 0: taken back before it was done ({@link Withdraw}, a crash), this much left to ask for.
   */
  public record Done(int vcpu, long ranNanos, long stealNanos, long endNanos, long remainingNanos) {}

  /** A core's final figures. */
  public record CoreReport(int core, long busyNanos, long switches, List<String> violations) {}

  /** The vCPU number of host work in {@link Done}. */
  public static final int HOST = -1;

  private static final Object SLICE = "slice";

  private final int core;
  private final CpuPolicy policy;
  private final RunContext run;
  private final TimerScheduler<Command> timers;
  private final CoreRequests q; // the requests this incarnation holds
  private CoreRequest current;
  private long sliceStart;
  private long clock; // the model time of the core's latest event: never goes back
  private long token;
  private final CoreLedger ledger; // what survives a crash: counters, the coscheduling link, stalls, an offline

  /** A core whose CPU policy {@code policies} makes (again after a crash: a fresh one). */
  public static Behavior<Command> create(int core, Supplier<CpuPolicy> policies, RunContext run) {
    CoreLedger ledger = new CoreLedger();
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> run.causal(Behaviors.intercept(() -> new CoreGate(
        ledger, run, timers), Crashed.restarting(Behaviors.setup(c -> new CpuScheduler(c, core, policies.get(),
        ledger, run, timers)))))));
  }

  private CpuScheduler(ActorContext<Command> ctx, int core, CpuPolicy policy, CoreLedger ledger, RunContext run,
      TimerScheduler<Command> timers) {
    super(ctx);
    this.core = core;
    this.policy = policy;
    this.ledger = ledger;
    this.run = run;
    this.timers = timers;
    this.q = new CoreRequests(policy, ledger);
    clock = ledger.crashedAt;
    // a restarted incarnation: the stalls' ends and an offline core's return, cancelled by the restart, as before
    for (Stall s : ledger.stalled.values()) run.arm(timers, s, new StallEnded(s.vcpu(), ledger.stallEnd(s)),
        ledger.stallEnd(s));
    if (ledger.offline != null) CoreGate.online(ledger.offline, run, timers);
  }

  @Override public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Run.class, this::onRun)
        .onMessage(HostRun.class, this::onHostRun)
        .onMessage(Finish.class, this::onFinish)
        .onMessage(Boost.class, this::onBoost)
        .onMessage(CoscheduleGpu.class, m -> ledger.coscheduled(m, this))
        .onMessage(SliceEnded.class, this::onSliceEnded)
        .onMessage(Report.class, this::onReport)
        .onMessage(Stall.class, this::onStall)
        .onMessage(StallEnded.class, this::onStallEnded)
        .onMessage(Withdraw.class, this::onWithdraw)
        .onMessage(Crash.class, this::onCrash)
        .onSignal(PreRestart.class, sig -> {
          run.disarmAll(timers); // the restart cancels them; the order must not count them any more
          return this;
        })
        .build();
  }

  /** The model time of an event stamped {@code at} (-1: now), never before the core's latest event. */
  private long at(long atNanos) {
    clock = atNanos >= 0 ? run.received(clock, atNanos) : Math.max(clock, run.now());
    return clock;
  }

  private Behavior<Command> onRun(Run msg) {
    long now = at(msg.atNanos());
    q.byVcpu.put(msg.vcpu(), new CoreRequest(msg.vcpu(), msg.weight(), msg.nanos(), msg.replyTo(), now, false));
    if (!ledger.stalled.isEmpty() && ledger.stalled.containsKey(msg.vcpu())) return this; // runnable after the stall
    becameRunnable(msg.vcpu(), msg.weight(), now);
    return this;
  }

  /** A vCPU with a request here is runnable from {@code now}: it may take the core, or preempt the running one. */
  private void becameRunnable(int vcpu, int weight, long now) {
    policy.runnable(vcpu, weight, now);
    if (current == null) {
      dispatch(now);
    } else if (current.vcpu != vcpu && !current.host) {
      accountSoFar(now);
      if (policy.preempts(vcpu, current.vcpu, now)) preempt(now);
    }
  }

  private Behavior<Command> onHostRun(HostRun msg) {
    if (msg.nanos() <= 0) throw new IllegalArgumentException("host work of " + msg.nanos() + " ns on core " + core);
    long now = at(msg.atNanos());
    q.host.add(new CoreRequest(HOST, 0, msg.nanos(), msg.replyTo(), now, true));
    if (current == null) {
      dispatch(now);
    } else if (!current.host) {
      accountSoFar(now);
      preempt(now);
    }
    return this;
  }

  private Behavior<Command> onBoost(Boost msg) {
    int v = msg.vcpu();
    if (!q.byVcpu.containsKey(v) || current != null && current.vcpu == v || ledger.stalled.containsKey(v)) return this;
    long now = at(msg.atNanos());
    policy.boost(msg.vcpu(), now);
    if (current != null && current.host) return this; // picked next, once the host work is done
    if (current != null) {
      accountSoFar(now);
      preempt(now);
    } else {
      dispatch(now);
    }
    return this;
  }

  /** Reports what the running vCPU has run of its slice so far; the slice goes on to its due time. */
  private void accountSoFar(long now) {
    if (now > sliceStart) {
      q.account(current, now - sliceStart, now);
      sliceStart = now;
    }
  }

  /** Takes the core from the running vCPU, which stays runnable, and picks again. */
  private void preempt(long now) {
    token++;
    run.disarm(timers, SLICE);
    CoreRequest r = current;
    current = null;
    if (r.remaining <= 0) q.complete(r, now);
    dispatch(now);
  }

  /** A crashed or rebooting vCPU's request leaves the core, answered with what was left of it. */
  private Behavior<Command> onWithdraw(Withdraw msg) {
    CoreRequest r = q.byVcpu.get(msg.vcpu());
    if (r == null) return this;
    long now = Math.max(at(msg.atNanos()), current == r ? sliceStart : 0);
    takeBack(r, now);
    dispatch(now);
    return this;
  }

  /** Ends request {@code r} at {@code now}, done or not: its answer says what is left ({@link Done}). */
  private void takeBack(CoreRequest r, long now) {
    if (current == r) {
      q.account(r, now - sliceStart, now);
      token++;
      run.disarm(timers, SLICE);
      current = null;
    }
    q.complete(r, now);
  }

  /**
   * cpu-scheduler-crash: every request on the core is answered with what was left of it, so its vCPU (or its SM
   * group, for host work) asks the next incarnation again; then the actor fails ({@link CoreLedger}).
   */
  private Behavior<Command> onCrash(Crash msg) {
    long now = at(msg.atNanos());
    if (current != null) takeBack(current, now);
    q.answerAll(now);
    ledger.crashed(now, msg, getContext().getLog(), core);
    throw new Crashed("core " + core, msg.fault());
  }

  private Behavior<Command> onFinish(Finish msg) {
    CoreRequest r = q.byVcpu.get(msg.vcpu());
    if (r == null) return this;
    if (current == r) {
      long now = Math.max(at(msg.atNanos()), sliceStart);
      r.remaining = Math.min(r.remaining, now - sliceStart); // done once what it ran so far is accounted
      takeBack(r, now);
      dispatch(now);
    } else {
      r.remaining = 0; // it still has to get the core to notice: done the moment it is picked
    }
    return this;
  }

  private Behavior<Command> onSliceEnded(SliceEnded msg) {
    if (msg.token() != token || current == null) return this;
    long now = at(run.fired(msg.due()));
    CoreRequest r = current;
    q.account(r, now - sliceStart, now);
    current = null;
    if (r.remaining <= 0) {
      q.complete(r, now);
    }
    dispatch(now);
    return this;
  }

  private Behavior<Command> onStall(Stall msg) {
    long now = at(msg.atNanos());
    ledger.stalled.put(msg.vcpu(), msg);
    long end = Math.max(now, ledger.stallEnd(msg));
    run.arm(timers, msg, new StallEnded(msg.vcpu(), end), end);
    CoreRequest r = q.byVcpu.get(msg.vcpu());
    if (r == null) return this;
    if (current == r) accountSoFar(now);
    if (current != r || r.remaining > 0) policy.blocked(r.vcpu, now);
    if (current == r) preempt(now);
    return this;
  }

  private Behavior<Command> onStallEnded(StallEnded msg) {
    long now = at(run.fired(msg.due()));
    Stall s = ledger.stalled.remove(msg.vcpu());
    s.outcomes().tell(new FaultInjector.Healed(s.fault(), now));
    CoreRequest r = q.byVcpu.get(msg.vcpu());
    if (r != null) becameRunnable(r.vcpu, r.weight, now);
    return this;
  }

  private Behavior<Command> onReport(Report msg) {
    msg.replyTo().tell(new CoreReport(core, ledger.busy, ledger.switches, policy.checkInvariants()));
    return this;
  }

  /** Gives the core to the next host work, or else to the next vCPU the policy picks, starting at {@code now}. */
  private void dispatch(long now) {
    if (current == null && !q.host.isEmpty()) {
      current = q.host.poll();
      if (ledger.lastVcpu != HOST) ledger.switches++;
      ledger.lastVcpu = HOST;
      sliceStart = now;
      run.arm(timers, SLICE, new SliceEnded(++token, now + current.remaining), now + current.remaining);
      return;
    }
    while (current == null) {
      CpuDecision d = policy.pick(now);
      if (!(d instanceof CpuDecision.Run pick)) return;
      CoreRequest r = q.byVcpu.get(pick.vcpu());
      if (r == null) {
        policy.blocked(pick.vcpu(), now);
        continue;
      }
      if (r.remaining <= 0) {
        q.complete(r, now);
        continue;
      }
      if (pick.vcpu() != ledger.lastVcpu) {
        ledger.switches++;
        CoscheduleGpu co = ledger.coscheduleGpu;
        Integer vgpu = co == null ? null : co.vgpuOfVcpu().get(pick.vcpu());
        if (vgpu != null) co.gpu().tell(new SwitchedTo(vgpu, now));
      }
      ledger.lastVcpu = pick.vcpu();
      current = r;
      sliceStart = now;
      long due = now + Math.min(pick.sliceNanos(), r.remaining);
      run.arm(timers, SLICE, new SliceEnded(++token, due), due);
    }
  }
}
