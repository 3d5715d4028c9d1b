package org.gpuemu.emulator.vm;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.gpuemu.emulator.gpu.Scheduling;
import org.gpuemu.emulator.gpu.VmcgMeter;
import org.gpuemu.emulator.gpu.SmGroup;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.policies.gpu.GpuWork;
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
 * makes Present expensive under contention, Figure 6, and what {@code Flush} does ahead of it) and no more than
 * {@code commandBuffer} frames are unfinished.
 */
public final class VGpu extends AbstractBehavior<VGpu.Command> {

  public sealed interface Command {}

  /**
   * Asynchronous launch from vCPU {@code vcpu} (-1: untagged) at emulated time {@code atNanos} (-1: on arrival):
   * the guest does not wait.
   */
  public record Launch(KernelSpec kernel, int vcpu, long atNanos) implements Command {}

  /** Synchronous call from {@code vcpu}: {@code replyTo} gets {@link VCpu.SyncReturned} when it has completed. */
  public record Sync(KernelSpec kernel, int vcpu, ActorRef<VCpu.Command> replyTo, long atNanos) implements Command {}

  /**
   * End of frame, submitting {@code tail} (null: nothing) first: {@link VCpu.PresentReturned} once the frame is
   * in the driver's buffer and the buffer has room.
   */
  public record Present(ActorRef<VCpu.Command> replyTo, KernelSpec tail, long atNanos) implements Command {
    public Present(ActorRef<VCpu.Command> replyTo, KernelSpec tail) {
      this(replyTo, tail, -1);
    }
  }

  /** A blocked Present: who waits and the model time it was issued (-1: untimed). */
  private record Blocked(ActorRef<VCpu.Command> replyTo, long atNanos) {}

  /** {@link VCpu.FlushReturned} once everything recorded so far has been handed to the driver. */
  public record Flush(ActorRef<VCpu.Command> replyTo) implements Command {}

  /** Reply {@link Drained} once nothing of this vGPU is queued or running. */
  public record Drain(ActorRef<Drained> replyTo) implements Command {}

  public record Report(ActorRef<VgpuReport> replyTo) implements Command {}

  /** A vCPU of this VM held its core this long; passed on to the GPU scheduler (VMCG's CPU time). */
  public record CpuTime(long cpuNanos) implements Command {}

  private record Dispatched(Scheduling.Dispatch dispatch) implements Command {}

  private record KernelFinished(SmGroup.Finished finished) implements Command {}

  public record Drained(int vgpu) {}

  /** Final figures of this vGPU; requests are GPU calls (launch, sync, present, flush). */
  public record VgpuReport(int vgpu, long submitted, long completed, long failed, long outstanding,
      long kernelsCompleted, long gpuBusyNanos, long kernelsInRun, long gpuBusyInRunNanos) {}

  private static final long ID_SHIFT = 40;

  /**
   * What the host backend queues for a kernel a guest launches: the kernel itself, or the sub-kernels a policy that
   * slices long kernels runs in its place (FairGV's kernel slicing, fairgv.txt §3.3.2). Must be immutable.
   */
  @FunctionalInterface
  public interface Slicer {
    Slicer NONE = List::of;

    List<KernelSpec> parts(KernelSpec kernel);
  }

  /**
   * {@code last}: the request's last (or only) part, whose completion completes the guest's call; {@code frame}:
   * the frame the guest was recording.
   */
  private record Pending(GpuWork work, KernelSpec kernel, int vcpu, ActorRef<VCpu.Command> syncReply,
      boolean last, long frame) {}

  private record Waiter(long upToId, ActorRef<VCpu.Command> replyTo) {}

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
  private final ArrayDeque<Long> framesInFlight = new ArrayDeque<>();
  private final ArrayDeque<Blocked> blockedPresents = new ArrayDeque<>();
  private final ArrayDeque<Waiter> flushes = new ArrayDeque<>();
  private final ArrayDeque<ActorRef<Drained>> drains = new ArrayDeque<>();
  private int inDriver;
  private long seq;
  private long submitted;
  private long completed;
  private long kernels;
  private long busy;
  /** When the VM's program stops: kernels finished later belong to the drain, not to the measured run. */
  private final long measuredUntil;
  private final Slicer slicer;
  private long kernelsInRun;
  private long busyInRun;
  /** Whether the scheduler hears of each Present (space sharing). */
  private final boolean reportFrames;
  /** Frames presented so far: the frame the guest is recording. */
  private long frame;
  private int frameRequests;

  /**
   * {@code measuredUntil}: when the VM's program stops (its figures count GPU work up to then, not the drain);
   * {@code reportFrames}: tell the scheduler of each Present ({@link Scheduling.Presented}, space sharing);
   * {@code cpuTimes}: where the vCPUs' CPU time goes (null: nowhere, the policy does not use it).
   */
  public static Behavior<Command> create(VgpuParams params, int commandBuffer, int driverQueue, long measuredUntil,
      Slicer slicer, boolean reportFrames, RunContext run, ActorRef<Scheduling.Command> scheduler,
      ActorRef<VmcgMeter.CpuTime> cpuTimes, ActorRef<SmGroup.Command> smGroup, ActorRef<MetricsHub.Command> metrics) {
    return Behaviors.setup(ctx -> run.causal(new VGpu(ctx, params, commandBuffer, driverQueue, measuredUntil, slicer,
        reportFrames, run, scheduler, cpuTimes, smGroup, metrics)));
  }

  private VGpu(ActorContext<Command> ctx, VgpuParams params, int commandBuffer, int driverQueue, long measuredUntil,
      Slicer slicer, boolean reportFrames, RunContext run, ActorRef<Scheduling.Command> scheduler,
      ActorRef<VmcgMeter.CpuTime> cpuTimes, ActorRef<SmGroup.Command> smGroup, ActorRef<MetricsHub.Command> metrics) {
    super(ctx);
    this.measuredUntil = measuredUntil;
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
    this.finishedAdapter = ctx.messageAdapter(SmGroup.Finished.class, KernelFinished::new);
    scheduler.tell(new Scheduling.Join(params, ctx.messageAdapter(Scheduling.Dispatch.class, Dispatched::new)));
  }

  @Override public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Launch.class, m -> queue(m.kernel(), m.vcpu(), null, m.atNanos()))
        .onMessage(Sync.class, m -> queue(m.kernel(), m.vcpu(), m.replyTo(), m.atNanos()))
        .onMessage(Present.class, this::onPresent)
        .onMessage(Flush.class, this::onFlush)
        .onMessage(Dispatched.class, this::onDispatched)
        .onMessage(KernelFinished.class, this::onKernelFinished)
        .onMessage(Drain.class, this::onDrain)
        .onMessage(Report.class, this::onReport)
        .onMessage(CpuTime.class, this::onCpuTime)
        .build();
  }

  /**
   * A guest's call: one request, or one per sub-kernel when the policy slices it. Sub-kernels are separate requests
   * to the scheduler and the GPU (each fills a place in the driver's buffer); the guest's call completes, answers a
   * synchronous caller and counts as one kernel when its last part completes.
   */
  private Behavior<Command> queue(KernelSpec kernel, int vcpu, ActorRef<VCpu.Command> syncReply, long atNanos) {
    long queuedAt = atNanos >= 0 ? atNanos : run.now();
    submitted++;
    List<KernelSpec> parts = slicer.parts(kernel);
    for (int i = 0; i < parts.size(); i++) {
      boolean last = i == parts.size() - 1;
      KernelSpec part = parts.get(i);
      long id = ((long) vgpu << ID_SHIFT) | seq++;
      GpuWork work = new GpuWork(id, vgpu, part.soloNanos(), queuedAt, last && syncReply != null);
      pending.put(id, new Pending(work, part, vcpu, last ? syncReply : null, last, frame));
      frameRequests++;
      outstanding.add(id);
      runtime.add(id);
    }
    handToDriver(queuedAt);
    return this;
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
    releaseFlushes();
    releasePresents(at);
  }

  private Behavior<Command> onPresent(Present msg) {
    if (msg.tail() != null) queue(msg.tail(), -1, null, -1);
    if (reportFrames) scheduler.tell(new Scheduling.Presented(vgpu, frame, frameRequests));
    frame++;
    frameRequests = 0;
    submitted++;
    if (!outstanding.isEmpty()) framesInFlight.add(outstanding.last());
    blockedPresents.add(new Blocked(msg.replyTo(), msg.atNanos()));
    releasePresents(msg.atNanos());
    return this;
  }

  /** Answers blocked Presents once the runtime has handed everything on and few enough frames are unfinished. */
  private void releasePresents(long at) {
    while (!framesInFlight.isEmpty() && (outstanding.isEmpty() || outstanding.first() > framesInFlight.peek())) {
      framesInFlight.poll();
    }
    while (!blockedPresents.isEmpty() && runtime.isEmpty()
        && framesInFlight.size() - (blockedPresents.size() - 1) <= commandBuffer) {
      completed++;
      Blocked b = blockedPresents.poll();
      // answered at the model time of the event that released it, never before it was issued. Space sharing only
      // for now: the other papers' figures were measured with wall-clock answers and would need re-measuring
      b.replyTo().tell(b.atNanos() < 0 || !reportFrames ? VCpu.PresentReturned.UNTIMED
          : new VCpu.PresentReturned(Math.max(b.atNanos(), at)));
    }
  }

  private Behavior<Command> onFlush(Flush msg) {
    submitted++;
    long upTo = ((long) vgpu << ID_SHIFT) | (seq - 1);
    flushes.add(new Waiter(upTo, msg.replyTo()));
    releaseFlushes();
    return this;
  }

  private Behavior<Command> onDispatched(Dispatched msg) {
    Scheduling.Dispatch d = msg.dispatch();
    Pending p = pending.get(d.work().id());
    ActorRef<SmGroup.Command> group = d.group() != null ? d.group() : smGroup;
    group.tell(new SmGroup.Execute(p.work().id(), vgpu, p.kernel(), finishedAdapter, d.atNanos(), d.bind()));
    return this;
  }

  private Behavior<Command> onKernelFinished(KernelFinished msg) {
    SmGroup.Finished f = msg.finished();
    Pending p = pending.remove(f.workId());
    outstanding.remove(f.workId());
    if (p.last()) {
      completed++;
      kernels++;
    }
    busy += f.gpuNanos();
    if (f.finishedNanos() <= measuredUntil) {
      if (p.last()) kernelsInRun++;
      busyInRun += f.gpuNanos();
    } else {
      busyInRun += Math.max(0, f.gpuNanos() - (f.finishedNanos() - measuredUntil));
    }
    scheduler.tell(new Scheduling.Completed(p.work(), f.gpuNanos(), f.finishedNanos()));
    metrics.tell(new MetricsHub.GpuUsed(vgpu, f.gpuNanos()));
    if (p.syncReply() != null) p.syncReply().tell(new VCpu.SyncReturned(f.finishedNanos()));
    inDriver--;
    handToDriver(f.finishedNanos());
    if (outstanding.isEmpty()) {
      while (!drains.isEmpty()) drains.poll().tell(new Drained(vgpu));
    }
    return this;
  }

  private Behavior<Command> onCpuTime(CpuTime msg) {
    cpuTimes.tell(new VmcgMeter.CpuTime(vgpu, msg.cpuNanos()));
    return this;
  }

  private Behavior<Command> onDrain(Drain msg) {
    if (outstanding.isEmpty()) {
      msg.replyTo().tell(new Drained(vgpu));
    } else {
      drains.add(msg.replyTo());
    }
    return this;
  }

  private Behavior<Command> onReport(Report msg) {
    long open = outstanding.size() + blockedPresents.size() + flushes.size();
    msg.replyTo().tell(new VgpuReport(vgpu, submitted, completed, 0, open, kernels, busy, kernelsInRun,
        busyInRun));
    return this;
  }

  private void releaseFlushes() {
    while (!flushes.isEmpty() && (runtime.isEmpty() || runtime.peek() > flushes.peek().upToId())) {
      completed++;
      flushes.poll().replyTo().tell(VCpu.FlushReturned.INSTANCE);
    }
  }
}
