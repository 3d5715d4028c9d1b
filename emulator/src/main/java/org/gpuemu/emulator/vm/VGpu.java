package org.gpuemu.emulator.vm;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.gpuemu.emulator.gpu.Scheduling;
import org.gpuemu.emulator.gpu.VmcgMeter;
import org.gpuemu.emulator.gpu.SmGroup;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.faults.Crashed;
import org.gpuemu.emulator.faults.FaultInjector;
import org.gpuemu.emulator.faults.RequestHistory;
import org.gpuemu.policies.gpu.GpuWork;
import org.gpuemu.policies.gpu.VgpuParams;
import org.gpuemu.workloads.KernelSpec;
import org.gpuemu.emulator.vm.VgpuRequests.Blocked;
import org.gpuemu.emulator.vm.VgpuRequests.Pending;
import org.gpuemu.emulator.vm.VgpuRequests.Waiter;

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
 * <p>Faults: {@code vgpu-crash} restarts the actor under supervision and {@code gpu-hang} fails the kernels
 * an engine reset took; what each does and how it recovers: {@link VgpuFaults}.
 */
public final class VGpu extends AbstractBehavior<VGpu.Command> {

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
  public record Present(ActorRef<VCpu.Command> replyTo, KernelSpec tail, long atNanos, long tailCall, long call)
      implements Command {}

  /**
   * {@link VCpu.FlushReturned} once everything recorded so far has completed on the GPU (Direct3D 9's event query
   * polled with {@code D3DGETDATA_FLUSH}: {@link VgpuAnswers}).
   */
  public record Flush(ActorRef<VCpu.Command> replyTo, long call) implements Command {}

  /** A guest's {@code call} (request {@code id}) over a faulty channel, given up at {@code giveUp}: GuestChannel. */
  public record Transmitted(Command call, long id, long giveUp, ActorRef<VCpu.Command> ackTo) implements Command {}

  /** Reply {@link Drained} once nothing of this vGPU is queued or running. */
  public record Drain(ActorRef<Drained> replyTo) implements Command {}

  public record Report(ActorRef<VgpuReport> replyTo) implements Command {}

  /** A vCPU of this VM held its core this long; passed on to the GPU scheduler (VMCG's CPU time). */
  public record CpuTime(long cpuNanos) implements Command {}
  private record FromScheduler(Scheduling.ToVgpu message) implements Command {}
  private record KernelFinished(SmGroup.Finished finished) implements Command {}

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

  private static final long ID_SHIFT = 40;

  private final int vgpu;
  private final int commandBuffer;
  private final int driverQueue;
  private final RunContext run;
  private final ActorRef<Scheduling.Command> scheduler;
  /** Where the vCPUs' CPU time goes (VMCG), or null when the policy does not use it. */
  private final ActorRef<VmcgMeter.CpuTime> cpuTimes;
  private final ActorRef<SmGroup.Command> smGroup;
  private final ActorRef<MetricsHub.Command> metrics;
  private final ActorRef<SmGroup.Finished> finishedAdapter;
  private final Map<Long, Pending> pending = new HashMap<>();
  private final ArrayDeque<Long> runtime = new ArrayDeque<>();
  private final TreeSet<Long> outstanding = new TreeSet<>();
  private final VgpuAnswers answers;
  private final ArrayDeque<ActorRef<Drained>> drains = new ArrayDeque<>();
  private int inDriver;
  /** Counters, failures and a crash's orphans: survive a restart. */
  private final VgpuLedger ledger;
  private final Slicer slicer;
  /** Calls whose earlier part failed, by the id of their last part: the reason they fail with. */
  private final Map<Long, String> failedCalls = new HashMap<>();
  /** Whether the scheduler hears of each Present (space sharing). */
  private final boolean reportFrames;
  private int frameRequests;

  /**
   * {@code measuredUntil}: when the VM's program stops (its figures count GPU work up to then, not the drain);
   * {@code reportFrames}: tell the scheduler of each Present ({@link Scheduling.Presented}, space sharing);
   * {@code cpuTimes}: where the vCPUs' CPU time goes (null: nowhere, the policy does not use it); {@code history}:
   * where the outcome of every call goes, by its id.
   */
  public static Behavior<Command> create(VgpuParams params, int commandBuffer, int driverQueue, long measuredUntil,
      Slicer slicer, boolean reportFrames, RunContext run, ActorRef<Scheduling.Command> scheduler,
      ActorRef<VmcgMeter.CpuTime> cpuTimes, ActorRef<SmGroup.Command> smGroup, ActorRef<MetricsHub.Command> metrics,
      RequestHistory history) {
    VgpuLedger ledger = new VgpuLedger(measuredUntil, history, params.vgpu());
    // the causal inbox outside the supervisor: what it holds and its senders' order survive a restart, and the
    // dying incarnation's answers (PreRestart) go out stamped with the crash's time
    return run.causal(Crashed.restarting(Behaviors.setup((ActorContext<Command> ctx) -> new VGpu(ctx, params,
        commandBuffer, driverQueue, ledger, slicer, reportFrames, run, scheduler, cpuTimes, smGroup, metrics))));
  }

  private VGpu(ActorContext<Command> ctx, VgpuParams params, int commandBuffer, int driverQueue, VgpuLedger ledger,
      Slicer slicer, boolean reportFrames, RunContext run, ActorRef<Scheduling.Command> scheduler,
      ActorRef<VmcgMeter.CpuTime> cpuTimes, ActorRef<SmGroup.Command> smGroup, ActorRef<MetricsHub.Command> metrics) {
    super(ctx);
    this.ledger = ledger;
    this.slicer = slicer;
    this.reportFrames = reportFrames;
    this.vgpu = params.vgpu();
    this.commandBuffer = commandBuffer;
    this.driverQueue = driverQueue;
    this.run = run;
    this.scheduler = scheduler;
    this.cpuTimes = cpuTimes;
    this.smGroup = smGroup;
    this.metrics = metrics;
    this.answers = new VgpuAnswers(commandBuffer, reportFrames, ledger);
    this.finishedAdapter = ctx.messageAdapter(SmGroup.Finished.class, KernelFinished::new);
    var dispatches = ctx.messageAdapter(Scheduling.ToVgpu.class, FromScheduler::new);
    // a restarted incarnation is still joined: the adapters it registers again answer at the same reference
    if (!ledger.joined) scheduler.tell(new Scheduling.Join(params, dispatches));
    ledger.joined = true;
  }

  @Override public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Launch.class, m -> queue(m.kernel(), m.vcpu(), null, m.atNanos(), m.call()))
        .onMessage(Sync.class, m -> queue(m.kernel(), m.vcpu(), m.replyTo(), m.atNanos(), m.call()))
        .onMessage(Present.class, this::onPresent)
        .onMessage(Flush.class, this::onFlush)
        .onMessage(Transmitted.class, this::onTransmitted)
        .onMessage(FromScheduler.class, this::onScheduler)
        .onMessage(KernelFinished.class, this::onKernelFinished)
        .onMessage(Drain.class, this::onDrain)
        .onMessage(Report.class, this::onReport)
        .onMessage(CpuTime.class, this::onCpuTime)
        .onMessage(Crash.class, this::onCrash)
        .onMessage(Watch.class, this::onWatch)
        .onSignal(PreRestart.class, sig -> {
          VgpuFaults.failInFlight(vgpu, ledger.downSince, pending, runtime, answers, drains, ledger, scheduler,
              frameRequests, reportFrames);
          return Behaviors.same();
        })
        .build();
  }

  /**
   * A guest's call: one request, or one per sub-kernel when the policy slices it. Sub-kernels are separate requests
   * to the scheduler and the GPU (each fills a place in the driver's buffer); the guest's call completes, answers a
   * synchronous caller and counts as one kernel when its last part completes.
   */
  private Behavior<Command> queue(KernelSpec kernel, int vcpu, ActorRef<VCpu.Command> syncReply, long atNanos,
      long call) {
    long queuedAt = atNanos >= 0 ? atNanos : run.now();
    ledger.submitted++;
    if (queuedAt < ledger.downUntil) { // crashed, not back: fails now, or at the crash if issued before it (in flight)
      long failedAt = Math.max(queuedAt, ledger.downSince);
      ledger.failed(call, ledger.downReason, failedAt);
      if (syncReply != null) syncReply.tell(new VCpu.SyncReturned(failedAt));
      return Behaviors.same();
    }
    List<KernelSpec> parts = slicer.parts(kernel);
    for (int i = 0; i < parts.size(); i++) {
      boolean last = i == parts.size() - 1;
      KernelSpec part = parts.get(i);
      long id = ((long) vgpu << ID_SHIFT) | ledger.seq++;
      GpuWork work = new GpuWork(id, vgpu, part.soloNanos(), queuedAt, last && syncReply != null);
      pending.put(id, new Pending(work, part, vcpu, last ? syncReply : null, last, ledger.frame, call));
      frameRequests++;
      outstanding.add(id);
      runtime.add(id);
    }
    handToDriver(queuedAt);
    return Behaviors.same();
  }

  /**
   * Moves requests from the runtime's queue into the driver's buffer while it has room for this guest; {@code at}
   * is the model time room appeared (a completion), a request never going in before it was recorded.
   */
  private void handToDriver(long at) {
    while (!runtime.isEmpty() && inDriver < driverQueue) {
      inDriver++;
      Pending p = pending.get(runtime.poll());
      scheduler.tell(new Scheduling.Queued(p.work(), p.vcpu(), Math.max(at, p.work().queuedNanos()), p.kernel(),
          p.frame()));
    }
    answers.release(at, runtime.peek(), outstanding);
  }

  private Behavior<Command> onPresent(Present msg) {
    if (msg.tail() != null) queue(msg.tail(), -1, null, -1, msg.tailCall());
    if (reportFrames) scheduler.tell(new Scheduling.Presented(vgpu, ledger.frame, frameRequests));
    ledger.frame++;
    frameRequests = 0;
    ledger.submitted++;
    answers.present(new Blocked(msg.replyTo(), msg.atNanos(), msg.call()), outstanding);
    answers.release(msg.atNanos(), runtime.peek(), outstanding);
    return Behaviors.same();
  }

  private Behavior<Command> onFlush(Flush msg) {
    ledger.submitted++;
    long upTo = ((long) vgpu << ID_SHIFT) | (ledger.seq - 1);
    answers.flush(new Waiter(upTo, msg.replyTo(), msg.call()));
    answers.release(run.now(), runtime.peek(), outstanding);
    return Behaviors.same();
  }

  private Behavior<Command> onTransmitted(Transmitted msg) { // acknowledged, run once, never before it arrived
    Command call = VgpuFaults.taken(msg, ledger, run.now());
    if (call instanceof Launch l) return queue(l.kernel(), l.vcpu(), null, l.atNanos(), l.call());
    if (call instanceof Sync c) return queue(c.kernel(), c.vcpu(), c.replyTo(), c.atNanos(), c.call());
    return call instanceof Flush f ? onFlush(f) : this;
  }

  private Behavior<Command> onScheduler(FromScheduler msg) {
    if (msg.message() instanceof Scheduling.Resync r) { // a restarted scheduler asks (VgpuFaults)
      ledger.schedulerEpoch = Math.max(ledger.schedulerEpoch, r.epoch());
      scheduler.tell(VgpuFaults.resynced(vgpu, run.now(), pending, runtime, ledger));
      return Behaviors.same();
    }
    Scheduling.Dispatch d = (Scheduling.Dispatch) msg.message();
    // a dead scheduler incarnation's dispatch (the new one dispatches it again), or one already on the GPU: dropped
    if (d.epoch() < ledger.schedulerEpoch || ledger.dispatched.containsKey(d.work().id())) return Behaviors.same();
    if (ledger.orphans.remove(d.work().id()) != null) { // a crashed incarnation's: nobody waits for it
      scheduler.tell(new Scheduling.Completed(d.work(), 0, d.atNanos(), d.epoch()));
      return Behaviors.same();
    }
    ledger.dispatched.put(d.work().id(), d.epoch());
    Pending p = pending.get(d.work().id());
    ActorRef<SmGroup.Command> group = d.group() != null ? d.group() : smGroup;
    group.tell(new SmGroup.Execute(p.work().id(), vgpu, p.kernel(), finishedAdapter, d.atNanos(), d.bind()));
    return Behaviors.same();
  }

  private Behavior<Command> onKernelFinished(KernelFinished msg) {
    SmGroup.Finished f = msg.finished();
    Long epoch = ledger.dispatched.remove(f.workId());
    long by = epoch == null ? 0 : epoch;
    GpuWork orphan = ledger.orphans.remove(f.workId());
    if (orphan != null) { // a crashed incarnation's: its GPU time counts, nobody waits for it
      ledger.gpuUsed(f.gpuNanos(), f.finishedNanos(), false);
      scheduler.tell(new Scheduling.Completed(orphan, f.gpuNanos(), f.finishedNanos(), by));
      metrics.tell(new MetricsHub.GpuUsed(vgpu, f.gpuNanos()));
      return Behaviors.same();
    }
    Pending p = pending.remove(f.workId());
    outstanding.remove(f.workId());
    String failure = f.failure() != null ? f.failure() : failedCalls.isEmpty() ? null : failedCalls.remove(f.workId());
    if (p.last() && failure != null) {
      ledger.failed(p.call(), failure, f.finishedNanos());
    } else if (p.last()) {
      ledger.kernelCompleted(p.call(), f.finishedNanos());
    } else if (failure != null) {
      failedCalls.put(VgpuFaults.lastPartOf(pending, f.workId()), failure);
    }
    ledger.gpuUsed(f.gpuNanos(), f.finishedNanos(), p.last() && failure == null);
    scheduler.tell(new Scheduling.Completed(p.work(), f.gpuNanos(), f.finishedNanos(), by));
    metrics.tell(new MetricsHub.GpuUsed(vgpu, f.gpuNanos()));
    if (p.syncReply() != null) p.syncReply().tell(new VCpu.SyncReturned(f.finishedNanos()));
    inDriver--;
    handToDriver(f.finishedNanos());
    if (outstanding.isEmpty()) {
      while (!drains.isEmpty()) drains.poll().tell(new Drained(vgpu));
    }
    return Behaviors.same();
  }

  private Behavior<Command> onCrash(Crash msg) {
    VgpuFaults.crash(vgpu, msg, Math.max(run.now(), msg.atNanos()), ledger, getContext().getLog());
    throw new Crashed("vGPU " + vgpu, msg.fault());
  }

  private Behavior<Command> onWatch(Watch msg) {
    ledger.watch(msg.fault(), msg.sinceNanos(), msg.outcomes());
    return Behaviors.same();
  }

  private Behavior<Command> onCpuTime(CpuTime msg) {
    cpuTimes.tell(new VmcgMeter.CpuTime(vgpu, msg.cpuNanos()));
    return Behaviors.same();
  }

  private Behavior<Command> onDrain(Drain msg) {
    if (outstanding.isEmpty()) {
      msg.replyTo().tell(new Drained(vgpu));
    } else {
      drains.add(msg.replyTo());
    }
    return Behaviors.same();
  }

  private Behavior<Command> onReport(Report msg) {
    long open = outstanding.size() + answers.open();
    msg.replyTo().tell(ledger.report(vgpu, open));
    return Behaviors.same();
  }

}
