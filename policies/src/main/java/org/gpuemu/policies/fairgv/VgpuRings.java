package org.gpuemu.policies.fairgv;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.gpuemu.policies.gpu.GpuWork;
import org.gpuemu.policies.gpu.RequestLedger;

/**
 * Each vGPU's request ring as a GPU policy sees it (fairgv.txt §3.1: one request ring per vGPU), with how many of
 * its requests are on the GPU and the {@link RequestLedger} every policy's invariants rest on.
 */
final class VgpuRings {
  private static final class Ring {
    final Deque<GpuWork> queue = new ArrayDeque<>();
    int inflight;
  }

  private final String policy;
  private final SortedMap<Integer, Ring> rings = new TreeMap<>();
  private final RequestLedger ledger;

  VgpuRings(String policy, int maxInflight) {
    this.policy = policy;
    this.ledger = new RequestLedger(policy, maxInflight);
  }

  void add(int vgpu) {
    if (rings.putIfAbsent(vgpu, new Ring()) != null) {
      throw new IllegalArgumentException(policy + ": vGPU " + vgpu + " added twice");
    }
  }

  /** A drained vGPU leaves; one with queued requests may not. */
  void remove(int vgpu) {
    if (!ring(vgpu, "cannot leave").queue.isEmpty()) {
      throw new IllegalStateException(policy + ": vGPU " + vgpu + " left with requests still queued");
    }
    rings.remove(vgpu);
  }

  void queued(GpuWork work) {
    Ring r = ring(work.vgpu(), "queued request " + work.id());
    ledger.queued(work);
    r.queue.addLast(work);
  }

  /** The vGPUs that have a ring, in index order. */
  Set<Integer> vgpus() {
    return rings.keySet();
  }

  boolean hasWork(int vgpu) {
    return !ring(vgpu, "asked for").queue.isEmpty();
  }

  int inflight(int vgpu) {
    return ring(vgpu, "asked for").inflight;
  }

  /** Nothing queued and nothing of it on the GPU: the vGPU finds its ring empty (§3.2.2). */
  boolean idle(int vgpu) {
    Ring r = ring(vgpu, "asked for");
    return r.queue.isEmpty() && r.inflight == 0;
  }

  /** Hands the head of the vGPU's ring to the GPU. */
  GpuWork dispatch(int vgpu) {
    Ring r = ring(vgpu, "dispatched");
    GpuWork head = r.queue.removeFirst();
    r.inflight++;
    ledger.dispatched(head);
    return head;
  }

  void completed(GpuWork work) {
    ledger.completed(work);
    Ring r = rings.get(work.vgpu());
    if (r != null && r.inflight > 0) r.inflight--;
  }

  List<String> violations() {
    return ledger.violations();
  }

  private Ring ring(int vgpu, String what) {
    Ring r = rings.get(vgpu);
    if (r == null) {
      throw new IllegalArgumentException(policy + ": unknown vGPU " + vgpu + " " + what);
    }
    return r;
  }
}
