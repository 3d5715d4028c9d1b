package org.gpuemu.policies.gpu;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.gpuemu.policies.Violations;

/**
 * The bookkeeping every GPU policy shares for its invariants: each request is queued once, dispatched once while
 * it is waiting, completed once while it is in flight, and never more than {@code max-inflight} are in flight.
 * Only waiting and in-flight ids are held, so memory stays bounded by the queue lengths over long runs.
 */
public final class RequestLedger {
  private final String policy;
  private final int maxInflight;
  private final Set<Long> waiting = new HashSet<>();
  private final Set<Long> inflight = new HashSet<>();
  private final Violations violations = new Violations();

  /** A ledger whose violations name {@code policy}; more than {@code maxInflight} in flight is a violation. */
  public RequestLedger(String policy, int maxInflight) {
    this.policy = policy;
    this.maxInflight = maxInflight;
  }

  /** The request entered the policy's queues. */
  public void queued(GpuWork work) {
    if (inflight.contains(work.id()) || !waiting.add(work.id())) {
      violations.add(policy + ": request " + work.id() + " of vGPU " + work.vgpu() + " queued twice");
    }
  }

  /** The policy handed the request to the GPU. */
  public void dispatched(GpuWork work) {
    if (!waiting.remove(work.id())) {
      violations.add(policy + ": dispatched request " + work.id() + " which was not waiting");
    }
    inflight.add(work.id());
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
