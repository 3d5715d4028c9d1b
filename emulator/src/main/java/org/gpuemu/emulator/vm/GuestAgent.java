package org.gpuemu.emulator.vm;

import org.gpuemu.emulator.clock.Timed;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.gpu.Scheduling;
import org.gpuemu.emulator.gpu.VgrisController;
import org.gpuemu.emulator.clock.RunContext;
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
 *       recorded, in every mode, so the prediction is ready when the hybrid switches to SLA-aware. The flush's own
 *       CPU cost is not modelled: the paper measures it instead of predicting it, and so does this agent.</li>
 *   <li>Proportional share (§3.2): the agent asks the controller before each Present and holds it until the VM's
 *       budget allows.</li>
 * </ul>
 * Under a policy that does not intercept Present the agent passes it through, after the VM's fixed
 * {@code present-sleep} if it has one (the sleep schedule of Figure 8). A frame's latency is measured by the vCPU
 * (between the returns of two Presents), not here.
 */
public final class GuestAgent extends AbstractBehavior<GuestAgent.Command> {

  public sealed interface Command {}

  /**
   * The guest calls Present, submitting {@code tail} (null: nothing); the answer goes to {@code replyTo} as
   * {@link VCpu.PresentReturned}.
   */
  public record Present(ActorRef<VCpu.Command> replyTo, KernelSpec tail, long atNanos) implements Command {
    public Present(ActorRef<VCpu.Command> replyTo, KernelSpec tail) {
      this(replyTo, tail, -1);
    }
  }

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
  private final RunContext run;
  private final TimerScheduler<Command> timers;
  private final ActorRef<VCpu.Command> vgpuAnswers;
  private final ActorRef<Scheduling.ToAgent> controllerMessages;
  private PresentMode mode = new PresentMode.PassThrough();
  private SlaPacer pacer;
  private int pacerHistory = DEFAULT_HISTORY;
  private ActorRef<VCpu.Command> guest;
  private KernelSpec tail;
  private long lastReturned = -1;
  private long firstReturned = -1;
  private long presentIssued;
  private int framesSinceReport;

  public static Behavior<Command> create(Settings.Vm vm, ActorRef<VGpu.Command> vgpu,
      ActorRef<Scheduling.Command> controller, RunContext run) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers ->
        run.causal(new GuestAgent(ctx, vm, vgpu, controller, run, timers))));
  }

  private GuestAgent(ActorContext<Command> ctx, Settings.Vm vm, ActorRef<VGpu.Command> vgpu,
      ActorRef<Scheduling.Command> controller, RunContext run, TimerScheduler<Command> timers) {
    super(ctx);
    this.vgpuIndex = vm.index();
    this.vm = vm;
    this.vgpu = vgpu;
    this.controller = controller;
    this.run = run;
    this.timers = timers;
    this.pacer = new SlaPacer(SlaPacer.targetLatencyNanos(vm.slaFps()), DEFAULT_HISTORY);
    this.vgpuAnswers = ctx.messageAdapter(VCpu.Command.class, FromVgpu::new);
    this.controllerMessages = ctx.messageAdapter(Scheduling.ToAgent.class, FromController::new);
    controller.tell(new Scheduling.AgentJoin(vgpuIndex, controllerMessages));
  }

  @Override public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Present.class, this::onPresent)
        .onMessage(FromVgpu.class, this::onVgpu)
        .onMessage(SleepEnded.class, this::onSleepEnded)
        .onMessage(FromController.class, this::onController)
        .build();
  }

  private Behavior<Command> onPresent(Present msg) {
    guest = msg.replyTo();
    tail = msg.tail();
    if (mode instanceof PresentMode.SlaAware) {
      // the Flush pushes the frame's last batch out now, ahead of the sleep
      if (tail != null) vgpu.tell(new VGpu.Launch(tail, -1, -1));
      tail = null;
      vgpu.tell(new VGpu.Flush(vgpuAnswers));
    } else if (mode instanceof PresentMode.ProportionalShare) {
      controller.tell(new Scheduling.MayPresent(vgpuIndex, controllerMessages));
    } else {
      long sleep = vm.presentSleep().at(run.now() - vm.startDelayNanos());
      if (sleep > 0) {
        sleepThenPresent(sleep);
      } else {
        issuePresent(msg.atNanos()); // passed through at the guest's model time (DESIGN.md §4)
      }
    }
    return this;
  }

  private Behavior<Command> onVgpu(FromVgpu msg) {
    if (msg.answer() instanceof VCpu.FlushReturned) {
      long now = run.now();
      sleepThenPresent(pacer.sleepBeforePresent(lastReturned < 0 ? 0 : now - lastReturned));
    } else if (msg.answer() instanceof VCpu.PresentReturned returned) {
      long now = run.now();
      pacer.presentReturned(now - presentIssued);
      lastReturned = now;
      if (firstReturned < 0) firstReturned = now;
      framesSinceReport++;
      guest.tell(presentTimed ? returned : VCpu.PresentReturned.UNTIMED);
    }
    return this;
  }

  private Behavior<Command> onSleepEnded(SleepEnded msg) {
    run.fired(msg.due());
    issuePresent();
    return this;
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
      issuePresent();
    } else if (m instanceof Scheduling.Collect collect) {
      // a second counts only when the guest was already presenting when it began
      boolean running = firstReturned >= 0 && firstReturned <= collect.secondStart();
      collect.replyTo().tell(new VgrisController.AgentReport(vgpuIndex, collect.seq(), framesSinceReport, running));
      framesSinceReport = 0;
    }
    return this;
  }

  /** Whether the Present in flight went straight through, so that its answer's model time holds. */
  private boolean presentTimed;

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

  /** {@code atNanos}: the guest's model time when the Present went straight through, -1 when the agent held it. */
  private void issuePresent(long atNanos) {
    presentIssued = run.now();
    presentTimed = atNanos >= 0;
    vgpu.tell(new VGpu.Present(vgpuAnswers, tail, atNanos));
    tail = null;
  }
}
