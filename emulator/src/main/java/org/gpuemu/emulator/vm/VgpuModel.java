package org.gpuemu.emulator.vm;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.gpuemu.emulator.gpu.Scheduling;
import org.gpuemu.emulator.gpu.SmGroup;
import org.gpuemu.policies.gpu.GpuWork;
import org.gpuemu.workloads.KernelSpec;
import org.gpuemu.emulator.vm.VgpuRequests.Blocked;
import org.gpuemu.emulator.vm.VgpuRequests.Pending;
import org.gpuemu.emulator.vm.VgpuRequests.Waiter;

/**
 * What a {@link VGpu} computes, without an actor: the request ring of vgris.txt §2.2 (the runtime's queue, the
 * driver's command buffer of {@code driverQueue} requests, the frames in flight that block Present), slicing a call
 * into parts, and the accounting of every part's end. Events in (a guest's call, a dispatch, a kernel's end), messages
 * to the GPU scheduler out through {@code toScheduler} in the order the actor sends them; the guests' answers go to
 * the references their calls carried ({@link VgpuAnswers}). No clock: every method is given the model time it acts
 * at. State of one incarnation; the {@link VgpuLedger} survives a restart.
 */
final class VgpuModel {
  private static final long ID_SHIFT = 40;

  final int vgpu;
  private final int driverQueue;
  private final Slicer slicer;
  /** Whether the scheduler hears of each Present (space sharing). */
  final boolean reportFrames;
  final VgpuLedger ledger;
  final VgpuAnswers answers;
  private final Consumer<Scheduling.Command> toScheduler;
  /** The requests recorded and not finished: in the runtime's queue, in the driver's buffer or on the GPU. */
  final PendingRequests pending = new PendingRequests();
  /**
   * The oldest request in the runtime's queue: the queue holds the pending ids from it on (requests are recorded in
   * id order and handed on in the same order, and none finishes before it is handed on).
   */
  private long runtimeHead;
  /** Calls whose earlier part failed, by the id of their last part: the reason they fail with. */
  private final Map<Long, String> failedCalls = new HashMap<>();
  private int inDriver;
  /** The record of the request finished last, which the next one recorded fills again ({@link #finished}). */
  private Pending spare;
  /** Requests of the frame the guest is recording. */
  int frameRequests;

  VgpuModel(VGpu.Settings settings, VgpuLedger ledger, Consumer<Scheduling.Command> toScheduler) {
    this.vgpu = settings.params().vgpu();
    this.driverQueue = settings.driverQueue();
    this.slicer = settings.slicer();
    this.reportFrames = settings.reportFrames();
    this.ledger = ledger;
    this.answers = new VgpuAnswers(settings.commandBuffer(), reportFrames, ledger);
    this.toScheduler = toScheduler;
    this.runtimeHead = ((long) vgpu << ID_SHIFT) | ledger.seq;
  }

  /**
   * A guest's call recorded at {@code queuedAt}: one request, or one per sub-kernel when the policy slices it.
   * Sub-kernels are separate requests to the scheduler and the GPU (each fills a place in the driver's buffer); the
   * guest's call completes, answers a synchronous caller and counts as one kernel when its last part completes.
   */
  void call(KernelSpec kernel, int vcpu, ActorRef<VCpu.Command> syncReply, long queuedAt, long call) {
    ledger.submitted++;
    if (queuedAt < ledger.downUntil) { // crashed, not back: fails now, or at the crash if issued before it (in flight)
      long failedAt = Math.max(queuedAt, ledger.downSince);
      ledger.failed(call, ledger.downReason, failedAt);
      if (syncReply != null) syncReply.tell(new VCpu.SyncReturned(failedAt));
      return;
    }
    List<KernelSpec> parts = slicer.parts(kernel);
    for (int i = 0; i < parts.size(); i++) {
      boolean last = i == parts.size() - 1;
      KernelSpec part = parts.get(i);
      long id = ((long) vgpu << ID_SHIFT) | ledger.seq++;
      GpuWork work = new GpuWork(id, vgpu, part.soloNanos(), queuedAt, last && syncReply != null);
      ActorRef<VCpu.Command> reply = last ? syncReply : null;
      pending.add(id, (spare == null ? new Pending() : spare).fill(work, part, vcpu, reply, last, ledger.frame, call));
      spare = null;
      frameRequests++;
    }
    handToDriver(queuedAt);
  }

  /**
   * Moves requests from the runtime's queue into the driver's buffer while it has room for this guest; {@code at}
   * is the model time room appeared (a completion), a request never going in before it was recorded.
   */
  private void handToDriver(long at) {
    while (!runtimeEmpty() && inDriver < driverQueue) {
      inDriver++;
      Pending p = pending.get(runtimeHead++);
      toScheduler.accept(new Scheduling.Queued(p.work(), p.vcpu(), Math.max(at, p.work().queuedNanos()), p.kernel(),
          p.frame()));
    }
    answers.release(at, runtimeEmpty(), pending.oldestId());
  }

  /** Whether the runtime's queue is empty. */
  private boolean runtimeEmpty() {
    return runtimeHead > pending.newestId();
  }

  /** Whether pending request {@code id} is still in the runtime's queue (not handed to the driver). */
  boolean inRuntime(long id) {
    return id >= runtimeHead;
  }

  /** End of frame (its tail already {@link #call called}): blocks {@code replyTo} until the frame is handed on. */
  void present(VGpu.AnswerTo replyTo, long atNanos, long call) {
    if (reportFrames) toScheduler.accept(new Scheduling.Presented(vgpu, ledger.frame, frameRequests));
    ledger.frame++;
    frameRequests = 0;
    ledger.submitted++;
    answers.present(new Blocked(replyTo, atNanos, call), pending.newestId());
    answers.release(atNanos, runtimeEmpty(), pending.oldestId());
  }

  /** A Flush at {@code now}: answered once every request recorded so far has completed. */
  void flush(VGpu.AnswerTo replyTo, long call, long now) {
    ledger.submitted++;
    long upTo = ((long) vgpu << ID_SHIFT) | (ledger.seq - 1);
    answers.flush(new Waiter(upTo, replyTo, call));
    answers.release(now, runtimeEmpty(), pending.oldestId());
  }

  /** A restarted scheduler's question at {@code now}: what was handed to it and what runs ({@link VgpuFaults}). */
  void resync(Scheduling.Resync r, long now) {
    ledger.schedulerEpoch = Math.max(ledger.schedulerEpoch, r.epoch());
    toScheduler.accept(VgpuFaults.resynced(this, now));
  }

  /**
   * A dispatch: the part to run on the GPU, or null when there is none to run — a dead scheduler incarnation's
   * dispatch (the new one dispatches it again), one already on the GPU, or a crashed incarnation's request, which
   * completes at once, unrun, since nobody waits for it.
   */
  Pending dispatched(Scheduling.Dispatch d) {
    if (d.epoch() < ledger.schedulerEpoch || ledger.dispatched.containsKey(d.work().id())) return null;
    if (!ledger.orphans.isEmpty() && ledger.orphans.remove(d.work().id()) != null) {
      toScheduler.accept(new Scheduling.Completed(d.work(), 0, d.atNanos(), d.epoch()));
      return null;
    }
    ledger.dispatched.put(d.work().id(), d.epoch());
    return pending.get(d.work().id());
  }

  /**
   * A part's end on the GPU: its GPU time accounted, its call completed or failed (a call sliced into parts fails as
   * a whole), the scheduler told. Returns the part, or null for a crashed incarnation's request (its GPU time counts,
   * nobody waits for it); then {@link #roomAt} hands on what waits for its place. The part returned is read at once:
   * the next request {@link #call recorded} fills it again.
   */
  Pending finished(SmGroup.Finished f) {
    return finished(f.workId(), f.gpuNanos(), f.finishedNanos(), f.failure());
  }

  /** {@link #finished(SmGroup.Finished)} from its fields: part {@code workId} ended at {@code finishedNanos}. */
  Pending finished(long workId, long gpuNanos, long finishedNanos, String failed) {
    long by = ledger.dispatched.remove(workId, 0);
    GpuWork orphan = ledger.orphans.isEmpty() ? null : ledger.orphans.remove(workId);
    if (orphan != null) {
      ledger.gpuUsed(gpuNanos, finishedNanos, false);
      toScheduler.accept(new Scheduling.Completed(orphan, gpuNanos, finishedNanos, by));
      return null;
    }
    Pending p = pending.remove(workId);
    String failure = failed != null ? failed : failedCalls.isEmpty() ? null : failedCalls.remove(workId);
    if (p.last() && failure != null) {
      ledger.failed(p.call(), failure, finishedNanos);
    } else if (p.last()) {
      ledger.kernelCompleted(p.call(), finishedNanos);
    } else if (failure != null) {
      failedCalls.put(VgpuFaults.lastPartOf(pending, workId), failure);
    }
    ledger.gpuUsed(gpuNanos, finishedNanos, p.last() && failure == null);
    toScheduler.accept(new Scheduling.Completed(p.work(), gpuNanos, finishedNanos, by));
    spare = p;
    return p;
  }

  /** A finished part left the driver's buffer at {@code at}: what waited goes in; true when the vGPU is {@link #idle}. */
  boolean roomAt(long at) {
    inDriver--;
    handToDriver(at);
    return idle();
  }

  /** Where the messages to the GPU scheduler go. */
  Consumer<Scheduling.Command> toScheduler() {
    return toScheduler;
  }

  /**
   * Whether nothing of this vGPU is queued or running, a crashed incarnation's requests still on the GPU included:
   * nobody waits for them, but the SM group counts their time as busy, and their vGPU accounts it only when they
   * end (a hung one at the watchdog's reset), so a drain that did not wait for them would end the run short of it.
   */
  boolean idle() {
    if (!pending.isEmpty()) return false;
    if (ledger.orphans.isEmpty()) return true;
    for (Long orphan : ledger.orphans.keySet()) {
      if (ledger.dispatched.containsKey(orphan)) return false;
    }
    return true;
  }

  /** The final figures, with the calls still open. */
  VGpu.VgpuReport report() {
    return ledger.report(vgpu, pending.size() + answers.open());
  }
}
