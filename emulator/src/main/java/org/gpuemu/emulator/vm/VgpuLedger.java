package org.gpuemu.emulator.vm;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.gpuemu.emulator.faults.FaultInjector;
import org.gpuemu.emulator.faults.RequestHistory;
import org.gpuemu.policies.LongLongMap;
import org.gpuemu.policies.gpu.GpuWork;

/**
 * A vGPU's accounting: what its guest submitted, what completed, what failed and why, the GPU time its requests
 * used. It lives outside the {@link VGpu} actor so that it outlives a crash: supervision restarts the actor (a fresh
 * ring, nothing in flight) but not its ledger, as a hypervisor keeps a guest's counters outside the vGPU process it
 * restarts. Only the vGPU actor, in whichever incarnation, touches it. It also holds what a crash left behind (requests
 * already at the scheduler or on the GPU, {@link #orphans}), which requests are on the GPU and by which scheduler
 * incarnation they were dispatched ({@link #dispatched}), and the faults waiting for the VM to complete a request
 * again ({@link #watch}). Every call's outcome also goes to the run's {@link RequestHistory}, by its id.
 */
final class VgpuLedger {
  private record Watch(int fault, long since, ActorRef<FaultInjector.Outcome> outcomes) {}

  final long measuredUntil;
  private final RequestHistory history;
  private final int vm;
  long submitted;
  long completed;
  long kernels;
  long busy;
  long kernelsInRun;
  long busyInRun;
  /** The next request id: ids stay unique across incarnations, so an orphan is never mistaken for a new request. */
  long seq;
  /** Frames presented so far (the frame the guest is recording): space sharing numbers frames across a restart. */
  long frame;
  boolean joined;
  /** Until when a crashed vGPU is down (its guest's calls fail at once); -1: never crashed. */
  long downUntil = -1;
  /** When the latest crash struck: a call issued before it that arrives while down was in flight, and fails then. */
  long downSince = -1;
  /** Why calls fail while it is down: the latest crash's reason. */
  String downReason = "vgpu-crashed";
  /** The GPU scheduler's latest incarnation the vGPU heard of: dispatches of older ones are stale. */
  long schedulerEpoch;
  /** Requests of a crashed incarnation still queued at the scheduler or running on the GPU. */
  final Map<Long, GpuWork> orphans = new HashMap<>();
  /** Requests on the GPU (handed to an SM group, not finished), with the scheduler incarnation that dispatched them. */
  final LongLongMap dispatched = new LongLongMap();
  /**
   * Requests taken over a faulty channel ({@link GuestChannel}), with the time their guest gives up on them, oldest
   * first: a second copy of one is dropped. An id is forgotten once its give-up has passed, since any copy arriving
   * later is dropped for that reason, so this holds a give-up's worth of requests however long the run.
   */
  private final java.util.LinkedHashMap<Long, Long> taken = new java.util.LinkedHashMap<>();
  /** What a vGPU does with a copy of a request over a faulty channel. */
  enum Take { NEW, SEEN, EXPIRED }

  /** A copy of request {@code id}, given up at {@code giveUp}, arrives at {@code now}. */
  Take take(long id, long giveUp, long now) {
    for (var it = taken.entrySet().iterator(); it.hasNext(); ) {
      if (it.next().getValue() > now) break;
      it.remove();
    }
    if (now >= giveUp) return Take.EXPIRED;
    return taken.putIfAbsent(id, giveUp) != null ? Take.SEEN : Take.NEW;
  }

  private final List<FailedRequest> failures = new ArrayList<>();
  private final List<Watch> watches = new ArrayList<>();

  VgpuLedger(long measuredUntil, RequestHistory history, int vm) {
    this.measuredUntil = measuredUntil;
    this.history = history;
    this.vm = vm;
  }

  /** A kernel (or a part of one) left the GPU at {@code finishedNanos} having used {@code gpuNanos}. */
  void gpuUsed(long gpuNanos, long finishedNanos, boolean countsKernel) {
    busy += gpuNanos;
    if (finishedNanos <= measuredUntil) {
      if (countsKernel) kernelsInRun++;
      busyInRun += gpuNanos;
    } else {
      busyInRun += Math.max(0, gpuNanos - (finishedNanos - measuredUntil));
    }
  }

  /** A guest's kernel call {@code call} completed at {@code at}: the recovery of every fault whose heal it follows. */
  void kernelCompleted(long call, long at) {
    answered(call, at);
    kernels++;
    if (watches.isEmpty()) return;
    for (Iterator<Watch> it = watches.iterator(); it.hasNext(); ) {
      Watch w = it.next();
      if (w.since() < 0 || at < w.since()) continue;
      w.outcomes().tell(new FaultInjector.Recovered(w.fault(), at));
      it.remove();
    }
  }

  /** A guest's call {@code call} (a Present, a flush, a kernel) was answered at {@code at}. */
  void answered(long call, long at) {
    completed++;
    history.completed(vm, call, at);
  }

  /** A guest's call failed at {@code at} with {@code reason}: a watch waiting for the heal starts from here. */
  void failed(long call, String reason, long at) {
    failures.add(new FailedRequest(reason, at));
    history.failed(vm, call, reason, at);
    for (int i = 0; i < watches.size(); i++) {
      Watch w = watches.get(i);
      if (w.since() < 0) watches.set(i, new Watch(w.fault(), at, w.outcomes()));
    }
  }

  /**
   * Tell {@code outcomes} when the VM next completes a kernel call at or after {@code since} (-1: after its next
   * failure, for a fault whose heal the vGPU learns of by its failures: a hang's reset).
   */
  void watch(int fault, long since, ActorRef<FaultInjector.Outcome> outcomes) {
    watches.add(new Watch(fault, since, outcomes));
  }

  VGpu.VgpuReport report(int vgpu, long open) {
    return new VGpu.VgpuReport(vgpu, submitted, completed, failures.size(), open, kernels, busy, kernelsInRun,
        busyInRun, List.copyOf(failures));
  }
}
