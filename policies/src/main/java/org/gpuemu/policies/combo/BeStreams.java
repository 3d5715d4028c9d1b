package org.gpuemu.policies.combo;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.gpuemu.workloads.KernelType;

/**
 * The BE side of a space-sharing policy: COMBO's two BE streams (combo.txt §5.1: "one for running the CD kernels of
 * the BE application, and the last one for running the TC kernels"), each running one kernel at a time, fed from
 * the BE applications' FIFO host queues ("The BE application's kernels are captured in a FIFO queue and then
 * launched in order", §6.2).
 *
 * <p>Interpretation: one FIFO per BE application (vGPU), not one per stream shared by all applications. An
 * application's kernels depend on each other, so its next kernel waits until its previous one has finished, as in
 * one CUDA stream; the two streams let kernels of different applications (a DNN job's TC kernel and a Parboil CD
 * kernel, §6.3) co-locate. With one FIFO per stream, a kernel too long for any headroom (a 1.2 ms mri-q kernel
 * beside 0.83 ms of headroom) would block every other application's kernels of its type for good.
 */
final class BeStreams {
  /** The BE stream types, CD (the CUDA stream) first as COMBO pops it first (§5.1.2). */
  static final List<KernelType> STREAMS = List.of(KernelType.CD, KernelType.TC);

  private record Queued(BeKernel kernel, long seq) {}

  private record Launched(BeKernel kernel, Placement placement) {}

  private final Map<Integer, ArrayDeque<Queued>> queues = new TreeMap<>();
  private final Map<Long, Launched> running = new LinkedHashMap<>();
  private final Set<Long> seen = new HashSet<>();
  private long seq;

  void queued(BeKernel kernel) {
    if (!seen.add(kernel.id())) throw new IllegalArgumentException("BE kernel " + kernel.id() + " queued twice");
    queues.computeIfAbsent(kernel.vgpu(), v -> new ArrayDeque<>()).addLast(new Queued(kernel, seq++));
  }

  /** Whether the stream of {@code type} is running a kernel. */
  boolean busy(KernelType type) {
    return running.values().stream().anyMatch(l -> l.kernel().type() == type);
  }

  /**
   * The kernels that may start now on the stream of {@code type}, oldest queued first: the heads of applications
   * with nothing running whose head is of that type; none while the stream is busy.
   */
  List<BeKernel> candidates(KernelType type) {
    if (busy(type)) return List.of();
    List<Queued> heads = new ArrayList<>();
    queues.forEach((vgpu, q) -> {
      Queued head = q.peekFirst();
      if (head != null && head.kernel().type() == type && !applicationRunning(vgpu)) heads.add(head);
    });
    heads.sort(Comparator.comparingLong(Queued::seq));
    return heads.stream().map(Queued::kernel).toList();
  }

  /** The candidates of both streams, oldest queued first. */
  List<BeKernel> candidates() {
    List<BeKernel> all = new ArrayList<>();
    for (KernelType t : STREAMS) all.addAll(candidates(t));
    all.sort(Comparator.comparingLong(this::seqOf));
    return all;
  }

  private long seqOf(BeKernel k) {
    return queues.get(k.vgpu()).peekFirst().seq();
  }

  private boolean applicationRunning(int vgpu) {
    return running.values().stream().anyMatch(l -> l.kernel().vgpu() == vgpu);
  }

  /** Kernels launched and not finished. */
  int running() {
    return running.size();
  }

  /** Whether any BE kernel is queued or running. */
  boolean pending() {
    return !running.isEmpty() || queues.values().stream().anyMatch(q -> !q.isEmpty());
  }

  /** A candidate was launched. */
  void launched(BeKernel kernel, Placement placement) {
    if (!candidates(kernel.type()).contains(kernel)) {
      throw new IllegalStateException("BE kernel " + kernel.id() + " may not start now");
    }
    queues.get(kernel.vgpu()).removeFirst();
    running.put(kernel.id(), new Launched(kernel, placement));
  }

  /** A launched kernel finished; where it ran. */
  Placement finished(BeKernel kernel) {
    Launched l = running.remove(kernel.id());
    if (l == null) throw new IllegalArgumentException("BE kernel " + kernel.id() + " finished but is not running");
    return l.placement();
  }

  /** Ids of the running kernels placed on the whole GPU. */
  Set<Long> runningOnWholeGpu() {
    Set<Long> ids = new HashSet<>();
    running.forEach((id, l) -> {
      if (l.placement() == Placement.WHOLE_GPU) ids.add(id);
    });
    return ids;
  }

  /** Invariants: at most one running kernel per stream and per application; none both queued and running. */
  void check(String policy, List<String> violations) {
    for (KernelType t : STREAMS) {
      long n = running.values().stream().filter(l -> l.kernel().type() == t).count();
      if (n > 1) violations.add(policy + ": " + n + " kernels running on the BE " + t + " stream");
    }
    for (Map.Entry<Integer, ArrayDeque<Queued>> e : queues.entrySet()) {
      long n = running.values().stream().filter(l -> l.kernel().vgpu() == e.getKey()).count();
      if (n > 1) violations.add(policy + ": " + n + " kernels of vGPU " + e.getKey() + " running at once");
      for (Queued q : e.getValue()) {
        if (running.containsKey(q.kernel().id())) {
          violations.add(policy + ": BE kernel " + q.kernel().id() + " queued and running");
        }
      }
    }
  }
}
