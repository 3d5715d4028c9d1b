package org.gpuemu.emulator.vm;

import java.util.ArrayDeque;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.javadsl.AbstractMatchingBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.gpuemu.emulator.gpu.Scheduling;
import org.gpuemu.emulator.gpu.VmcgMeter;
import org.gpuemu.emulator.gpu.SmGroup;
import org.gpuemu.emulator.metrics.MetricsPorts;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.faults.Crashed;
import org.gpuemu.emulator.faults.FaultInjector;
import org.gpuemu.emulator.faults.RequestHistory;
import org.gpuemu.policies.gpu.VgpuParams;
import org.gpuemu.workloads.KernelSpec;

/**
 * A VM's virtual GPU: its request ring, the frames the guest has queued, and the accounting of the GPU time its
 * requests used.
 *
 * <p>Two bounds model the Direct3D path of vgris.txt §2.2. The driver's command buffer holds at most
 * {@code driverQueue} of this guest's requests (queued at the GPU scheduler or running); further requests stay in
 * the runtime's queue ("commands still kept by Direct3D runtime ... until available room is found in the command
 * buffer at the driver side") and are handed on, in order, as the guest's earlier requests complete. Because every
 * guest has only a few requests in the shared FIFO, the FIFO serves guests in turn, request by request, so GPU time
 * is shared about equally ("allocates resources fairly under contention", §3.2) and a guest with light frames gets
 * more frames. {@code Present} returns once everything the guest recorded is in the driver's buffer (which is what
 * makes Present expensive under contention, Figure 6; {@code Flush} ahead of it waits until those requests have run)
 * and no more than {@code commandBuffer} frames are unfinished.
 *
 * <p>The ring, the buffer and the accounting are a plain model, {@link VgpuModel}, which tests replay without an
 * actor system; this actor turns messages into its calls and sends what it decides.
 *
 * <p>Faults: {@code vgpu-crash} restarts the actor under supervision and {@code gpu-hang} fails the kernels
 * an engine reset took; what each does and how it recovers: {@link VgpuFaults}.
 */
public final class VGpu extends AbstractMatchingBehavior<VGpu.Command> {

  public sealed interface Command {}

  /**
   * Asynchronous launch from vCPU {@code vcpu} (-1: untagged) at emulated time {@code atNanos} (-1: on arrival):
   * the guest does not wait. {@code call}: the guest's request id in the run's history (-1: untracked), here and in
   * every call below.
   */
  public record Launch(KernelSpec kernel, int vcpu, long atNanos, long call) implements Command {}

  /** Synchronous call from {@code vcpu}: {@code replyTo} gets {@link VCpu.SyncReturned} when it has completed. */
  public record Sync(KernelSpec kernel, int vcpu, ActorRef<VCpu.Command> replyTo, long atNanos, long call)
      implements Command {}

  /**
   * End of frame, submitting {@code tail} (null: nothing; its id {@code tailCall}) first:
   * {@link VCpu.PresentReturned} once the frame is in the driver's buffer and the buffer has room.
   */
  public record Present(AnswerTo replyTo, KernelSpec tail, long atNanos, long tailCall, long call)
      implements Command {
    public Present(ActorRef<VCpu.Command> replyTo, KernelSpec tail, long atNanos, long tailCall, long call) {
      this(AnswerTo.of(replyTo), tail, atNanos, tailCall, call);
    }
  }

  /**
   * {@link VCpu.FlushReturned} once everything recorded so far has completed on the GPU (Direct3D 9's event query
   * polled with {@code D3DGETDATA_FLUSH}: {@link VgpuAnswers}).
   */
  public record Flush(AnswerTo replyTo, long call) implements Command {
    public Flush(ActorRef<VCpu.Command> replyTo, long call) {
      this(AnswerTo.of(replyTo), call);
    }
  }

  /**
   * Where a {@link Present}'s or {@link Flush}'s answer goes: the guest agent answers itself in its own protocol (why
   * not a message adapter: {@link org.gpuemu.emulator.cpu.CpuScheduler.DoneTo}). Called on the vGPU's actor as it
   * answers.
   */
  public interface AnswerTo {
    void answer(VCpu.Command answer);

    /** Tells {@code ref} the answer (a vCPU). */
    static AnswerTo of(ActorRef<VCpu.Command> ref) {
      return ref::tell;
    }
  }

  /** A guest's {@code call} (request {@code id}) over a faulty channel, given up at {@code giveUp}: GuestChannel. */
  public record Transmitted(Command call, long id, long giveUp, ActorRef<VCpu.Command> ackTo) implements Command {}

  /** Reply {@link Drained} once nothing of this vGPU is queued or running. */
  public record Drain(ActorRef<Drained> replyTo) implements Command {}

  public record Report(ActorRef<VgpuReport> replyTo) implements Command {}

  /** A vCPU of this VM held its core this long; passed on to the GPU scheduler (VMCG's CPU time). */
  public record CpuTime(long cpuNanos) implements Command {}
  private record FromScheduler(Scheduling.ToVgpu message) implements Command {}
  /** A kernel's end ({@link SmGroup.Finished}'s figures, sent by its SM group in this protocol). */
  private record KernelFinished(long workId, long gpuNanos, long finishedNanos, String failure) implements Command {}

  /**
   * Fault {@code fault}: crash at {@code atNanos}, down for {@code downNanos} after the restart, its calls in flight
   * failing with {@code reason} ({@code vgpu-crashed}; {@code vm-crashed} for a reboot): {@link VgpuFaults}.
   */
  public record Crash(int fault, long downNanos, long atNanos, ActorRef<FaultInjector.Outcome> outcomes,
      String reason) implements Command {}

  /** Tell {@code outcomes} when this VM next completes a kernel call from {@code sinceNanos} (-1: its next failure). */
  public record Watch(int fault, long sinceNanos, ActorRef<FaultInjector.Outcome> outcomes) implements Command {}

  public record Drained(int vgpu) {}
  /** Final figures of this vGPU; requests are GPU calls (launch, sync, present, flush). */
  public record VgpuReport(int vgpu, long submitted, long completed, long failed, long outstanding,
      long kernelsCompleted, long gpuBusyNanos, long kernelsInRun, long gpuBusyInRunNanos,
      List<FailedRequest> failures) {
    public VgpuReport {
      failures = List.copyOf(failures);
    }
  }

  /**
   * A vGPU as configured: {@code commandBuffer} frames and {@code driverQueue} requests (vgris.txt §2.2);
   * {@code measuredUntil}: when the VM's program stops (its figures count GPU work up to then, not the drain);
   * {@code slicer}: how the policy slices a kernel; {@code reportFrames}: tell the scheduler of each Present
   * ({@link Scheduling.Presented}, space sharing).
   */
  public record Settings(VgpuParams params, int commandBuffer, int driverQueue, long measuredUntil, Slicer slicer,
      boolean reportFrames) {}

  /**
   * Whom a vGPU talks to: its GPU scheduler, where the vCPUs' CPU time goes ({@code cpuTimes}, null: nowhere, the
   * policy does not use it), its SM group and its port to the metrics hub (the GPU time of each kernel).
   */
  public record Peers(ActorRef<Scheduling.Command> scheduler, ActorRef<VmcgMeter.CpuTime> cpuTimes,
      ActorRef<SmGroup.Command> smGroup, MetricsPorts.GpuTime gpuTime) {}

  private final RunContext run;
  private final Peers peers;
  private final SmGroup.FinishedTo finishedTo;
  private final ArrayDeque<ActorRef<Drained>> drains = new ArrayDeque<>();
  private final VgpuModel model;

  /** {@code history}: where the outcome of every call goes, by its id. */
  public static Behavior<Command> create(Settings settings, Peers peers, RunContext run, RequestHistory history) {
    VgpuLedger ledger = new VgpuLedger(settings.measuredUntil(), history, settings.params().vgpu());
    // the causal inbox outside the supervisor: what it holds and its senders' order survive a restart, and the
    // dying incarnation's answers (PreRestart) go out stamped with the crash's time
    return run.causal(Crashed.restarting(Behaviors.setup((ActorContext<Command> ctx) -> new VGpu(ctx, settings,
        ledger, peers, run))));
  }

  private VGpu(ActorContext<Command> ctx, Settings settings, VgpuLedger ledger, Peers peers, RunContext run) {
    super(ctx);
    this.run = run;
    this.peers = peers;
    this.model = new VgpuModel(settings, ledger, peers.scheduler()::tell);
    ActorRef<Command> self = ctx.getSelf();
    this.finishedTo = (workId, vgpu, gpuNanos, startedNanos, finishedNanos, failure) -> self.tell(
        new KernelFinished(workId, gpuNanos, finishedNanos, failure));
    Scheduling.VgpuEnd dispatches = m -> self.tell(new FromScheduler(m));
    // a restarted incarnation is still joined: the Join's callback tells this actor's reference, every incarnation's
    if (!ledger.joined) peers.scheduler().tell(new Scheduling.Join(settings.params(), dispatches));
    ledger.joined = true;
  }

  /** The routing table: every request's messages first, each to its handler. */
  @Override public Behavior<Command> onMessage(Command msg) {
    if (msg instanceof Sync m) return queue(m.kernel(), m.vcpu(), m.replyTo(), m.atNanos(), m.call());
    if (msg instanceof FromScheduler m) return onScheduler(m);
    if (msg instanceof KernelFinished m) return onKernelFinished(m);
    if (msg instanceof Launch m) return queue(m.kernel(), m.vcpu(), null, m.atNanos(), m.call());
    if (msg instanceof Present m) return onPresent(m);
    if (msg instanceof Flush m) return onFlush(m);
    if (msg instanceof Transmitted m) return onTransmitted(m);
    if (msg instanceof Drain m) return onDrain(m);
    if (msg instanceof Report m) return onReport(m);
    if (msg instanceof CpuTime m) return onCpuTime(m);
    if (msg instanceof Crash m) return onCrash(m);
    if (msg instanceof Watch m) return onWatch(m);
    return Behaviors.unhandled();
  }

  @Override public Behavior<Command> onSignal(Signal signal) {
    return signal instanceof PreRestart restart ? onPreRestart(restart) : Behaviors.unhandled();
  }

  /** A guest's call, at its own model time or (-1) at the present. */
  private Behavior<Command> queue(KernelSpec kernel, int vcpu, ActorRef<VCpu.Command> syncReply, long atNanos,
      long call) {
    model.call(kernel, vcpu, syncReply, atNanos >= 0 ? atNanos : run.now(), call);
    return Behaviors.same();
  }

  private Behavior<Command> onPresent(Present msg) {
    if (msg.tail() != null) queue(msg.tail(), -1, null, -1, msg.tailCall());
    model.present(msg.replyTo(), msg.atNanos(), msg.call());
    return Behaviors.same();
  }

  private Behavior<Command> onFlush(Flush msg) {
    model.flush(msg.replyTo(), msg.call(), run.now());
    return Behaviors.same();
  }

  private Behavior<Command> onTransmitted(Transmitted msg) { // acknowledged, run once, never before it arrived
    Command call = VgpuFaults.taken(msg, model.ledger, run.now());
    if (call instanceof Launch l) return queue(l.kernel(), l.vcpu(), null, l.atNanos(), l.call());
    if (call instanceof Sync c) return queue(c.kernel(), c.vcpu(), c.replyTo(), c.atNanos(), c.call());
    return call instanceof Flush f ? onFlush(f) : this;
  }

  private Behavior<Command> onScheduler(FromScheduler msg) {
    if (msg.message() instanceof Scheduling.Resync r) { // a restarted scheduler asks (VgpuFaults)
      model.resync(r, run.now());
      return Behaviors.same();
    }
    Scheduling.Dispatch d = (Scheduling.Dispatch) msg.message();
    VgpuRequests.Pending p = model.dispatched(d);
    if (p == null) return Behaviors.same();
    ActorRef<SmGroup.Command> group = d.group() != null ? d.group() : peers.smGroup();
    group.tell(new SmGroup.Execute(p.work().id(), model.vgpu, p.kernel(), finishedTo, d.atNanos(), d.bind()));
    return Behaviors.same();
  }

  private Behavior<Command> onKernelFinished(KernelFinished f) {
    VgpuRequests.Pending p = model.finished(f.workId(), f.gpuNanos(), f.finishedNanos(), f.failure());
    peers.gpuTime().used(f.gpuNanos());
    if (p != null && p.syncReply() != null) p.syncReply().tell(new VCpu.SyncReturned(f.finishedNanos()));
    // a crashed incarnation's request (p null): nobody waits for it but a drain
    if (p == null ? model.idle() : model.roomAt(f.finishedNanos())) {
      while (!drains.isEmpty()) drains.poll().tell(new Drained(model.vgpu));
    }
    return Behaviors.same();
  }

  private Behavior<Command> onPreRestart(PreRestart signal) {
    VgpuFaults.failInFlight(model, model.ledger.downSince, drains);
    return Behaviors.same();
  }

  private Behavior<Command> onCrash(Crash msg) {
    VgpuFaults.crash(model.vgpu, msg, Math.max(run.now(), msg.atNanos()), model.ledger, getContext().getLog());
    throw new Crashed("vGPU " + model.vgpu, msg.fault());
  }

  private Behavior<Command> onWatch(Watch msg) {
    model.ledger.watch(msg.fault(), msg.sinceNanos(), msg.outcomes());
    return Behaviors.same();
  }

  private Behavior<Command> onCpuTime(CpuTime msg) {
    peers.cpuTimes().tell(new VmcgMeter.CpuTime(model.vgpu, msg.cpuNanos()));
    return Behaviors.same();
  }

  private Behavior<Command> onDrain(Drain msg) {
    if (model.idle()) {
      msg.replyTo().tell(new Drained(model.vgpu));
    } else {
      drains.add(msg.replyTo());
    }
    return Behaviors.same();
  }

  private Behavior<Command> onReport(Report msg) {
    msg.replyTo().tell(model.report());
    return Behaviors.same();
  }

}
