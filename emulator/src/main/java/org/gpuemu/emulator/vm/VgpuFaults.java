package org.gpuemu.emulator.vm;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.gpuemu.emulator.faults.FaultInjector;
import org.gpuemu.emulator.gpu.Scheduling;
import org.gpuemu.policies.gpu.GpuWork;
import org.slf4j.Logger;

/**
 * What faults do to a {@link VGpu}, kept beside the actor.
 *
 * <p>{@code vgpu-crash} ({@link VGpu.Crash}). Effect: the actor fails ({@code faults.Crashed}) and its supervisor
 * restarts it ({@code Crashed.restarting}). The dying incarnation, on Pekko's {@code PreRestart} signal, fails every
 * guest call in flight with reason {@code vgpu-crashed} and answers the vCPUs blocked on one ({@link #failInFlight}),
 * so nothing is dropped silently; the requests it had handed to the GPU scheduler or the GPU become orphans, which the
 * next incarnation lets finish (their GPU time accounted, the scheduler told, so the policy's in-flight count stays
 * right) without answering anyone. Recovery: the new incarnation starts with an empty ring and the same
 * {@link VgpuLedger} (counters, request ids, frame count); for the fault's {@code heal-after} (default 0) the guest's
 * new kernel calls fail at once, then it serves them as before.
 *
 * <p>{@code vm-reboot}: the same restart with reason {@code vm-crashed}: the VM's device is reset with the VM; its
 * vCPUs are down meanwhile (VCpu), so no new call comes before the reboot.
 *
 * <p>{@code gpu-hang}, {@code smgroup-crash}: the kernels an engine reset took come back as {@code SmGroup.Finished}
 * with their reason ({@code gpu-reset}, {@code smgroup-crashed}); their calls fail, a call sliced into parts fails as
 * a whole ({@link #lastPartOf}); the VM goes on with its next calls.
 *
 * <p>{@code gpu-scheduler-crash}: the restarted scheduler asks ({@link Scheduling.Resync}); the vGPU answers with
 * what it handed to the driver and no dispatch reached yet, and what runs on the GPU ({@link #resynced}), and from
 * then on drops dispatches of the scheduler's older incarnations (stale: the new one dispatches those again), so no
 * request runs twice.
 *
 * <p>{@code message-delay}, {@code message-duplicate}, {@code message-loss} ({@link GuestChannel}): over a channel a
 * message fault targets, the vGPU acknowledges every copy of a call on arrival and takes a request once
 * ({@link #taken}): the guest's timeout sends it again, a fault may deliver it twice, and neither may run it twice.
 */
final class VgpuFaults {
  private VgpuFaults() {}

  /** Records the crash at {@code at} in the ledger (down until when, the recovery to watch) and returns {@code at}. */
  static long crash(int vgpu, VGpu.Crash msg, long at, VgpuLedger ledger, Logger log) {
    ledger.downSince = at;
    ledger.downUntil = at + msg.downNanos();
    ledger.downReason = msg.reason();
    ledger.watch(msg.fault(), ledger.downUntil, msg.outcomes());
    msg.outcomes().tell(new FaultInjector.Healed(msg.fault(), ledger.downUntil));
    log.warn("vGPU {} crashes at {} s (fault {}, {}); supervision restarts it", vgpu, at / 1e9, msg.fault(),
        msg.reason());
    return at;
  }

  /**
   * The dying incarnation's last act: every call in flight fails at {@code at}, its guest answered. Its requests all
   * become orphans, those still in the runtime's queue too: they are handed to the scheduler now, so that its
   * bookkeeping stays whole (a space-shared scheduler counts a frame's kernels), and each completes at once, unrun,
   * when dispatched. Under space sharing the frame being recorded is closed ({@code Presented} with the requests it
   * has): the next incarnation's frames are new ones.
   */
  static void failInFlight(VgpuModel model, long at, Collection<ActorRef<VGpu.Drained>> drains) {
    VgpuLedger ledger = model.ledger;
    VgpuAnswers answers = model.answers;
    PendingRequests pending = model.pending;
    int vgpu = model.vgpu;
    Consumer<Scheduling.Command> scheduler = model.toScheduler();
    String reason = ledger.downReason;
    for (int i = 0; i < pending.size(); i++) { // the runtime's queue, in its order
      VgpuRequests.Pending p = pending.at(i);
      if (model.inRuntime(pending.idAt(i))) {
        scheduler.accept(new Scheduling.Queued(p.work(), p.vcpu(), at, p.kernel(), p.frame()));
      }
    }
    if (model.reportFrames && model.frameRequests > 0) {
      scheduler.accept(new Scheduling.Presented(vgpu, ledger.frame, model.frameRequests));
      ledger.frame++;
    }
    for (int i = 0; i < pending.size(); i++) {
      VgpuRequests.Pending p = pending.at(i);
      ledger.orphans.put(pending.idAt(i), p.work());
      if (!p.last()) continue;
      ledger.failed(p.call(), reason, at);
      if (p.syncReply() != null) p.syncReply().tell(new VCpu.SyncReturned(at));
    }
    for (VgpuRequests.Blocked b : answers.presents) {
      ledger.failed(b.call(), reason, at);
      b.replyTo().answer(new VCpu.PresentReturned(b.atNanos() < 0 ? -1 : at, reason));
    }
    for (VgpuRequests.Waiter w : answers.flushes) {
      ledger.failed(w.call(), reason, at);
      w.replyTo().answer(VCpu.FlushReturned.INSTANCE);
    }
    for (ActorRef<VGpu.Drained> d : drains) d.tell(new VGpu.Drained(vgpu));
  }

  /**
   * The answer to a restarted scheduler: every request handed to the driver (not in the runtime's queue) that is not
   * on the GPU, in the order it was handed (ids count up), as queued at {@code at}; and every request on the GPU.
   */
  static Scheduling.Resynced resynced(VgpuModel model, long at) {
    VgpuLedger ledger = model.ledger;
    PendingRequests pending = model.pending;
    List<Scheduling.Queued> queued = new ArrayList<>();
    List<GpuWork> running = new ArrayList<>();
    TreeMap<Long, GpuWork> handed = new TreeMap<>(ledger.orphans);
    for (int i = 0; i < pending.size(); i++) {
      if (!model.inRuntime(pending.idAt(i))) handed.put(pending.idAt(i), pending.at(i).work());
    }
    for (Map.Entry<Long, GpuWork> e : handed.entrySet()) {
      if (ledger.dispatched.containsKey(e.getKey())) {
        running.add(e.getValue());
        continue;
      }
      VgpuRequests.Pending p = pending.get(e.getKey());
      queued.add(p == null ? new Scheduling.Queued(e.getValue(), -1, at)
          : new Scheduling.Queued(p.work(), p.vcpu(), Math.max(at, p.work().queuedNanos()), p.kernel(), p.frame()));
    }
    return new Scheduling.Resynced(model.vgpu, queued, running);
  }

  /**
   * A copy of a call over a faulty channel arriving at {@code now}: acknowledged, and returned to be queued, with its
   * time no earlier than its arrival, unless it is a second copy (null) or came after its guest gave up on it (null,
   * unacknowledged: the guest has failed that request, and running it would settle it twice).
   */
  static VGpu.Command taken(VGpu.Transmitted msg, VgpuLedger ledger, long now) {
    VgpuLedger.Take take = ledger.take(msg.id(), msg.giveUp(), now);
    if (take == VgpuLedger.Take.EXPIRED) return null;
    msg.ackTo().tell(new VCpu.Received(msg.id()));
    if (take == VgpuLedger.Take.SEEN) return null;
    if (msg.call() instanceof VGpu.Launch l) return new VGpu.Launch(l.kernel(), l.vcpu(), Math.max(l.atNanos(), now),
        l.call());
    if (msg.call() instanceof VGpu.Sync c) return new VGpu.Sync(c.kernel(), c.vcpu(), c.replyTo(),
        Math.max(c.atNanos(), now), c.call());
    return msg.call();
  }

  /**
   * The id of the last part of the call whose part {@code id} (not its last, already finished and removed from
   * {@code pending}) failed: the parts of a call have consecutive ids, so it is the first part after {@code id}
   * marked last.
   */
  static long lastPartOf(PendingRequests pending, long id) {
    long last = id + 1;
    while (pending.contains(last) && !pending.get(last).last()) last++;
    return last;
  }
}
