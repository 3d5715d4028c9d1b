package org.gpuemu.policies.gpu;

import java.util.List;
import org.gpuemu.policies.LongLongMap;
import org.gpuemu.policies.Violations;

/**
 * The bookkeeping every GPU policy shares for its invariants: each request is queued once, dispatched once while
 * it is waiting, completed once while it is in flight, and never more than {@code max-inflight} are in flight.
 * Only waiting and in-flight ids are held, so memory stays bounded by the queue lengths over long runs; they are held
 * unboxed ({@link LongLongMap} as a set), since every request passes through here.
 */
public final class RequestLedger {
  private final String policy;
  private final int maxInflight;
  private final LongLongMap waiting = new LongLongMap();
  private final LongLongMap inflight = new LongLongMap();
  private final Violations violations = new Violations();

  /** A ledger whose violations name {@code policy}; more than {@code maxInflight} in flight is a violation. */
  public RequestLedger(String policy, int maxInflight) {
    this.policy = policy;
    this.maxInflight = maxInflight;
  }

  /** The request entered the policy's queues. */
  public void queued(GpuWork work) {
    if (inflight.containsKey(work.id()) || !waiting.put(work.id(), 0)) {
      violations.add(policy + ": request " + work.id() + " of vGPU " + work.vgpu() + " queued twice");
    }
  }

  /** The policy handed the request to the GPU. */
  public void dispatched(GpuWork work) {
    if (!waiting.remove(work.id())) {
      violations.add(policy + ": dispatched request " + work.id() + " which was not waiting");
    }
    inflight.put(work.id(), 0);
    if (inflight.size() > maxInflight) {
      violations.add(policy + ": dispatched request " + work.id() + " making " + inflight.size()
          + " in flight (max-inflight " + maxInflight + ")");
    }
  }

  /** The GPU finished the request. */
  public void completed(GpuWork work) {
    if (!inflight.remove(work.id())) {
      violations.add(policy + ": request " + work.id() + " completed but was not in flight");
    }
  }

  /** Every broken rule so far (empty when consistent). */
  public List<String> violations() {
    return violations.list();
  }
}
