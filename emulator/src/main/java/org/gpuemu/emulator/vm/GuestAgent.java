package org.gpuemu.emulator.vm;

import org.gpuemu.emulator.clock.Timed;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.javadsl.AbstractMatchingBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.faults.Crashed;
import org.gpuemu.emulator.faults.FaultInjector;
import org.gpuemu.emulator.faults.RequestHistory;
import org.gpuemu.emulator.gpu.Scheduling;
import org.gpuemu.emulator.gpu.VgrisController;
import org.gpuemu.emulator.metrics.MetricsPorts;
import org.gpuemu.emulator.clock.RunContext;
import java.util.function.LongConsumer;
import org.gpuemu.policies.vgris.AgentCpu;
import org.gpuemu.policies.vgris.PresentMode;
import org.gpuemu.policies.vgris.SlaPacer;
import org.gpuemu.workloads.KernelSpec;

/**
 * The per-VM agent of VGRIS (vgris.txt §3.1): it intercepts the guest's {@code Present} and applies the mode the
 * scheduling controller (the GPU scheduler's {@link VgrisController}) gives it, and it reports the frames of every
 * second to the controller. Under the baseline policies the mode is pass-through and Present goes straight to the
 * vGPU.
 *
 * <ul>
 *   <li>SLA-aware (§3.2, Figure 5): {@code Flush}, then sleep target − (time since the previous Present returned,
 *       flush included) − predicted Present cost, then Present; the cost of every Present (issue to return) is
 *       recorded, in every mode, so the prediction is ready when the hybrid switches to SLA-aware. The Flush waits
 *       until the frame's commands have run on the GPU (the event query of {@link VgpuAnswers}), so the frame's GPU
 *       time is inside the measured time and the sleep comes after it (the paper measures it instead of predicting
 *       it, and so does this agent).</li>
 *   <li>Proportional share (§3.2): the agent asks the controller before each Present and holds it until the VM's
 *       budget allows.</li>
 * </ul>
 * What the agent's own work costs (Figure 12's parts, {@link AgentCpu}) and what the Present call itself costs
 * ({@code Step.Present#cpuNanos}) the guest's vCPU runs on its core, the first when the agent intercepts a Present,
 * the second inside the Present the agent measures ({@link VCpu.AgentWork}).
 * Under a policy that does not intercept Present the agent passes it through, unless the VM has a fixed
 * {@code present-sleep} (the sleep schedule of Figure 8: "An initial sleep time per frame of 300 ms is set by
 * VGRIS"): then it runs the SLA-aware loop with that sleep instead of a computed one, Flush, Sleep, Present. A frame's latency is measured by the vCPU
 * (between the returns of two Presents), not here. What each Present cost (issue to return) and what the agent had
 * predicted for it go to the metrics hub in every mode (Figures 6 and 9: the prediction is the one SLA-aware
 * scheduling sleeps by, made from the costs recorded so far).
 *
 * <p>{@code agent-crash} ({@link Crash}). Effect: the actor fails and supervision restarts it. A Present it
 * held (sleeping before it, waiting for the controller's permission or for the flush) fails with reason
 * {@code agent-crashed}, its tail too if it had not gone to the vGPU, and the guest is answered: the frame is lost;
 * what it had counted for the controller's second is lost, and the Present cost history the SLA-aware sleep predicts
 * from starts empty. Recovery: the new incarnation asks the controller for its mode again (it joins again), and a
 * Present it had already handed to the vGPU is answered through it ({@link AgentLedger}). {@code vm-reboot}
 * ({@link Reset}): a Present it held fails with {@code vm-crashed}; the mode stays (it is the scheduler's).
 */
public final class GuestAgent extends AbstractMatchingBehavior<GuestAgent.Command> {

  public sealed interface Command {}

  /**
   * The guest calls Present, submitting {@code tail} (null: nothing); the answer goes to {@code replyTo} as
   * {@link VCpu.PresentReturned}.
   */
  public record Present(ActorRef<VCpu.Command> replyTo, KernelSpec tail, long atNanos, long tailCall, long call,
      long cpuNanos) implements Command {
    /** A Present whose own CPU time is not modelled. */
    public Present(ActorRef<VCpu.Command> replyTo, KernelSpec tail, long atNanos, long tailCall, long call) {
      this(replyTo, tail, atNanos, tailCall, call, 0);
    }
  }

  /** The guest's vCPU ran the CPU work the agent asked of it ({@link VCpu.AgentWork}), ending at {@code atNanos}. */
  public record GuestCpuRan(long atNanos) implements Command {}

  /** Fault {@code fault} (agent-crash) at {@code atNanos}: see the class. */
  public record Crash(int fault, long atNanos, ActorRef<FaultInjector.Outcome> outcomes) implements Command {}

  /** The VM reboots at {@code atNanos} (vm-reboot): a Present held here fails with {@code reason}. */
  public record Reset(long atNanos, String reason) implements Command {}

  private record FromController(Scheduling.ToAgent message) implements Command {}

  private record FromVgpu(VCpu.Command answer) implements Command {}

  private record SleepEnded(long due) implements Command, Timed {}

  /** Present costs averaged by default, until the controller names another history ("the past twenty"). */
  private static final int DEFAULT_HISTORY = 20;
  private static final Object SLEEP = "sla-sleep";

  private final int vgpuIndex;
  private final Settings.Vm vm;
  private final ActorRef<VGpu.Command> vgpu;
  private final ActorRef<Scheduling.Command> controller;
  private final MetricsPorts.Presents presents;
  private final RunContext run;
  private final TimerScheduler<Command> timers;
  private final VGpu.AnswerTo vgpuAnswers;
  private final ActorRef<Scheduling.ToAgent> controllerMessages;
  /** The Present in flight and the request ids: outlive a crash. */
  private final AgentLedger ledger;
  private PresentMode mode = new PresentMode.PassThrough();
  private SlaPacer pacer;
  private int pacerHistory = DEFAULT_HISTORY;
  private long lastReturned = -1;
  private long firstReturned = -1;
  private int framesSinceReport;
  /** The agent's prediction for the Present in flight when it was issued; -1: none. */
  private long predictedAtIssue = -1;
  /** What follows the CPU work the guest's vCPU is running for the agent (null: none), given when it ended. */
  private LongConsumer afterGuestCpu;

  /**
   * The actors a guest agent talks to: its VM's vGPU, the controller its Presents ask (the GPU scheduler, whose
   * present control answers), and its port to the metrics hub (each Present's cost).
   */
  public record Peers(ActorRef<VGpu.Command> vgpu, ActorRef<Scheduling.Command> controller,
      MetricsPorts.Presents presents) {}

  public static Behavior<Command> create(Settings.Vm vm, Peers peers, RunContext run, RequestHistory history) {
    AgentLedger ledger = new AgentLedger(vm.index(), history);
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> run.causal(Crashed.restarting(Behaviors.setup(
        c -> new GuestAgent(c, vm, peers, run, timers, ledger))))));
  }

  private GuestAgent(ActorContext<Command> ctx, Settings.Vm vm, Peers peers, RunContext run,
      TimerScheduler<Command> timers, AgentLedger ledger) {
    super(ctx);
    this.presents = peers.presents();
    this.ledger = ledger;
    this.vgpuIndex = vm.index();
    this.vm = vm;
    this.vgpu = peers.vgpu();
    this.controller = peers.controller();
    this.run = run;
    this.timers = timers;
    this.pacer = new SlaPacer(SlaPacer.targetLatencyNanos(vm.slaFps()), DEFAULT_HISTORY);
    ActorRef<Command> self = ctx.getSelf();
    this.vgpuAnswers = answer -> self.tell(new FromVgpu(answer)); // the vGPU's answers, in this actor's protocol
    this.controllerMessages = ctx.messageAdapter(Scheduling.ToAgent.class, FromController::new);
    controller.tell(new Scheduling.AgentJoin(vgpuIndex, controllerMessages));
  }

  /** The routing table, each message to its handler. */
  @Override public Behavior<Command> onMessage(Command msg) {
    if (msg instanceof Present m) return onPresent(m);
    if (msg instanceof FromVgpu m) return onVgpu(m);
    if (msg instanceof SleepEnded m) return onSleepEnded(m);
    if (msg instanceof GuestCpuRan m) return onGuestCpuRan(m);
    if (msg instanceof FromController m) return onController(m);
    if (msg instanceof Crash m) return onCrash(m);
    if (msg instanceof Reset m) return onReset(m);
    return Behaviors.unhandled();
  }

  @Override public Behavior<Command> onSignal(Signal signal) {
    return signal instanceof PreRestart ? run.disarmAll(timers, Behaviors.same()) : Behaviors.unhandled();
  }

  private Behavior<Command> onPresent(Present msg) {
    ledger.held(msg);
    // the agent's own work on an intercepted Present (Figure 12's parts), run on the guest's vCPU first
    long agentCpu = AgentCpu.perPresent(mode, vm.presentSleep().set());
    if (mode instanceof PresentMode.SlaAware) {
      guestCpu(agentCpu, msg.atNanos(), at -> flush());
    } else if (mode instanceof PresentMode.ProportionalShare) {
      guestCpu(agentCpu, msg.atNanos(), at -> {
        ledger.ask();
        controller.tell(new Scheduling.MayPresent(vgpuIndex, controllerMessages));
      });
    } else if (vm.presentSleep().set()) {
      // VGRIS's agent with a fixed sleep (Figure 8): the SLA-aware loop, Flush then Sleep then Present (§3.2)
      guestCpu(agentCpu, msg.atNanos(), at -> flush());
    } else {
      issuePresent(msg.atNanos()); // passed through at the guest's model time (causal order)
    }
    return Behaviors.same();
  }

  /**
   * The guest's vCPU runs {@code nanos} of CPU work for the agent from {@code atNanos} (-1: now), then {@code then}
   * follows with the model time it ended; at once when there is none. The work is the agent's or the Present call's
   * own: it runs in the guest's thread, so the vCPU's core must run it.
   */
  private void guestCpu(long nanos, long atNanos, LongConsumer then) {
    long at = atNanos >= 0 ? atNanos : run.now();
    if (nanos <= 0) {
      then.accept(at);
      return;
    }
    afterGuestCpu = then;
    ledger.guest().tell(new VCpu.AgentWork(nanos, at, getContext().getSelf()));
  }

  private Behavior<Command> onGuestCpuRan(GuestCpuRan msg) {
    LongConsumer then = afterGuestCpu;
    afterGuestCpu = null;
    // null: a crash lost what was to follow; not held: the Present failed meanwhile (its guest was answered)
    if (then != null && ledger.holds()) then.accept(msg.atNanos());
    return Behaviors.same();
  }

  /** The frame's last batch goes out now, then the Flush that waits for the frame's commands to run. */
  private void flush() {
    if (ledger.tail != null) vgpu.tell(new VGpu.Launch(ledger.tail, -1, -1, ledger.tailCall));
    ledger.tailSent();
    vgpu.tell(new VGpu.Flush(vgpuAnswers, ledger.ownFlush(run.now())));
  }

  private Behavior<Command> onVgpu(FromVgpu msg) {
    if (msg.answer() instanceof VCpu.FlushReturned) {
      if (!ledger.holds()) return Behaviors.same(); // the Present it was for failed (a crash): nothing to sleep for
      long now = run.now();
      sleepThenPresent(mode instanceof PresentMode.SlaAware
          ? pacer.sleepBeforePresent(lastReturned < 0 ? 0 : now - lastReturned)
          : vm.presentSleep().at(now - vm.startDelayNanos()));
    } else if (msg.answer() instanceof VCpu.PresentReturned returned) {
      long now = run.now();
      if (returned.failure() == null) {
        long cost = now - ledger.presentIssued;
        presents.returned(cost, predictedAtIssue);
        pacer.presentReturned(cost);
        lastReturned = now;
        if (firstReturned < 0) firstReturned = now;
        framesSinceReport++;
      }
      ledger.answered(returned);
    }
    return Behaviors.same();
  }

  private Behavior<Command> onSleepEnded(SleepEnded msg) {
    run.fired(msg.due());
    issuePresent();
    return Behaviors.same();
  }

  /** agent-crash: a Present held here fails, then the actor fails (see the class). */
  private Behavior<Command> onCrash(Crash msg) {
    long at = Math.max(run.now(), msg.atNanos());
    ledger.failHeld("agent-crashed", at);
    msg.outcomes().tell(new FaultInjector.Healed(msg.fault(), at)); // restarted at once
    getContext().getLog().warn("guest agent of {} crashes at {} s (fault {}); supervision restarts it", vm.name(),
        at / 1e9, msg.fault());
    throw new Crashed("guest agent " + vm.name(), msg.fault());
  }

  /** vm-reboot: a Present held here fails; a sleep before it is cancelled. */
  private Behavior<Command> onReset(Reset msg) {
    run.disarm(timers, SLEEP);
    ledger.failHeld(msg.reason(), Math.max(run.now(), msg.atNanos()));
    return Behaviors.same();
  }

  private Behavior<Command> onController(FromController msg) {
    Scheduling.ToAgent m = msg.message();
    if (m instanceof Scheduling.SetMode set) {
      mode = set.mode();
      if (mode instanceof PresentMode.SlaAware sla
          && (sla.targetLatencyNanos() != pacer.targetLatencyNanos() || sla.presentHistory() != pacerHistory)) {
        pacer = new SlaPacer(sla.targetLatencyNanos(), sla.presentHistory());
        pacerHistory = sla.presentHistory();
      }
    } else if (m instanceof Scheduling.PresentAllowed) {
      if (ledger.holds()) issuePresent(); // else: the Present it was for failed (a crash, a reboot)
    } else if (m instanceof Scheduling.Restarted) {
      // the scheduler restarted and lost the question: a Present waiting for its permission asks again
      if (ledger.asking()) controller.tell(new Scheduling.MayPresent(vgpuIndex, controllerMessages));
    } else if (m instanceof Scheduling.Collect collect) {
      // a second counts only when the guest was already presenting when it began
      boolean running = firstReturned >= 0 && firstReturned <= collect.secondStart();
      collect.replyTo().tell(new VgrisController.AgentReport(vgpuIndex, collect.seq(), framesSinceReport, running));
      framesSinceReport = 0;
    }
    return Behaviors.same();
  }

  private void sleepThenPresent(long sleep) {
    if (sleep > 0) {
      long due = run.now() + sleep;
      run.arm(timers, SLEEP, new SleepEnded(due), due);
    } else {
      issuePresent();
    }
  }

  private void issuePresent() {
    issuePresent(-1);
  }

  /**
   * {@code atNanos}: the guest's model time when the Present went straight through, -1 when the agent held it. The
   * call's own CPU work runs on the guest's vCPU first (inside the Present the agent measures), then the Present
   * goes to the vGPU.
   */
  private void issuePresent(long atNanos) {
    predictedAtIssue = pacer.predictedPresentNanos();
    long issued = run.now();
    guestCpu(ledger.presentCpu, atNanos, end -> {
      ledger.forwarded(issued, atNanos >= 0);
      vgpu.tell(new VGpu.Present(vgpuAnswers, ledger.tail, atNanos >= 0 ? end : -1, ledger.tailCall, ledger.call));
      ledger.tailSent();
    });
  }
}
