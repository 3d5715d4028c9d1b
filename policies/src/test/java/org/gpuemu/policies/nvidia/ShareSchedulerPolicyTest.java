package org.gpuemu.policies.nvidia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.gpuemu.policies.gpu.GpuDecision;
import org.gpuemu.policies.gpu.GpuPolicy;
import org.gpuemu.policies.gpu.GpuWork;
import org.gpuemu.policies.gpu.VgpuParams;
import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyKind;
import org.junit.jupiter.api.Test;

/**
 * Replays the documented rules of NVIDIA's time-sliced vGPU schedulers (NVIDIA AI Enterprise User Guide v5.0 §7) on a
 * GPU that runs one request at a time. Every busy vGPU always has a request queued; requests take 0.5 ms, a quarter
 * of a 480 Hz slice (2.083 ms), so a turn overshoots by up to 0.5 ms and the averaging factor has to pay it back. The
 * tolerance of 0.01 on a fraction is two requests' worth over the 100 ms the overshoot compensation needs to settle
 * (AA 33 turns), against a run of 2 s.
 */
class ShareSchedulerPolicyTest {
  private static final long MS = 1_000_000L;
  private static final long REQUEST = MS / 2;
  private static final double TOLERANCE = 0.01;

  /** A GPU policy of the catalog with its defaults and these overrides. */
  private static GpuPolicy policy(String name, Map<String, Object> overrides) {
    var spec = PolicyCatalog.builtIn().spec(PolicyKind.GPU, name);
    Map<String, Object> values = new HashMap<>(spec.defaults().values());
    values.putAll(overrides);
    return spec.create(org.gpuemu.policies.PolicyParams.of(values));
  }

  /** Runs the GPU from {@code from} to {@code to} with {@code busy} always queuing; GPU time per vGPU in that span. */
  private static final class Gpu {
    final GpuPolicy policy;
    final Map<Integer, Long> busyNanos = new HashMap<>();
    long now;
    long ids;
    GpuWork running;
    long runEnd;
    Set<Integer> busy = Set.of();

    Gpu(GpuPolicy policy) {
      this.policy = policy;
    }

    void queue(int vgpu) {
      policy.queued(new GpuWork(ids++, vgpu, REQUEST, now, false), now);
    }

    void setBusy(Set<Integer> vgpus) {
      for (int v : vgpus) if (!busy.contains(v)) queue(v);
      busy = vgpus;
    }

    Map<Integer, Double> runUntil(long to) {
      busyNanos.clear();
      long from = now;
      int steps = 0;
      while (now < to) {
        GpuDecision d = policy.next(now, running == null ? 0 : 1);
        if (++steps > 10_000_000) throw new AssertionError("no progress at " + now + ": " + d + " running " + running);
        if (d instanceof GpuDecision.Dispatch dispatch) {
          running = dispatch.work();
          runEnd = now + REQUEST;
          if (busy.contains(running.vgpu())) queue(running.vgpu());
          continue;
        }
        long wake = d instanceof GpuDecision.WakeAt w ? w.nanos() : Long.MAX_VALUE;
        long next = Math.min(wake, running != null ? runEnd : Long.MAX_VALUE);
        if (next == Long.MAX_VALUE) {
          now = to;
          break;
        }
        now = Math.max(now, next);
        if (running != null && runEnd <= now) {
          busyNanos.merge(running.vgpu(), REQUEST, Long::sum);
          policy.completed(running, REQUEST, now);
          running = null;
        }
      }
      Map<Integer, Double> fraction = new HashMap<>();
      busyNanos.forEach((v, n) -> fraction.put(v, n / (double) (now - from)));
      return fraction;
    }
  }

  @Test
  void fixedShare_t4_4c_getsAQuarterEvenWhenTheOthersIdle() {
    // §7.1: "the maximum number of T4-4C vGPUs per physical GPU is 4 [...] each T4-4C vGPU is given one quarter"
    Gpu gpu = new Gpu(policy(NvidiaPolicies.FIXED_SHARE, Map.of("vgpu-type", "T4-4C", "max-inflight", 1L)));
    for (int v = 0; v < 2; v++) gpu.policy.addVgpu(new VgpuParams(v, "vm" + v, 1));
    gpu.setBusy(Set.of(0));
    Map<Integer, Double> f = gpu.runUntil(2_000 * MS);
    assertEquals(0.25, f.get(0), TOLERANCE, "alone and busy, vm0 still gets 1/4: the idle turns stay idle");
    gpu.setBusy(Set.of(0, 1));
    f = gpu.runUntil(4_000 * MS);
    assertEquals(0.25, f.get(0), TOLERANCE);
    assertEquals(0.25, f.get(1), TOLERANCE, "two busy T4-4C vGPUs: a quarter each, half the GPU idle");
    assertTrue(gpu.policy.checkInvariants().isEmpty(), gpu.policy.checkInvariants().toString());
  }

  @Test
  void fixedShare_fractionIsOneOverTheTypesMaximum() {
    for (String type : VgpuType.names()) {
      VgpuType t = VgpuType.of(type).orElseThrow();
      Gpu gpu = new Gpu(policy(NvidiaPolicies.FIXED_SHARE, Map.of("vgpu-type", type, "max-inflight", 1L)));
      gpu.policy.addVgpu(new VgpuParams(0, "vm0", 1));
      gpu.setBusy(Set.of(0));
      // A100-4C (10 per GPU) runs at 960 Hz: a 1.04 ms slice, so 0.5 ms requests overshoot relatively more; the
      // compensation still holds the long-run fraction.
      assertEquals(t.fixedShare(), gpu.runUntil(2_000 * MS).get(0), TOLERANCE, type);
    }
  }

  @Test
  void fixedShare_refusesMoreVgpusThanTheTypeAllows() {
    GpuPolicy p = policy(NvidiaPolicies.FIXED_SHARE, Map.of("vgpu-type", "T4-4C"));
    for (int v = 0; v < 4; v++) p.addVgpu(new VgpuParams(v, "vm" + v, 1));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> p.addVgpu(new VgpuParams(4, "vm4", 1)));
    assertTrue(e.getMessage().contains("at most 4 T4-4C"), e.getMessage());
  }

  @Test
  void equalShare_splitsAmongPoweredOnVgpus_andChangesWhenOnePowersOff() {
    // §7.1: "As vGPUs are added to or removed from a GPU, the share [...] allocated to each vGPU changes accordingly"
    Gpu gpu = new Gpu(policy(NvidiaPolicies.EQUAL_SHARE, Map.of("max-inflight", 1L)));
    for (int v = 0; v < 3; v++) gpu.policy.addVgpu(new VgpuParams(v, "vm" + v, 1));
    gpu.setBusy(Set.of(0, 1, 2));
    Map<Integer, Double> f = gpu.runUntil(2_000 * MS);
    for (int v = 0; v < 3; v++) assertEquals(1.0 / 3, f.get(v), TOLERANCE, "vm" + v + " of 3");
    // vm2 powers off: drained first (nothing of it queued or running), then removed
    gpu.setBusy(Set.of(0, 1));
    gpu.runUntil(gpu.now + 100 * MS); // a round is 6.25 ms: vm2's last request has run
    while (gpu.running != null && gpu.running.vgpu() == 2) gpu.runUntil(gpu.now + MS);
    gpu.policy.removeVgpu(2);
    f = gpu.runUntil(gpu.now + 2_000 * MS);
    assertEquals(0.5, f.get(0), TOLERANCE);
    assertEquals(0.5, f.get(1), TOLERANCE);
    // vm2 powers on again, idle: equal share gives it its third whatever its load, and nobody else takes it
    gpu.policy.addVgpu(new VgpuParams(2, "vm2", 1));
    f = gpu.runUntil(gpu.now + 2_000 * MS);
    assertEquals(1.0 / 3, f.get(0), TOLERANCE);
    assertEquals(1.0 / 3, f.get(1), TOLERANCE);
    assertTrue(gpu.policy.checkInvariants().isEmpty(), gpu.policy.checkInvariants().toString());
  }

  @Test
  void bestEffort_idleVgpusCedeTheirTurn() {
    // knowledge base "vGPU Schedulers": "If a VM has no task or has used up its time slice, the scheduler will move
    // to the next VM"; idle VMs cede their slots (NVAIE 8.1 Table 37)
    Gpu gpu = new Gpu(policy(NvidiaPolicies.BEST_EFFORT, Map.of("max-inflight", 1L)));
    for (int v = 0; v < 4; v++) gpu.policy.addVgpu(new VgpuParams(v, "vm" + v, 1));
    gpu.setBusy(Set.of(0));
    assertEquals(1.0, gpu.runUntil(1_000 * MS).get(0), TOLERANCE, "alone, vm0 has the whole GPU");
    gpu.setBusy(Set.of(0, 1));
    Map<Integer, Double> f = gpu.runUntil(gpu.now + 1_000 * MS);
    assertEquals(0.5, f.get(0), TOLERANCE);
    assertEquals(0.5, f.get(1), TOLERANCE);
  }

  @Test
  void averagingFactorAndFrequency_outsideTheDocumentedRanges_areRefused() {
    // §7.3: AA 0x01-0x3C (1-60), FFF 0x3F-0x3C0 (63-960 Hz)
    for (long aa : new long[] {0, 61}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> policy(NvidiaPolicies.EQUAL_SHARE, Map.of("averaging-factor", aa)));
      assertTrue(e.getMessage().contains("averaging-factor must be 1-60"), e.getMessage());
    }
    for (String hz : new String[] {"62", "961", "fast"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> policy(NvidiaPolicies.FIXED_SHARE, Map.of("frequency", hz)));
      assertTrue(e.getMessage().contains("frequency"), e.getMessage());
    }
    assertThrows(IllegalArgumentException.class, () -> policy(NvidiaPolicies.BEST_EFFORT, Map.of("vgpu-type", "A100-3C")));
    assertEquals(1_000_000_000L / 480 + 1, ((ShareSchedulerPolicy) policy(NvidiaPolicies.EQUAL_SHARE, Map.of()))
        .sliceNanos(), 1, "A100-10C (4 per GPU): 480 Hz, a 2.083 ms slice (§7.3 Table 1)");
    assertEquals(Math.round(1e9 / 960), ((ShareSchedulerPolicy) policy(NvidiaPolicies.EQUAL_SHARE,
        Map.of("vgpu-type", "A100-4C"))).sliceNanos(), "A100-4C (10 per GPU): 960 Hz");
    assertEquals(15_873_016L, ((ShareSchedulerPolicy) policy(NvidiaPolicies.EQUAL_SHARE,
        Map.of("frequency", "63"))).sliceNanos(), "§7.3: 63 Hz yields 15.873 ms");
  }
}
