package org.gpuemu.policies.fairgv;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import org.gpuemu.policies.gpu.GpuDecision;
import org.gpuemu.policies.gpu.GpuPolicy;
import org.gpuemu.policies.gpu.GpuWork;

/**
 * One emulated GPU driven by a policy the way the GpuScheduler actor drives it: requests dispatched go into the
 * hardware queue and run one at a time in dispatch order for their solo duration; after every event the policy is
 * asked until it stops dispatching, and a {@link GpuDecision.WakeAt} brings it back at that time.
 */
final class GpuBench {
  /** A dispatch: when, and what. */
  record Dispatched(long at, GpuWork work) {}

  private record Running(long finish, long seq, GpuWork work) {}

  private final GpuPolicy policy;
  private final PriorityQueue<Running> running = new PriorityQueue<>(
      (a, b) -> a.finish() != b.finish() ? Long.compare(a.finish(), b.finish()) : Long.compare(a.seq(), b.seq()));
  private final Map<Long, Long> finishes = new HashMap<>();
  private long gpuFreeAt;
  private long seq;
  private long nextId;
  private long wakeAt = Long.MAX_VALUE;
  /** The emulated time of the last event. */
  long now;

  GpuBench(GpuPolicy policy) {
    this.policy = policy;
  }

  /** A request of {@code vgpu} taking {@code nanos}, not yet queued. */
  GpuWork work(int vgpu, long nanos, boolean sync) {
    return new GpuWork(nextId++, vgpu, nanos, now, sync);
  }

  /** Queues an asynchronous request now. */
  GpuWork queue(int vgpu, long nanos) {
    GpuWork w = work(vgpu, nanos, false);
    policy.queued(w, now);
    return w;
  }

  /** Asks the policy once; a dispatched request joins the hardware queue. */
  GpuDecision next() {
    GpuDecision d = policy.next(now, running.size());
    if (d instanceof GpuDecision.Dispatch go) {
      gpuFreeAt = Math.max(gpuFreeAt, now) + go.work().soloNanos();
      running.add(new Running(gpuFreeAt, seq++, go.work()));
      finishes.put(go.work().id(), gpuFreeAt);
    } else if (d instanceof GpuDecision.WakeAt w) {
      assertTrue(w.nanos() > now, "wake-up at " + w.nanos() + " is not after now " + now);
      wakeAt = w.nanos();
    }
    return d;
  }

  /** Asks once and expects a dispatch; returns the vGPU dispatched. */
  int dispatches() {
    return assertInstanceOf(GpuDecision.Dispatch.class, next()).work().vgpu();
  }

  /** When a dispatched request finishes (or finished) on the GPU. */
  long finishOf(GpuWork work) {
    return finishes.get(work.id());
  }

  /** Moves to the earliest finishing request and completes it. */
  GpuWork completeNext() {
    Running r = running.poll();
    now = Math.max(now, r.finish());
    policy.completed(r.work(), r.work().soloNanos(), now);
    return r.work();
  }

  /** When the earliest running request finishes; {@link Long#MAX_VALUE} when none runs. */
  long nextFinish() {
    return running.isEmpty() ? Long.MAX_VALUE : running.peek().finish();
  }

  /** Runs events up to and including {@code until}; returns every dispatch, in order. */
  List<Dispatched> runUntil(long until) {
    List<Dispatched> order = new ArrayList<>();
    while (true) {
      GpuDecision d;
      while ((d = next()) instanceof GpuDecision.Dispatch go) {
        order.add(new Dispatched(now, go.work()));
      }
      long event = Math.min(nextFinish(), wakeAt);
      if (event > until) return order;
      if (event == nextFinish()) {
        completeNext();
      } else {
        now = event;
        wakeAt = Long.MAX_VALUE;
      }
    }
  }

  /** The vGPUs of {@link #runUntil}'s dispatches, in order. */
  List<Integer> vgpusUntil(long until) {
    return runUntil(until).stream().map(d -> d.work().vgpu()).toList();
  }
}
