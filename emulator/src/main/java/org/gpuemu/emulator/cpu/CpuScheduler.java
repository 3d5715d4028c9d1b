package org.gpuemu.emulator.cpu;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.clock.Timed;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.clock.RunContext;
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
 * <p>A context switch costs CPU time ({@code host.vcpu-switch}): whenever the core starts a context — a vCPU or host
 * work — after running another one or idling, the first {@code switchNanos} of its slice go to the switch. The
 * incoming vCPU's CPU policy is charged for them (CFS charges a switch to the task it switches to), its guest
 * progresses only after them (to the guest they are steal time), and a spin that sees its answer during them goes on
 * once they are over. A vCPU that goes on at once after its request ended (the next step of the same guest, at the
 * same model time) was never switched out and pays nothing.
 */
public final class CpuScheduler extends AbstractBehavior<CpuScheduler.Command> {

  public sealed interface Command {}

  /**
   * Run vCPU {@code vcpu} for {@code nanos} of CPU time ({@link Long#MAX_VALUE}: spin until {@link Finish}), asked
   * at emulated time {@code atNanos} (the model time of the event the vCPU acted on; -1: when it arrives). Going by
   * the model time rather than the message's arrival keeps message latency out of emulated time.
   */
  public record Run(int vcpu, int weight, long nanos, ActorRef<Done> replyTo, long atNanos) implements Command {
    public Run(int vcpu, int weight, long nanos, ActorRef<Done> replyTo) {
      this(vcpu, weight, nanos, replyTo, -1);
    }
  }

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

  private record StallEnded(int vcpu, long due) implements Command, Timed {}

  /** Reply to {@link Run}: done at {@code endNanos}; it ran {@code ranNanos} and waited {@code stealNanos}. */
  public record Done(int vcpu, long ranNanos, long stealNanos, long endNanos) {}

  /** A core's final figures. */
  /** A core's final figures; {@code switches}: context switches it paid for ({@code host.vcpu-switch}). */
  public record CoreReport(int core, long busyNanos, long switches, List<String> violations) {}

  /** The vCPU number of host work in {@link Done}. */
  public static final int HOST = -1;

  private static final Object SLICE = "slice";

  private static final class Request {
    final int vcpu;
    final ActorRef<Done> replyTo;
    final long requestedAt;
    /** Host work: runs before every vCPU, unknown to the policy. */
    final boolean host;
    final int weight;
    long remaining;
    long ran;

    Request(int vcpu, int weight, long nanos, ActorRef<Done> replyTo, long requestedAt, boolean host) {
      this.vcpu = vcpu;
      this.weight = weight;
      this.host = host;
      this.remaining = nanos;
      this.replyTo = replyTo;
      this.requestedAt = requestedAt;
    }
  }

  private final int core;
  private final CpuPolicy policy;
  private final RunContext run;
  private final TimerScheduler<Command> timers;
  private final Map<Integer, Request> requests = new HashMap<>();
  private final ArrayDeque<Request> hostWork = new ArrayDeque<>();
  private Request current;
  private long sliceStart;
  /** The model time of the core's latest event: never goes back. */
  private long clock;
  private long token;
  private long busy;
  private long switches;
  private int lastVcpu = -1;
  /** When the core last stopped running a context (its request ended, or it was preempted). */
  private long stoppedAt = Long.MIN_VALUE;
  /** CPU time a context switch costs ({@code host.vcpu-switch}). */
  private final long switchNanos;
  private CoscheduleGpu coscheduleGpu;
  /** Stalled vCPUs (faults): they get no core until their stall ends. */
  private final Map<Integer, Stall> stalled = new HashMap<>();

  public static Behavior<Command> create(int core, CpuPolicy policy, RunContext run) {
    return create(core, policy, run, 0);
  }

  /** A core whose context switches cost {@code switchNanos} of CPU time each. */
  public static Behavior<Command> create(int core, CpuPolicy policy, RunContext run, long switchNanos) {
    if (switchNanos < 0) throw new IllegalArgumentException("core " + core + ": context switch of " + switchNanos + " ns");
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> run.causal(new CpuScheduler(ctx, core, policy, run,
        timers, switchNanos))));
  }

  private CpuScheduler(ActorContext<Command> ctx, int core, CpuPolicy policy, RunContext run,
      TimerScheduler<Command> timers, long switchNanos) {
    super(ctx);
    this.switchNanos = switchNanos;
    this.core = core;
    this.policy = policy;
    this.run = run;
    this.timers = timers;
  }

  @Override public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Run.class, this::onRun)
        .onMessage(HostRun.class, this::onHostRun)
        .onMessage(Finish.class, this::onFinish)
        .onMessage(Boost.class, this::onBoost)
        .onMessage(CoscheduleGpu.class, m -> {
          coscheduleGpu = m;
          return this;
        })
        .onMessage(SliceEnded.class, this::onSliceEnded)
        .onMessage(Report.class, this::onReport)
        .onMessage(Stall.class, this::onStall)
        .onMessage(StallEnded.class, this::onStallEnded)
        .build();
  }

  /** The model time of an event stamped {@code at} (-1: now), never before the core's latest event. */
  private long at(long atNanos) {
    clock = atNanos >= 0 ? run.received(clock, atNanos) : Math.max(clock, run.now());
    return clock;
  }

  private Behavior<Command> onRun(Run msg) {
    long now = at(msg.atNanos());
    requests.put(msg.vcpu(), new Request(msg.vcpu(), msg.weight(), msg.nanos(), msg.replyTo(), now, false));
    if (!stalled.isEmpty() && stalled.containsKey(msg.vcpu())) return this; // runnable once the stall ends
    policy.runnable(msg.vcpu(), msg.weight(), now);
    if (current == null) {
      dispatch(now);
    } else if (current.vcpu != msg.vcpu() && !current.host) {
      accountSoFar(now);
      if (policy.preempts(msg.vcpu(), current.vcpu, now)) preempt(now);
    }
    return this;
  }

  private Behavior<Command> onHostRun(HostRun msg) {
    if (msg.nanos() <= 0) throw new IllegalArgumentException("host work of " + msg.nanos() + " ns on core " + core);
    long now = at(msg.atNanos());
    hostWork.add(new Request(HOST, 0, msg.nanos(), msg.replyTo(), now, true));
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
    if (!requests.containsKey(v) || (current != null && current.vcpu == v) || stalled.containsKey(v)) return this;
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
      account(current, now - sliceStart, now);
      sliceStart = now;
    }
  }

  /** Takes the core from the running vCPU, which stays runnable, and picks again. */
  private void preempt(long now) {
    token++;
    run.disarm(timers, SLICE);
    Request r = current;
    current = null;
    stoppedAt = now;
    if (r.remaining <= 0) complete(r, now);
    dispatch(now);
  }

  private Behavior<Command> onFinish(Finish msg) {
    Request r = requests.get(msg.vcpu());
    if (r == null) return this;
    if (current == r) {
      long now = Math.max(at(msg.atNanos()), sliceStart);
      token++;
      run.disarm(timers, SLICE);
      account(r, now - sliceStart, now);
      complete(r, now);
      current = null;
      stoppedAt = now;
      dispatch(now);
    } else {
      r.remaining = 0; // it still has to get the core to notice: done the moment it is picked
    }
    return this;
  }

  private Behavior<Command> onSliceEnded(SliceEnded msg) {
    if (msg.token() != token || current == null) return this;
    long now = at(run.fired(msg.due()));
    Request r = current;
    account(r, now - sliceStart, now);
    current = null;
    stoppedAt = now;
    if (r.remaining <= 0) {
      complete(r, now);
    }
    dispatch(now);
    return this;
  }

  private Behavior<Command> onStall(Stall msg) {
    long now = at(msg.atNanos());
    stalled.put(msg.vcpu(), msg);
    long end = Math.max(now, msg.atNanos() + msg.nanos()); // the planned end, not shifted by the core's own clock
    run.arm(timers, msg, new StallEnded(msg.vcpu(), end), end);
    Request r = requests.get(msg.vcpu());
    if (r == null) return this;
    if (current == r) accountSoFar(now);
    if (current != r || r.remaining > 0) policy.blocked(r.vcpu, now);
    if (current == r) preempt(now);
    return this;
  }

  private Behavior<Command> onStallEnded(StallEnded msg) {
    long now = at(run.fired(msg.due()));
    Stall s = stalled.remove(msg.vcpu());
    s.outcomes().tell(new FaultInjector.Healed(s.fault(), now));
    Request r = requests.get(msg.vcpu());
    if (r == null) return this;
    policy.runnable(r.vcpu, r.weight, now);
    if (current == null) {
      dispatch(now);
    } else if (!current.host) {
      accountSoFar(now);
      if (policy.preempts(r.vcpu, current.vcpu, now)) preempt(now);
    }
    return this;
  }

  private Behavior<Command> onReport(Report msg) {
    msg.replyTo().tell(new CoreReport(core, busy, switches, policy.checkInvariants()));
    return this;
  }

  /** Gives the core to the next host work, or else to the next vCPU the policy picks, starting at {@code now}. */
  private void dispatch(long now) {
    if (current == null && !hostWork.isEmpty()) {
      Request r = hostWork.poll();
      long overhead = switchTo(HOST, now);
      current = r;
      sliceStart = now + overhead;
      long due = sliceStart + r.remaining;
      run.arm(timers, SLICE, new SliceEnded(++token, due), due);
      return;
    }
    while (current == null) {
      CpuDecision d = policy.pick(now);
      if (!(d instanceof CpuDecision.Run pick)) return;
      Request r = requests.get(pick.vcpu());
      if (r == null) {
        policy.blocked(pick.vcpu(), now);
        continue;
      }
      if (r.remaining <= 0) {
        complete(r, now);
        continue;
      }
      if (pick.vcpu() != lastVcpu) {
        Integer vgpu = coscheduleGpu == null ? null : coscheduleGpu.vgpuOfVcpu().get(pick.vcpu());
        if (vgpu != null) coscheduleGpu.gpu().tell(new SwitchedTo(vgpu, now));
      }
      long overhead = switchTo(pick.vcpu(), now);
      if (overhead > 0) policy.ran(pick.vcpu(), overhead, now);
      current = r;
      sliceStart = now + overhead;
      long length = Math.min(pick.sliceNanos(), r.remaining);
      long due = sliceStart + length;
      run.arm(timers, SLICE, new SliceEnded(++token, due), due);
    }
  }

  /**
   * The core starts {@code context} at {@code now}: the CPU time the switch costs, none when the same context goes
   * on where it stopped at this very time (it was never switched out). Counted as busy time.
   */
  private long switchTo(int context, long now) {
    boolean switched = context != lastVcpu || now > stoppedAt;
    lastVcpu = context;
    if (!switched) return 0;
    switches++;
    busy += switchNanos;
    return switchNanos;
  }

  private void account(Request r, long ran, long now) {
    ran = Math.max(0, ran);
    if (!r.host) policy.ran(r.vcpu, ran, now);
    busy += ran;
    r.ran += ran;
    if (r.remaining != Long.MAX_VALUE) r.remaining -= ran;
  }

  private void complete(Request r, long now) {
    if (!r.host) {
      requests.remove(r.vcpu);
      policy.blocked(r.vcpu, now);
    }
    long steal = Math.max(0, (now - r.requestedAt) - r.ran);
    r.replyTo.tell(new Done(r.vcpu, r.ran, steal, now));
  }
}
