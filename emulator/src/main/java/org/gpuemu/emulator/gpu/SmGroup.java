package org.gpuemu.emulator.gpu;

import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.javadsl.AbstractMatchingBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.clock.Timed;
import org.gpuemu.emulator.cpu.CpuScheduler;
import org.gpuemu.emulator.faults.Crashed;
import org.gpuemu.emulator.faults.FaultInjector;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.workloads.KernelSpec;

/**
 * A group of SMs executing kernels: the actor around an {@link SmGroupModel}, which holds every rule (hardware FIFO,
 * fluid execution, context switches, SM spans, space sharing's layouts, accounting). The actor feeds the model each
 * message at its emulated time, replies {@link Finished}, hands surplus SMs to its {@link Sibling} as a {@link Grant},
 * arms one timer at the model's next event, and runs a context switch's GTT copy: {@link GpuMemory} prices it and a
 * host core runs it as host work (gballoon §2.2: the copy lengthens the switch, so the vGPU gets less GPU time, and
 * takes CPU time from vCPUs). Space sharing (COMBO, combo.txt §5.1-§5.3): {@link Resize}, {@link Resume},
 * {@link Bind} and {@link Grant}; see {@link SmGroupModel} for what each does to the kernels.
 *
 * <p>{@code smgroup-crash} ({@link Crash}). Effect: the actor fails and supervision restarts it; the
 * driver resets the engine under it ({@link SmGroupModel#resetEngine}): every kernel running or queued on the group
 * fails with reason {@code smgroup-crashed} (its vGPU fails the guest's call and goes on), a hang in progress is
 * cleared with them. Recovery: the model (the group's counters, layout, a context switch or GTT copy in progress),
 * its sibling and its copies live outside the actor ({@link Held}); the new incarnation arms the model's next event
 * and takes the next kernels. A GTT copy's host work that a crashed core gave back is asked for again.
 */
public final class SmGroup extends AbstractMatchingBehavior<SmGroup.Command> {

  public sealed interface Command {}

  /**
   * Run a kernel for a vGPU, dispatched at emulated time {@code atNanos} (-1: on arrival); {@link Finished} goes to
   * {@code replyTo} when it completes.
   */
  public record Execute(long workId, int vgpu, KernelSpec kernel, FinishedTo replyTo, long atNanos, Bind bind)
      implements Command {
    public Execute(long workId, int vgpu, KernelSpec kernel, ActorRef<Finished> replyTo, long atNanos, Bind bind) {
      this(workId, vgpu, kernel, FinishedTo.of(replyTo), atNanos, bind);
    }

    public Execute(long workId, int vgpu, KernelSpec kernel, ActorRef<Finished> replyTo, long atNanos) {
      this(workId, vgpu, kernel, replyTo, atNanos, null);
    }

    public Execute(long workId, int vgpu, KernelSpec kernel, ActorRef<Finished> replyTo) {
      this(workId, vgpu, kernel, replyTo, -1, null);
    }
  }

  /**
   * Where a kernel's end goes: a vGPU answers itself in its own protocol, one message it makes from these figures
   * (why not a message adapter: {@link CpuScheduler.DoneTo}). Called on the group's actor as it answers.
   */
  public interface FinishedTo {
    /** The fields of {@link Finished}. */
    void finished(long workId, int vgpu, long gpuNanos, long startedNanos, long finishedNanos, String failure);

    /** Answers {@code ref} with a {@link Finished}. */
    static FinishedTo of(ActorRef<Finished> ref) {
      return new FinishedRef(ref);
    }
  }

  /** {@link FinishedTo} as a {@link Finished} told to an actor (tests). */
  public record FinishedRef(ActorRef<Finished> ref) implements FinishedTo {
    @Override public void finished(long workId, int vgpu, long gpuNanos, long startedNanos, long finishedNanos,
        String failure) {
      ref.tell(new Finished(workId, vgpu, gpuNanos, startedNanos, finishedNanos, failure));
    }
  }

  /**
   * How a space-shared kernel is placed: the layout it was dispatched under ({@code epoch}, the group's
   * {@code targetSms} then: applied first if the group has not heard of that layout yet, since the layout and the
   * kernel travel by different actors) and the SMs it is bound to ({@code boundSms}, 0: unbound, the original
   * version).
   */
  public record Bind(long epoch, int targetSms, int boundSms) {
    public Bind {
      if (targetSms < 0 || boundSms < 0) throw new IllegalArgumentException("SM counts must be >= 0");
    }
  }

  /**
   * From layout {@code epoch} on, the group is to own {@code targetSms} SMs (space sharing); older epochs are stale.
   * {@code suspend}: the group's running kernels are suspended from {@code atNanos} until a {@link Resume} (COMBO's
   * exact layout change, §5.2): they keep the work done and give up their SMs, and no queued kernel starts.
   */
  public record Resize(long epoch, int targetSms, long atNanos, boolean suspend) implements Command {
    public Resize(long epoch, int targetSms, long atNanos) {
      this(epoch, targetSms, atNanos, false);
    }
  }

  /**
   * Ends the suspension of layout {@code epoch} (or an older one) at emulated time {@code atNanos}: the suspended
   * kernels spread over what the group owns again, from where they stopped.
   */
  public record Resume(long epoch, long atNanos) implements Command {}

  /**
   * The sibling group handed over {@code sms} SMs at emulated time {@code atNanos}, under layout {@code epoch},
   * which gives the receiver {@code targetSms} (applied first if the receiver has not heard of it yet: the sibling
   * and the layout's sender are different actors).
   */
  public record Grant(int sms, long epoch, int targetSms, long atNanos) implements Command {}

  /** The group that gets this group's surplus SMs (space sharing: the render group's and the BE group's). */
  public record Sibling(ActorRef<Command> sibling) implements Command {}

  public record Report(ActorRef<GroupReport> replyTo) implements Command {}

  private record Tick(long token, long due) implements Command, Timed {}

  private record CopyPriced(GpuMemory.CopyCost cost) implements Command {}

  private record CopyDone(CpuScheduler.Done done) implements Command {}

  /**
   * Where a context switch's GTT copy is priced ({@code memory}) and run ({@code cores}, in turn); null and empty when
   * the memory policy has no GTT.
   */
  public record GttCopies(ActorRef<GpuMemory.Command> memory, List<ActorRef<CpuScheduler.Command>> cores) {
    public static final GttCopies NONE = new GttCopies(null, List.of());

    public GttCopies {
      cores = List.copyOf(cores);
      if (memory != null && cores.isEmpty()) throw new IllegalArgumentException("GTT copies need a host core");
    }
  }

  /**
   * A kernel completed, or failed with reason {@code failure} (null: completed); {@code gpuNanos} is the group time
   * accounted to it.
   */
  public record Finished(long workId, int vgpu, long gpuNanos, long startedNanos, long finishedNanos, String failure) {
    public Finished(long workId, int vgpu, long gpuNanos, long startedNanos, long finishedNanos) {
      this(workId, vgpu, gpuNanos, startedNanos, finishedNanos, null);
    }
  }

  /**
   * Fault {@code fault} (gpu-hang) from {@code atNanos}: vGPU {@code vgpu}'s running or next kernel never finishes, and
   * the watchdog resets the engine {@code watchdogNanos} later ({@link SmGroupModel#hang}); {@code outcomes} hears when.
   */
  public record Hang(int fault, int vgpu, long watchdogNanos, long atNanos, ActorRef<FaultInjector.Outcome> outcomes)
      implements Command {}

  /** Fault {@code fault} (smgroup-crash) at {@code atNanos}: see the class. */
  public record Crash(int fault, long atNanos, ActorRef<FaultInjector.Outcome> outcomes) implements Command {}

  /** Final figures of the group; {@code lastEventNanos} is when it last changed (drain after the end included). */
  public record GroupReport(int sms, long kernelBusyNanos, long switchNanos, long contextSwitches,
      long kernelsCompleted, long medianKernelNanos, long lastEventNanos, int totalSms, double smBusyNanos) {}

  private static final Object TICK = "tick";

  /** What outlives a crash of the actor: the hardware's state (the model), its sibling, its GTT copies. */
  private static final class Held {
    final SmGroupModel<Execute> model;
    ActorRef<Command> sibling;
    /** Hangs not yet reset, by vGPU. */
    final java.util.Map<Integer, Hang> hangs = new java.util.TreeMap<>();
    long copiesRun; // GTT copies run so far: the next one runs on core copiesRun mod cores
    ActorRef<CpuScheduler.Command> copyCore; // the core of the copy in progress

    Held(SmGroupModel<Execute> model) {
      this.model = model;
    }
  }

  private final Held held;
  private final SmGroupModel<Execute> model;
  private final RunContext run;
  private final TimerScheduler<Command> timers;
  private final GttCopies copies;
  private final ActorRef<GpuMemory.CopyCost> copyPriced;
  private final ActorRef<CpuScheduler.Done> copyDone;
  private long token; // the armed timer's: a tick of an older arming is stale

  /**
   * An SM group's hardware: {@code sms} SMs of the GPU's {@code totalSms}, at most {@code maxConcurrent} kernels side
   * by side, a context switch of {@code contextSwitchNanos}, and the fluid model of kernels sharing it.
   */
  public record Spec(int sms, int totalSms, int maxConcurrent, long contextSwitchNanos, FluidModel model) {}

  public static Behavior<Command> create(Spec spec, RunContext run) {
    return create(spec, GttCopies.NONE, run);
  }

  public static Behavior<Command> create(Spec spec, GttCopies copies, RunContext run) {
    Held held = new Held(new SmGroupModel<>(spec.sms(), spec.totalSms(), spec.maxConcurrent(),
        spec.contextSwitchNanos(), spec.model(), copies.memory() != null));
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> run.causal(Crashed.restarting(
        Behaviors.setup(c -> new SmGroup(c, held, copies, run, timers))))));
  }

  private SmGroup(ActorContext<Command> ctx, Held held, GttCopies copies, RunContext run,
      TimerScheduler<Command> timers) {
    super(ctx);
    this.held = held;
    this.model = held.model;
    this.copies = copies;
    this.copyPriced = ctx.messageAdapter(GpuMemory.CopyCost.class, CopyPriced::new);
    this.copyDone = ctx.messageAdapter(CpuScheduler.Done.class, CopyDone::new);
    this.run = run;
    this.timers = timers;
    rearm(); // a restarted incarnation: the model's next event, its timer cancelled by the restart
  }

  /** The routing table, each message to its handler. */
  @Override public Behavior<Command> onMessage(Command msg) {
    if (msg instanceof Execute m) return onExecute(m);
    if (msg instanceof Tick m) return onTick(m);
    if (msg instanceof CopyPriced m) return onCopyPriced(m);
    if (msg instanceof CopyDone m) return onCopyDone(m);
    if (msg instanceof Report m) return onReport(m);
    if (msg instanceof Resize m) return onResize(m);
    if (msg instanceof Grant m) return onGrant(m);
    if (msg instanceof Resume m) return onResume(m);
    if (msg instanceof Sibling m) return onSibling(m);
    if (msg instanceof Hang m) return onHang(m);
    if (msg instanceof Crash m) return onCrash(m);
    return Behaviors.unhandled();
  }

  @Override public Behavior<Command> onSignal(Signal signal) {
    return signal instanceof PreRestart ? run.disarmAll(timers, Behaviors.same()) : Behaviors.unhandled();
  }

  private Behavior<Command> onExecute(Execute msg) {
    long now = msg.atNanos() >= 0 ? run.received(model.lastEventAt(), msg.atNanos()) : run.now();
    Bind bind = msg.bind();
    var kernel = new SmGroupModel.Kernel<>(msg, msg.vgpu(), msg.kernel(), bind == null ? 0 : bind.boundSms());
    return carryOut(bind == null ? model.execute(kernel, now)
        : model.execute(kernel, bind.epoch(), bind.targetSms(), now));
  }

  private Behavior<Command> onResize(Resize msg) {
    return carryOut(model.resize(msg.epoch(), msg.targetSms(), msg.suspend(), msg.atNanos()));
  }

  private Behavior<Command> onResume(Resume msg) {
    return model.resumes(msg.epoch()) ? carryOut(model.resume(msg.epoch(), msg.atNanos())) : this;
  }

  private Behavior<Command> onGrant(Grant msg) {
    return carryOut(model.grant(msg.sms(), msg.epoch(), msg.targetSms(), msg.atNanos()));
  }

  private Behavior<Command> onSibling(Sibling msg) {
    held.sibling = msg.sibling();
    model.handOverSurplus();
    return Behaviors.same();
  }

  private Behavior<Command> onHang(Hang msg) {
    held.hangs.put(msg.vgpu(), msg);
    return carryOut(model.hang(msg.vgpu(), msg.watchdogNanos(), run.received(model.lastEventAt(), msg.atNanos())));
  }

  private Behavior<Command> onTick(Tick msg) {
    if (msg.token() != token) return Behaviors.same();
    return carryOut(model.eventDue(run.fired(msg.due())));
  }

  /**
   * The copy is host work ({@link CpuScheduler.HostRun}) from the switch's model time: it preempts the vCPU running
   * on its core and runs to its end, ahead of every vCPU. Dom0's mediator "takes up the CPU time of other VMs"
   * (gballoon.txt §1), and Figure 8 has the copies cost NPB cg 19 % while Valley, whose switches wait for them, still
   * gains 4 % under gVirt-1024: the copies were not held up behind guests (a copy sharing its core fairly with two
   * busy vCPUs took three times its CPU time, and gVirt-1024 lost 44 % instead of gaining 4 %).
   *
   * <p>Which core: "one CPU processes the copying of the GTT entries" at a time (§3.2, Eq. 1), but Dom0 has a vCPU
   * on each of the host's cores (Table 1: 8 vCPUs, 8 cores) and Xen runs it wherever it balances it to, so the copy
   * time is spread over every core; Eq. 1 divides it by N for that reason. Modelled as copies taking the cores in
   * turn, so every guest sharing a core pays an equal part (with one copying core, cg paid only on that core).
   */
  private Behavior<Command> onCopyPriced(CopyPriced msg) {
    if (msg.cost().cpuNanos() <= 0) return carryOut(model.copied(model.copyStartedAt()));
    held.copyCore = copies.cores().get((int) (held.copiesRun++ % copies.cores().size()));
    held.copyCore.tell(new CpuScheduler.HostRun(msg.cost().cpuNanos(), copyDone, model.copyStartedAt()));
    return Behaviors.same();
  }

  private Behavior<Command> onCopyDone(CopyDone msg) {
    CpuScheduler.Done done = msg.done();
    copies.memory().tell(new GpuMemory.CopyTime(done.ranNanos()));
    if (done.remainingNanos() > 0) { // a crashed core gave it back: the rest on the same core, from then
      held.copyCore.tell(new CpuScheduler.HostRun(done.remainingNanos(), copyDone, done.endNanos()));
      return Behaviors.same();
    }
    return carryOut(model.copied(done.endNanos()));
  }

  /** smgroup-crash: the engine is reset under the failing actor (see the class). */
  private Behavior<Command> onCrash(Crash msg) {
    long at = run.received(model.lastEventAt(), msg.atNanos());
    carryOut(model.resetEngine("smgroup-crashed", at));
    for (Hang h : held.hangs.values()) h.outcomes().tell(new FaultInjector.Healed(h.fault(), at));
    held.hangs.clear();
    msg.outcomes().tell(new FaultInjector.Healed(msg.fault(), at));
    getContext().getLog().warn("SM group crashes at {} s (fault {}); the engine is reset, supervision restarts it",
        at / 1e9, msg.fault());
    throw new Crashed("SM group", msg.fault());
  }

  private Behavior<Command> onReport(Report msg) {
    SmGroupFigures f = model.figures();
    msg.replyTo().tell(new GroupReport(model.sms(), f.kernelBusyNanos(), f.switchNanos(), f.contextSwitches(),
        f.kernelsCompleted(), f.medianKernelNanos(), model.lastEventAt(), model.totalSms(), f.smBusyNanos()));
    return Behaviors.same();
  }

  /** Replies to the completed kernels, asks for the GTT copy, hands SMs over, and re-arms the timer. */
  private Behavior<Command> carryOut(SmGroupModel.Step<Execute> step) {
    List<SmGroupModel.Completion<Execute>> completed = step.completed();
    for (int i = 0; i < completed.size(); i++) { // by index: no iterator for the one completion of most steps
      SmGroupModel.Completion<Execute> c = completed.get(i);
      Execute e = c.tag();
      e.replyTo().finished(e.workId(), e.vgpu(), c.gpuNanos(), c.startedNanos(), c.finishedNanos(), null);
    }
    List<SmGroupModel.Failure<Execute>> failed = step.failed();
    for (int i = 0; i < failed.size(); i++) {
      SmGroupModel.Failure<Execute> f = failed.get(i);
      Execute e = f.tag();
      e.replyTo().finished(e.workId(), e.vgpu(), f.gpuNanos(), f.atNanos(), f.atNanos(), f.reason());
      Hang h = SmGroupModel.GPU_RESET.equals(f.reason()) ? held.hangs.remove(f.vgpu()) : null;
      if (h != null) h.outcomes().tell(new FaultInjector.Healed(h.fault(), f.atNanos()));
    }
    if (step.copy().isPresent()) copies.memory().tell(new GpuMemory.SwitchTo(step.copy().get().vgpu(), copyPriced));
    if (step.handover().isPresent()) {
      SmGroupModel.Handover h = step.handover().get();
      held.sibling.tell(new Grant(h.sms(), h.epoch(), h.targetSms(), h.atNanos()));
    }
    rearm();
    return Behaviors.same();
  }

  /** Arms the timer at the model's next event, or none. */
  private void rearm() {
    long due = model.nextEventNanos();
    if (due != Long.MAX_VALUE) {
      run.arm(timers, TICK, new Tick(++token, due), due);
    } else {
      run.disarm(timers, TICK);
      token++;
    }
  }
}
