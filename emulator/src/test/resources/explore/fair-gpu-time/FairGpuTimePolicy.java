package org.example;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.gpuemu.policies.ParamChecks;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.gpu.GpuDecision;
import org.gpuemu.policies.gpu.GpuPolicy;
import org.gpuemu.policies.gpu.GpuWork;
import org.gpuemu.policies.gpu.VgpuParams;

/**
 * Fair GPU time (start-time fair queuing on an estimated cost): each vGPU has a virtual time, and the GPU goes to the
 * queued request of the vGPU whose virtual time is least. A dispatch charges the vGPU what its request is expected
 * to cost, divided by its weight, at once, so that no VM can take the GPU again before its last request is paid
 * for. The cost is the request's solo time divided by the vGPU's observed speed: a shared GPU runs a request slower
 * than alone, and the speed (solo time over the GPU time accounted, an exponentially weighted mean) says by how much.
 * A vGPU that joins late starts at the least virtual time, as in SFQ.
 *
 * <p>This file carries a planted bug for the explore guide (docs/guides/explore.md); {@code completed} says where.
 */
public final class FairGpuTimePolicy implements GpuPolicy {
  public static final String NAME = "fair-gpu-time";
  /** Weight of the newest observation in the speed's running mean. */
  private static final double ALPHA = 0.2;

  private final int maxInflight;
  private final Map<Integer, Deque<GpuWork>> queues = new TreeMap<>();
  private final Map<Integer, Integer> weights = new TreeMap<>();
  private final Map<Integer, Double> virtualTime = new TreeMap<>();
  private final Map<Integer, Double> speed = new TreeMap<>();
  private long dispatched;

  public FairGpuTimePolicy(PolicyParams params) {
    this.maxInflight = ParamChecks.positiveCount(params, NAME, "max-inflight");
  }

  @Override public String name() {
    return NAME;
  }

  @Override public void addVgpu(VgpuParams vgpu) {
    queues.put(vgpu.vgpu(), new ArrayDeque<>());
    weights.put(vgpu.vgpu(), vgpu.weight());
    virtualTime.put(vgpu.vgpu(), virtualTime.values().stream().mapToDouble(Double::doubleValue).min().orElse(0));
    speed.put(vgpu.vgpu(), 1.0);
  }

  @Override public void removeVgpu(int vgpu) {
    queues.remove(vgpu);
    weights.remove(vgpu);
    virtualTime.remove(vgpu);
    speed.remove(vgpu);
  }

  @Override public void queued(GpuWork work, long now) {
    queues.get(work.vgpu()).addLast(work);
  }

  @Override public void completed(GpuWork work, long gpuNanos, long now) {
    // BUG (planted): a request that a vGPU crash completed unrun is accounted 0 ns of GPU time; its speed is then
    // infinite, the running mean stays infinite, and every later request of that VM is charged nothing.
    speed.computeIfPresent(work.vgpu(), (v, s) -> (1 - ALPHA) * s + ALPHA * work.soloNanos() / (double) gpuNanos);
  }

  @Override public GpuDecision next(long now, int inflight) {
    if (inflight >= maxInflight) return new GpuDecision.Idle();
    Integer best = null;
    for (Map.Entry<Integer, Deque<GpuWork>> e : queues.entrySet()) {
      if (e.getValue().isEmpty()) continue;
      int v = e.getKey();
      if (best == null || virtualTime.get(v) < virtualTime.get(best)) best = v;
    }
    if (best == null) return new GpuDecision.Idle();
    GpuWork work = queues.get(best).removeFirst();
    double cost = work.soloNanos() / speed.get(best);
    virtualTime.merge(best, cost / weights.get(best), Double::sum);
    dispatched++;
    return new GpuDecision.Dispatch(work);
  }

  @Override public List<String> checkInvariants() {
    List<String> violations = new ArrayList<>();
    virtualTime.forEach((v, t) -> {
      if (t < 0) violations.add(NAME + ": vGPU " + v + " has a negative virtual time " + t);
    });
    return violations;
  }

  @Override public Map<String, Object> figures() {
    return Map.of("dispatched", dispatched);
  }
}
