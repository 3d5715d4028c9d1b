package org.gpuemu.emulator.vm;

import java.util.Collection;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.gpuemu.emulator.faults.FaultInjector;
import org.slf4j.Logger;

/**
 * What faults do to a {@link VGpu} (issue 18), kept beside the actor.
 *
 * <p>{@code vgpu-crash} ({@link VGpu.Crash}). Effect: the actor fails ({@link Crashed}) and its supervisor restarts
 * it ({@code Behaviors.supervise(...).onFailure(SupervisorStrategy.restart())}). The dying incarnation, on Pekko's
 * {@code PreRestart} signal, fails every guest call in flight with reason {@code vgpu-crashed} and answers the vCPUs
 * blocked on one ({@link #failInFlight}), so nothing is dropped silently; the requests it had handed to the GPU
 * scheduler or the GPU become orphans, which the next incarnation lets finish (their GPU time accounted, the
 * scheduler told, so the policy's in-flight count stays right) without answering anyone. Recovery: the new
 * incarnation starts with an empty ring and the same {@link VgpuLedger} (counters, request ids); for the fault's
 * {@code heal-after} (default 0) the guest's new kernel calls fail at once, then it serves them as before.
 *
 * <p>{@code gpu-hang}: the kernels an engine reset took come back as {@code SmGroup.Finished} with reason
 * {@code gpu-reset} (the watchdog: {@code SmGroupModel.hang}); their calls fail, a call sliced into parts fails as
 * a whole ({@link #lastPartOf}); the VM goes on with its next calls.
 */
final class VgpuFaults {
  private VgpuFaults() {}

  /** The failure supervision restarts a vGPU for. */
  static final class Crashed extends RuntimeException {
    Crashed(int vgpu, int fault) {
      super("vGPU " + vgpu + " crashed (fault " + fault + ")", null, false, false);
    }
  }

  /** Records the crash at {@code at} in the ledger (down until when, the recovery to watch) and returns {@code at}. */
  static long crash(int vgpu, VGpu.Crash msg, long at, VgpuLedger ledger, Logger log) {
    ledger.downSince = at;
    ledger.downUntil = at + msg.downNanos();
    ledger.watch(msg.fault(), ledger.downUntil, msg.outcomes());
    msg.outcomes().tell(new FaultInjector.Healed(msg.fault(), ledger.downUntil));
    log.warn("vGPU {} crashes at {} s (fault {}); supervision restarts it", vgpu, at / 1e9, msg.fault());
    return at;
  }

  /** The dying incarnation's last act: every call in flight fails at {@code at}, its guest answered. */
  static void failInFlight(int vgpu, long at, Map<Long, VgpuRequests.Pending> pending, Collection<Long> runtime,
      Collection<VgpuRequests.Blocked> presents, Collection<VgpuRequests.Waiter> flushes, Collection<ActorRef<VGpu.Drained>> drains,
      VgpuLedger ledger, boolean timedPresents) {
    for (Map.Entry<Long, VgpuRequests.Pending> e : pending.entrySet()) {
      VgpuRequests.Pending p = e.getValue();
      if (!runtime.contains(e.getKey())) ledger.orphans.put(e.getKey(), p.work());
      if (!p.last()) continue;
      ledger.failed("vgpu-crashed", at);
      if (p.syncReply() != null) p.syncReply().tell(new VCpu.SyncReturned(at));
    }
    for (VgpuRequests.Blocked b : presents) {
      ledger.failed("vgpu-crashed", at);
      b.replyTo().tell(b.atNanos() < 0 || !timedPresents ? VCpu.PresentReturned.UNTIMED : new VCpu.PresentReturned(at));
    }
    for (VgpuRequests.Waiter w : flushes) {
      ledger.failed("vgpu-crashed", at);
      w.replyTo().tell(VCpu.FlushReturned.INSTANCE);
    }
    for (ActorRef<VGpu.Drained> d : drains) d.tell(new VGpu.Drained(vgpu));
  }

  /** The id of the last part of the call part {@code id} belongs to (the parts of a call have consecutive ids). */
  static long lastPartOf(Map<Long, VgpuRequests.Pending> pending, long id) {
    long last = id;
    while (pending.containsKey(last + 1) && !pending.get(last).last()) last++;
    return last;
  }
}
