package org.gpuemu.policies.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyKind;
import org.junit.jupiter.api.Test;

class PlacementTest {
  private static final long GIB = 1L << 30;
  private static final long S = 1_000_000_000L;

  /** Two hosts of two 16 GiB GPUs and 8 cores each. */
  private static PlacementPlan twoHosts() {
    return new PlacementPlan(List.of(new PlacementPlan.Host("a", 8000, 2, 16 * GIB),
        new PlacementPlan.Host("b", 8000, 2, 16 * GIB)));
  }

  private static VmRequest vm(String name, long gpuMilli) {
    return new VmRequest(name, 1000, gpuMilli, GIB);
  }

  private static PlacementDecision.Placed placed(PlacementDecision d) {
    return assertInstanceOf(PlacementDecision.Placed.class, d);
  }

  @Test
  void firstFit_fillsTheFirstGpuBeforeTheNext() {
    PlacementPlan plan = twoHosts();
    PlacementPolicy p = new FirstFit();
    assertEquals(new PlacementDecision.Placed(0, 0), plan.place(0, vm("v0", 600), 0, 10 * S, -1, p));
    // 600 + 400 = 1000: still fits on GPU 0 of host a
    assertEquals(new PlacementDecision.Placed(0, 0), plan.place(1, vm("v1", 400), 0, 10 * S, -1, p));
    assertEquals(new PlacementDecision.Placed(0, 1), plan.place(2, vm("v2", 100), 0, 10 * S, -1, p));
  }

  @Test
  void bestFit_packsTheFullestGpuThatStillTakesTheRequest() {
    PlacementPlan plan = twoHosts();
    PlacementPolicy first = new FirstFit();
    plan.place(0, vm("v0", 700), 0, 10 * S, -1, first); // a/0: 300 free
    plan.place(1, vm("v1", 500), 0, 10 * S, 1, first);  // b/0: 500 free (pinned to b)
    // 300 left on a/0 is the tightest for 250; first fit would take a/0 too, so ask for 400: a/0 cannot,
    // b/0 (500 free) leaves 100, a/1 and b/1 (1000 free) leave 600: best fit takes b/0
    assertEquals(new PlacementDecision.Placed(1, 0), plan.place(2, vm("v2", 400), 0, 10 * S, -1, new BestFit()));
    assertEquals(new PlacementDecision.Placed(0, 0), plan.place(3, vm("v3", 250), 0, 10 * S, -1, new BestFit()));
  }

  @Test
  void spread_takesTheHostWithTheFewestVms() {
    PlacementPlan plan = twoHosts();
    PlacementPolicy spread = new Spread();
    assertEquals(0, placed(plan.place(0, vm("v0", 100), 0, 10 * S, -1, spread)).host());
    assertEquals(1, placed(plan.place(1, vm("v1", 100), 0, 10 * S, -1, spread)).host());
    PlacementDecision.Placed third = placed(plan.place(2, vm("v2", 100), 0, 10 * S, -1, spread));
    assertEquals(new PlacementDecision.Placed(0, 1), third, "host a again, on its empty GPU");
  }

  @Test
  void aVmThatDepartedFreesItsShareForLaterArrivals() {
    PlacementPlan plan = new PlacementPlan(List.of(new PlacementPlan.Host("a", 8000, 1, 16 * GIB)));
    PlacementPolicy p = new FirstFit();
    placed(plan.place(0, vm("v0", 800), 0, 5 * S, -1, p));
    assertInstanceOf(PlacementDecision.Rejected.class, plan.place(1, vm("v1", 800), 4 * S, 9 * S, -1, p),
        "v0 holds 800 until 5 s");
    placed(plan.place(2, vm("v2", 800), 5 * S, 9 * S, -1, p));
  }

  @Test
  void rejection_namesTheResourceThatRanOut() {
    PlacementPlan plan = new PlacementPlan(List.of(new PlacementPlan.Host("a", 8000, 1, 16 * GIB)));
    placed(plan.place(0, vm("v0", 900), 0, 5 * S, -1, new BestFit()));
    PlacementDecision.Rejected r = assertInstanceOf(PlacementDecision.Rejected.class,
        plan.place(1, vm("v1", 200), 0, 5 * S, -1, new BestFit()));
    assertTrue(r.reason().startsWith("no-capacity") && r.reason().contains("GPU share"), r.reason());
    PlacementDecision.Rejected memory = assertInstanceOf(PlacementDecision.Rejected.class,
        plan.place(2, new VmRequest("v2", 1000, 50, 32 * GIB), 0, 5 * S, -1, new BestFit()));
    assertTrue(memory.reason().contains("GPU memory"), memory.reason());
  }

  @Test
  void hostLost_cutsItsReservations_andReplacementSeesLaterArrivals() {
    PlacementPlan plan = twoHosts();
    PlacementPolicy p = new FirstFit();
    placed(plan.place(0, vm("v0", 600), 0, 10 * S, -1, p));       // a/0
    placed(plan.place(1, vm("v1", 600), 0, 10 * S, -1, p));       // a/1
    placed(plan.place(2, vm("v2", 600), 0, 10 * S, -1, p));       // b/0
    placed(plan.place(3, vm("v3", 600), 6 * S, 10 * S, 1, p));    // b/1 from 6 s: a later arrival
    List<PlacementPlan.Reservation> struck = plan.hostLost(0, 3 * S);
    assertEquals(List.of(0, 1), struck.stream().map(PlacementPlan.Reservation::vm).toList());
    // v0 again from 3 s to 10 s: b/0 has 400 free, b/1 is free until 6 s but v3 holds 600 from then on
    PlacementDecision again = plan.place(0, vm("v0", 600), 3 * S, 10 * S, -1, p);
    assertInstanceOf(PlacementDecision.Rejected.class, again, "no GPU of b has 600 free over all of 3-10 s");
    assertEquals(new PlacementDecision.Placed(1, 0), plan.place(1, vm("v1", 400), 3 * S, 10 * S, -1, p),
        "400 fits b/0 beside v2's 600, the first GPU in order");
    assertTrue(plan.isDown(0));
    assertTrue(plan.candidates(3 * S, 10 * S, -1).stream().allMatch(c -> c.host() == 1), "a lost host takes none");
  }

  @Test
  void everyPlacementPolicy_isInTheCatalog_andNeverPlacesWhereThereIsNoRoom() {
    PolicyCatalog catalog = PolicyCatalog.builtIn();
    assertEquals(List.of("best-fit", "first-fit", "spread"), catalog.names(PolicyKind.PLACEMENT));
    for (String name : catalog.names(PolicyKind.PLACEMENT)) {
      PlacementPolicy policy = catalog.create(PolicyKind.PLACEMENT, name, catalog.spec(PolicyKind.PLACEMENT, name).defaults());
      PlacementPlan plan = twoHosts();
      java.util.Random random = new java.util.Random(7);
      for (int i = 0; i < 200; i++) {
        long start = random.nextInt(100) * S;
        VmRequest r = new VmRequest("v" + i, 500 + random.nextInt(4000), 50 + random.nextInt(951),
            (1 + random.nextInt(8)) * GIB);
        plan.place(i, r, start, start + (1 + random.nextInt(30)) * S, -1, policy); // throws if it over-commits
      }
      for (long t = 0; t < 130 * S; t += S) {
        for (PlacementPlan.Host h : plan.hosts()) {
          int host = plan.hosts().indexOf(h);
          long cpu = 0;
          for (int g = 0; g < h.gpus(); g++) {
            long gpu = 0, mem = 0;
            for (PlacementPlan.Reservation res : plan.reservations()) {
              if (res.host() != host || res.start() > t || t >= res.stop()) continue;
              if (res.gpu() == g) {
                gpu += res.request().gpuMilli();
                mem += res.request().memoryBytes();
              }
            }
            assertTrue(gpu <= 1000 && mem <= h.gpuMemoryBytes(), name + ": GPU over-committed at " + t);
          }
          for (PlacementPlan.Reservation res : plan.reservations()) {
            if (res.host() == host && res.start() <= t && t < res.stop()) cpu += res.request().cpuMilli();
          }
          assertTrue(cpu <= h.cpuMilli(), name + ": CPU over-committed at " + t);
        }
      }
    }
  }
}
