package org.gpuemu.policies.vgris;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.gpuemu.policies.gpu.VgpuParams;
import org.junit.jupiter.api.Test;

class SharesTest {
  private static final double EXACT = 1e-12;

  private static VgpuParams vm(int vgpu, String name, double share) {
    return new VgpuParams(vgpu, name, 1, share, 30);
  }

  private static VgpuParams unset(int vgpu, String name) {
    return new VgpuParams(vgpu, name, 1);
  }

  @Test
  void configured_keepsTable2Shares_evenThoughTheyDoNotAddUpToOne() {
    assertEquals(Map.of(0, 0.3, 1, 0.5), Shares.configured(List.of(vm(0, "nba2012", 0.3), vm(1, "3dmark05", 0.5))));
  }

  @Test
  void configured_vmsWithoutAShare_splitTheRemainderEqually() {
    SortedMap<Integer, Double> shares =
        Shares.configured(List.of(vm(0, "a", 0.3), unset(1, "b"), unset(2, "c")));
    assertEquals(0.3, shares.get(0));
    assertEquals(0.35, shares.get(1), EXACT);
    assertEquals(0.35, shares.get(2), EXACT);
  }

  @Test
  void configured_withNoShareSet_isFair() {
    SortedMap<Integer, Double> shares = Shares.configured(List.of(unset(0, "a"), unset(1, "b"), unset(2, "c")));
    shares.values().forEach(s -> assertEquals(1.0 / 3, s, EXACT));
  }

  @Test
  void configured_sharesAboveOne_failNamingTheVms() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Shares.configured(List.of(vm(0, "nba2012", 0.6), unset(1, "dirt3"), vm(2, "3dmark05", 0.5))));
    assertEquals("VM shares sum to 1.1, above 1: nba2012 0.6, 3dmark05 0.5", e.getMessage());
  }

  @Test
  void configured_sharesOfOne_leaveNothingForVmsWithout_andFailNamingThem() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Shares.configured(List.of(vm(0, "a", 0.7), vm(1, "b", 0.3), unset(2, "c"), unset(3, "d"))));
    assertEquals("VM shares sum to 1 (a 0.7, b 0.3), leaving nothing for c, d, which set no share", e.getMessage());
  }

  @Test
  void eq2_givesEachVmItsUsagePlusAnEqualPartOfTheRest() {
    // Table 2's SLA-aware usages: NBA 2012 12.41 %, 3DMark05 26.95 %. The rest, 60.64 %, splits 30.32 % each.
    SortedMap<Integer, Double> usage = new TreeMap<>(Map.of(0, 0.1241, 1, 0.2695));
    SortedMap<Integer, Double> shares = Shares.fromUsage(usage);
    assertEquals(0.4273, shares.get(0), EXACT);
    assertEquals(0.5727, shares.get(1), EXACT);
    assertEquals(1.0, Shares.total(shares), EXACT);
  }

  @Test
  void eq2_withNoUsage_isFair() {
    SortedMap<Integer, Double> shares = Shares.fromUsage(new TreeMap<>(Map.of(0, 0.0, 1, 0.0, 2, 0.0, 3, 0.0)));
    assertEquals(Map.of(0, 0.25, 1, 0.25, 2, 0.25, 3, 0.25), shares);
  }

  @Test
  void eq2_refusesUsagesThatLeaveNoSurplus() {
    assertThrows(IllegalArgumentException.class, () -> Shares.fromUsage(new TreeMap<>(Map.of(0, 0.6, 1, 0.4))));
  }
}
