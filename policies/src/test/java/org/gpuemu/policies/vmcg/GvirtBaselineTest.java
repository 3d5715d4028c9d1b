package org.gpuemu.policies.vmcg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.gpu.GpuDecision;
import org.gpuemu.policies.gpu.GpuPolicy;
import org.gpuemu.policies.gpu.GpuWork;
import org.gpuemu.policies.gpu.VgpuParams;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class GvirtBaselineTest {
  private static final long MS = 1_000_000;
  private static final long US = 1_000;

  private final GpuPolicy policy =
      PolicyCatalog.builtIn().create(PolicyKind.GPU, "gvirt", PolicyParams.of(Map.of("slice", 16 * MS, "max-inflight", 1L)));
  private long nextId;

  GvirtBaselineTest() {
    for (int v = 0; v < 3; v++) {
      policy.addVgpu(new VgpuParams(v, "vm" + v, 1 + 3 * v)); // weights 1, 4, 7: gVirt ignores them
    }
  }

  private GpuWork queue(int vgpu, long nanos, long now) {
    GpuWork crb = new GpuWork(nextId++, vgpu, nanos, now, false);
    policy.queued(crb, now);
    return crb;
  }

  /** Runs one CRB after another from {@code now} until the policy idles; the vGPU of each dispatch in order. */
  private List<Integer> runAll(long now) {
    List<Integer> order = new ArrayList<>();
    while (policy.next(now, 0) instanceof GpuDecision.Dispatch d) {
      order.add(d.work().vgpu());
      now += d.work().soloNanos();
      policy.completed(d.work(), d.work().soloNanos(), now);
    }
    return order;
  }

  @AfterEach
  void invariantsHold() {
    assertEquals(List.of(), policy.checkInvariants());
  }

  @Test
  void gvirt_isSelectedByName() {
    assertEquals("gvirt", policy.name());
  }

  @Test
  void gvirt_theVmWhoseCrbArrivedFirst_getsTheEngineNext_notTheNextIndex() {
    GpuWork a = queue(0, MS, 0);
    assertEquals(a, assertInstanceOf(GpuDecision.Dispatch.class, policy.next(0, 0)).work());
    queue(2, MS, 100 * US);
    queue(1, MS, 200 * US);
    policy.completed(a, MS, MS);
    // Dom0's shared FCFS queue holds VM 2's CRB ahead of VM 1's: VM 2 goes next (round robin by index: VM 1).
    assertEquals(List.of(2, 1), runAll(MS));
  }

  @Test
  void gvirt_theOwnerSubmitsAllItHasWithinItsSlice_withoutACountLimit() {
    for (int i = 0; i < 100; i++) {
      queue(0, 100 * US, 0);
    }
    queue(1, MS, 0);
    // 100 CRBs of 0.1 ms fit VM 0's 16 ms slice: all go before VM 1's ("as many CRBs as it wants").
    List<Integer> order = runAll(0);
    assertEquals(101, order.size());
    assertEquals(1, order.get(100));
  }

  @Test
  void gvirt_theSliceEndsAfter16ms_evenIfTheOwnerHasMore() {
    for (int i = 0; i < 20; i++) {
      queue(0, MS, 0);
    }
    queue(1, MS, 0);
    // VM 0 dispatches at 0..15 ms; at 16 ms its slice is over and VM 1 gets the engine; then VM 0 again.
    List<Integer> order = runAll(0);
    assertEquals(16, order.indexOf(1));
    assertEquals(21, order.size());
  }
}
