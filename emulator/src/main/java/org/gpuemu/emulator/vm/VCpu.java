package org.gpuemu.emulator.vm;

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
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.faults.Crashed;
import org.gpuemu.emulator.faults.FaultInjector;
import org.gpuemu.emulator.faults.RequestHistory;
import org.gpuemu.emulator.gpu.CoscheduleRouter;
import org.gpuemu.emulator.gpu.GpuMemory;
import org.gpuemu.emulator.cpu.CpuScheduler;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.metrics.MetricsPorts;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.vm.VcpuState.Wait;
import org.gpuemu.workloads.MemoryAware;
import org.gpuemu.workloads.Program;
import org.gpuemu.workloads.Step;

/**
 * A virtual CPU executing a guest program step by step. CPU bursts need its physical core (the CpuScheduler);
 * asynchronous GPU launches return at once; a synchronous call blocks it: polling keeps the core spinning until
 * the answer, hybrid spinning spins up to the spin limit, then blocks and yields the core and must get the core
 * back (a wake-up) when the answer comes; {@code sync-wait = yield} spins up to the limit, yields the core staying
 * runnable, and spins again each time the core comes back, until it sees the answer. Flush blocks without the core; so does Present, unless the VM's
 * {@code present-wait} is {@code poll}: then the vCPU spins on its core while Present is blocked and goes on once
 * the core has let it see the answer (a Windows guest's Direct3D runtime polling the GPU at its render-ahead limit).
 *
 * <p>Faults: {@code vcpu-crash} ({@link Crash}) and {@code vm-reboot} ({@link Reboot}), what each does
 * and how it recovers: {@link VcpuGuest}.
 */
public final class VCpu extends AbstractMatchingBehavior<VCpu.Command> {

  public sealed interface Command {}

  /** Start executing (the guardian sends it at the VM's start time). */
  public enum Start implements Command { INSTANCE }

  /** Stop after the current step. {@code replyTo} hears {@link Stopped} once no step is in progress. */
  public record Stop(ActorRef<Stopped> replyTo) implements Command {}

  /** The synchronous call's work completed (or failed) at emulated time {@code atNanos}. */
  public record SyncReturned(long atNanos) implements Command {}

  /**
   * The Present returned, at emulated time {@code atNanos} (the event that released it: the Present itself or the
   * completion that made room), or -1 when the answer was timed by the wall clock (a guest agent that slept or
   * waited for its controller); {@code failure}: why it failed (null: it presented a frame).
   */
  public record PresentReturned(long atNanos, String failure) implements Command {
    public static final PresentReturned UNTIMED = new PresentReturned(-1);

    public PresentReturned(long atNanos) {
      this(atNanos, null);
    }
  }

  public enum FlushReturned implements Command { INSTANCE }

  /** Inside a Present: run {@code nanos} of CPU work for the guest agent from {@code atNanos}; it hears when done. */
  public record AgentWork(long nanos, long atNanos, ActorRef<GuestAgent.Command> replyTo) implements Command {}

  public record Report(ActorRef<VcpuReport> replyTo) implements Command {}

  /** Fault {@code fault} (vcpu-crash) at {@code atNanos}: see the class. */
  public record Crash(int fault, long atNanos, ActorRef<FaultInjector.Outcome> outcomes) implements Command {}

  /**
   * Fault {@code fault} (vm-reboot) at {@code atNanos}: down for {@code downNanos}, then the program again;
   * {@code outcomes} (null: none) hears when it is up.
   */
  public record Reboot(int fault, long atNanos, long downNanos, ActorRef<FaultInjector.Outcome> outcomes)
      implements Command {}

  record Rebooted(long due) implements Command, Timed {}

  /** Fault {@code fault} ({@code kind}) on the VM's channel to its vGPU from {@code atNanos}: {@link GuestChannel}. */
  public record ChannelFault(int fault, FaultPlan.Kind kind, long atNanos, long untilNanos) implements Command {}

  /** The vGPU took request {@code call} sent over the channel (its acknowledgement). */
  public record Received(long call) implements Command {}

  /** The channel's timer for request {@code key}'s wait ({@code arrival} false) or a delayed copy's arrival. */
  record ChannelTimer(long key, boolean arrival, long due) implements Command, Timed {}

  /**
   * The GPU scheduler switched to this VM's vGPU and needs this vCPU running (FairGV's GPU-centric coscheduling,
   * Algorithm 4): a vCPU blocked after hybrid spinning is woken to spin again, and its core runs it now.
   */
  private record Coscheduled(CoscheduleRouter.Coschedule coschedule) implements Command {}

  /** The answer to the vCPU's CPU request ({@link CpuScheduler.Done}'s figures, sent by its core in this protocol). */
  record CpuDone(long ranNanos, long stealNanos, long endNanos, long remainingNanos) implements Command {}

  private record MemoryAnswered(GpuMemory.Answer answer) implements Command {}

  record SleepEnded(long due) implements Command, Timed {}

  enum Continue implements Command { INSTANCE }

  public record Stopped(int vcpu, int vm) {}

  private final RunContext run;
  private final TimerScheduler<Command> timers;
  private final VcpuCalls calls;
  private final VcpuState st;
  private final VcpuGuest guest;

  /**
   * Which vCPU this is: number {@code vcpu} of the run, of VM {@code vm}, whose guest program {@code programs} makes
   * (null: an idle vCPU).
   */
  public record Spec(int vcpu, Settings.Vm vm, Supplier<Program> programs) {}

  /**
   * The actors a vCPU talks to: its physical core, its VM's vGPU and guest agent, the GPU memory, the metrics hub
   * and its port to it (each frame's latency), and the GPU scheduler's coscheduling join (null when the policy does
   * not coschedule).
   */
  public record Peers(ActorRef<CpuScheduler.Command> core, ActorRef<VGpu.Command> vgpu,
      ActorRef<GuestAgent.Command> agent, ActorRef<GpuMemory.Command> memory, ActorRef<MetricsHub.Command> metrics,
      MetricsPorts.Frames frames, ActorRef<CoscheduleRouter.VcpuJoin> coscheduler) {}

  /**
   * The vCPU {@code spec} wired to {@code peers}; {@code reports}: what it reports of each CPU slice; {@code history}:
   * the run's request history; {@code channel}: the message faults of its channel to the vGPU ({@link GuestChannel}),
   * or null.
   */
  public static Behavior<Command> create(Spec spec, Peers peers, RunContext run, VcpuReports reports,
      RequestHistory history, FaultPlan.Channel channel) {
    VcpuState st = new VcpuState(spec.vcpu(), spec.programs());
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
      // made once: its adapters answer every incarnation at the same reference, its memory counters survive
      GuestChannel guestChannel = channel == null ? null : new GuestChannel(spec.vm().index(), channel,
          new GuestChannel.Ends(peers.vgpu(), ctx.getSelf()), history, run, timers);
      ActorRef<Command> self = ctx.getSelf();
      CpuScheduler.DoneTo cpuDone = (vcpu, ran, steal, end, remaining) -> self.tell(new CpuDone(ran, steal, end,
          remaining));
      VcpuCalls.Own own = new VcpuCalls.Own(self, cpuDone, ctx.messageAdapter(GpuMemory.Answer.class,
          MemoryAnswered::new), ctx.getLog(), guestChannel);
      VcpuCalls calls = new VcpuCalls(spec, peers, own, reports, history, st.program instanceof MemoryAware);
      if (peers.coscheduler() != null) {
        peers.coscheduler().tell(new CoscheduleRouter.VcpuJoin(spec.vcpu(), spec.vm().index(),
            ctx.messageAdapter(CoscheduleRouter.Coschedule.class, Coscheduled::new)));
      }
      return run.causal(Crashed.restarting(Behaviors.setup(c -> new VCpu(c, st, run, timers, calls))));
    }));
  }

  private VCpu(ActorContext<Command> ctx, VcpuState st, RunContext run, TimerScheduler<Command> timers,
      VcpuCalls calls) {
    super(ctx);
    this.st = st;
    this.run = run;
    this.timers = timers;
    this.calls = calls;
    this.guest = new VcpuGuest(st, calls, run, timers, ctx.getSelf());
    guest.restarted();
  }

  /** The routing table: every request's messages first, each to its handler. */
  @Override public Behavior<Command> onMessage(Command msg) {
    if (msg instanceof CpuDone m) return onCpuDone(m);
    if (msg instanceof SyncReturned m) return onSyncReturned(m);
    if (msg == Start.INSTANCE) return onStart();
    if (msg == Continue.INSTANCE) return onContinue();
    if (msg instanceof Stop m) return onStop(m);
    if (msg instanceof PresentReturned m) return onPresentReturned(m);
    if (msg == FlushReturned.INSTANCE) return onAnswered();
    if (msg instanceof AgentWork m) return onAgentWork(m);
    if (msg instanceof MemoryAnswered m) return onMemoryAnswered(m);
    if (msg instanceof SleepEnded m) return onSleepEnded(m);
    if (msg instanceof Report m) return onReport(m);
    if (msg instanceof Coscheduled m) return onCoschedule(m);
    if (msg instanceof Crash m) return onCrash(m);
    if (msg instanceof Reboot m) return onReboot(m);
    if (msg instanceof Rebooted m) return onRebooted(m);
    if (msg instanceof ChannelFault m) return onChannelFault(m);
    if (msg instanceof Received m) return onReceived(m);
    if (msg instanceof ChannelTimer m) return onChannelTimer(m);
    return Behaviors.unhandled();
  }

  @Override public Behavior<Command> onSignal(Signal signal) {
    return signal instanceof PreRestart ? run.disarmAll(timers, Behaviors.same()) : Behaviors.unhandled();
  }

  private Behavior<Command> onStart() {
    st.running = st.program != null;
    st.clock = Math.max(st.clock, run.now());
    return step();
  }

  private Behavior<Command> onAgentWork(AgentWork msg) {
    guest.agentWork(msg);
    return Behaviors.same();
  }

  private Behavior<Command> onReboot(Reboot msg) {
    guest.reboot(msg);
    return Behaviors.same();
  }

  private Behavior<Command> onReceived(Received msg) {
    guest.channel(msg.call(), false, -1);
    return Behaviors.same();
  }

  private Behavior<Command> onStop(Stop msg) {
    guest.stop(msg.replyTo());
    return Behaviors.same();
  }

  private Behavior<Command> onCpuDone(CpuDone done) {
    if (done.remainingNanos() == 0) calls.requestEnded(); // a request taken back leaves nothing held for it
    afterCpuDone(done);
    if (!st.continuePending) calls.settle(st.clock);
    return Behaviors.same();
  }

  private Behavior<Command> onContinue() {
    st.continuePending = false;
    step();
    if (!st.continuePending) calls.settle(st.clock);
    return Behaviors.same();
  }

  private Behavior<Command> afterCpuDone(CpuDone done) {
    st.ran += done.ranNanos();
    st.steal += done.stealNanos();
    st.clock = Math.max(st.clock, done.endNanos());
    calls.sliceEnded(done);
    if (st.downUntil >= 0) return Behaviors.same(); // rebooting: the old boot's slice, withdrawn
    boolean spinSaw = st.answered && (st.wait == Wait.SYNC_SPIN || st.presentSpinning);
    if (done.remainingNanos() > 0 && !spinSaw) { // withdrawn (a crash): ask again for the rest
      calls.cpu(done.remainingNanos(), st.clock);
      return Behaviors.same();
    }
    switch (st.wait) {
      case CPU, SYNC_WAKING -> {
        return resume();
      }
      case SYNC_SPIN -> {
        if (st.answered) return resume();
        if (calls.syncYields()) {
          calls.yieldAndSpin(st.clock); // the spin ran out: yield the core, still runnable, and spin again
          return Behaviors.same();
        }
        st.wait = Wait.SYNC_BLOCKED; // hybrid spin ran out: block and give the core away
        return Behaviors.same();
      }
      case PRESENT -> {
        if (guest.agentWorkDone() || !st.presentSpinning || !st.answered) return Behaviors.same();
        st.presentSpinning = false; // the spin saw Present return
        guest.presentDone(st.clock, null);
        return Behaviors.same();
      }
      default -> {
        return Behaviors.same();
      }
    }
  }

  private Behavior<Command> onSyncReturned(SyncReturned msg) {
    if (st.downUntil >= 0) return Behaviors.same();
    st.answered = true;
    st.clock = Math.max(st.clock, msg.atNanos());
    if (st.wait == Wait.SYNC_SPIN) {
      calls.finish(st.clock);
    } else if (st.wait == Wait.SYNC_BLOCKED) {
      st.wait = Wait.SYNC_WAKING;
      calls.wake(st.clock);
    }
    return Behaviors.same();
  }

  /** The GPU scheduler switched to this vCPU's vGPU at the model time the message carries (Algorithm 4). */
  private Behavior<Command> onCoschedule(Coscheduled msg) {
    // the core acts at the switch's time; the vCPU's own clock moves only with what it runs (its next CpuDone)
    long at = Math.max(st.clock, msg.coschedule().atNanos());
    switch (st.wait) {
      case SYNC_BLOCKED -> {
        // wakeup_vcpu: spin again, holding the core, until the answer or the spin limit
        st.wait = Wait.SYNC_SPIN;
        calls.spin(at);
        calls.boost(at);
      }
      case CPU, SYNC_SPIN, SYNC_WAKING -> calls.boost(at);
      default -> { }
    }
    return Behaviors.same();
  }

  private Behavior<Command> onPresentReturned(PresentReturned msg) {
    if (st.downUntil >= 0) return Behaviors.same();
    long now = msg.atNanos() >= 0 ? msg.atNanos() : run.now();
    if (guest.holdAnswer(msg, now)) return Behaviors.same(); // the agent's work on the core goes first
    st.clock = Math.max(st.clock, now);
    if (st.presentSpinning) {
      st.answered = true;
      calls.finish(st.clock); // goes on once the spin is on the core and sees it
      return Behaviors.same();
    }
    guest.presentDone(now, msg.failure());
    return Behaviors.same();
  }

  private Behavior<Command> onMemoryAnswered(MemoryAnswered msg) {
    if (msg.answer().isNotice()) { // the host took memory (memory-pressure): no call of the guest's was answered
      calls.memoryHeld(msg.answer().heldBytes());
      if (st.program instanceof MemoryAware aware) aware.held(msg.answer().heldBytes());
      return Behaviors.same();
    }
    calls.memoryAnswered(msg.answer());
    if (st.downUntil >= 0) return Behaviors.same();
    // a memory-aware guest (gBalloon's 3D apps) slows with what it lacks
    if (st.program instanceof MemoryAware aware) aware.held(msg.answer().heldBytes());
    return onAnswered();
  }

  /** An unstamped answer (a flush, a memory call): the guest goes on at the model time it arrived. */
  private Behavior<Command> onAnswered() {
    if (st.downUntil >= 0) return Behaviors.same();
    st.clock = Math.max(st.clock, run.now());
    return resume();
  }

  private Behavior<Command> onSleepEnded(SleepEnded msg) {
    st.clock = Math.max(st.clock, run.fired(msg.due()));
    st.wait = Wait.NONE;
    guest.goOn();
    return Behaviors.same();
  }

  private Behavior<Command> onReport(Report msg) {
    long programNanos = st.programEnded >= 0 ? st.programEnded - st.programStarted : -1;
    msg.replyTo().tell(calls.report(st.program, st.ran, st.steal, st.maxStall, st.steps, programNanos));
    return Behaviors.same();
  }

  private Behavior<Command> onCrash(Crash msg) {
    guest.crash(msg, getContext().getLog());
    throw new Crashed("vCPU " + st.vcpu, msg.fault());
  }

  private Behavior<Command> onRebooted(Rebooted msg) {
    guest.rebooted(run.fired(msg.due()));
    return Behaviors.same();
  }

  private Behavior<Command> onChannelFault(ChannelFault msg) {
    calls.channel.fault(msg.kind(), msg.atNanos(), msg.untilNanos());
    return Behaviors.same();
  }

  private Behavior<Command> onChannelTimer(ChannelTimer msg) {
    guest.channel(msg.key(), msg.arrival(), run.fired(msg.due()));
    return Behaviors.same();
  }

  private Behavior<Command> resume() {
    guest.resume();
    return Behaviors.same();
  }

  private Behavior<Command> step() {
    guest.step();
    return Behaviors.same();
  }
}
