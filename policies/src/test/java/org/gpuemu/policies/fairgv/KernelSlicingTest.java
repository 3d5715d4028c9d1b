package org.gpuemu.policies.fairgv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.gpuemu.workloads.KernelSpec;
import org.gpuemu.workloads.KernelType;
import org.junit.jupiter.api.Test;

class KernelSlicingTest {
  private static final long MS = 1_000_000;
  private static final KernelSpec MM_600 = new KernelSpec("mm-600", KernelType.CD, 360_000, 19_506 * MS);
  private static final KernelSpec MM_900 = new KernelSpec("mm-900", KernelType.CD, 810_000, 81_030 * MS);

  private final KernelSlicing fairgv = new KernelSlicing(360_000, 1_500);

  private static long total(List<KernelSpec> parts) {
    return parts.stream().mapToLong(KernelSpec::soloNanos).sum();
  }

  @Test
  void table4_everyRowIsReproduced_asTheSumOfItsSubKernels() {
    // grid, sub-kernels, slowdown in % (fairgv.txt Table 4)
    Object[][] rows = {
        {MM_600, 1, 0.0}, {MM_600, 64, 0.0}, {MM_600, 128, 1.0}, {MM_600, 256, 4.3}, {MM_600, 512, 11.8},
        {MM_600, 1_024, 23.9}, {MM_600, 2_048, 47.8}, {MM_600, 3_072, 71.1}, {MM_600, 4_096, 94.6},
        {MM_900, 1, 0.0}, {MM_900, 64, 0.0}, {MM_900, 128, 0.0}, {MM_900, 256, 0.0}, {MM_900, 512, 0.2},
        {MM_900, 1_024, 6.2}, {MM_900, 2_048, 17.5}, {MM_900, 3_072, 30.7}, {MM_900, 4_096, 44.5}};
    for (Object[] row : rows) {
      KernelSpec kernel = (KernelSpec) row[0];
      int n = (int) row[1];
      double slowdown = (double) row[2] / 100;
      List<KernelSpec> parts = KernelSlicing.sliceInto(kernel, n);
      String what = kernel.name() + " in " + n;
      assertEquals(n, parts.size(), what);
      assertEquals(kernel.threadBlocks(), parts.stream().mapToInt(KernelSpec::threadBlocks).sum(), what);
      assertEquals(Math.round(kernel.soloNanos() * (1 + slowdown)), total(parts), 1, what);
      // spread over the launches: each sub-kernel launch costs s T / n
      assertEquals(slowdown * kernel.soloNanos() / n, (double) (total(parts) - kernel.soloNanos()) / n, 1.0, what);
    }
  }

  @Test
  void fairgvRule_slicesKernelsAbove600x600_intoSubKernelsOfAtLeast1500Blocks() {
    List<KernelSpec> parts = fairgv.slice(MM_900);
    assertEquals(540, parts.size(), "810,000 / 1,500");
    assertTrue(parts.stream().allMatch(k -> k.threadBlocks() == 1_500));
    assertEquals(List.of(MM_600), fairgv.slice(MM_600), "600x600 is not 'more than' 600x600");

    KernelSpec justAbove = new KernelSpec("just-above", KernelType.CD, 360_001, 19_506 * MS);
    List<KernelSpec> cut = fairgv.slice(justAbove);
    assertEquals(240, cut.size());
    assertTrue(cut.stream().allMatch(k -> k.threadBlocks() >= 1_500), "no sub-kernel below 1,500 blocks");
    assertEquals(360_001, cut.stream().mapToInt(KernelSpec::threadBlocks).sum());
  }

  @Test
  void subKernelsOfAtLeast1500Blocks_keepTheSlowdownBelow5Percent_onBothGrids() {
    // §5.5.2: "when the number of thread blocks per sub-kernel is more than about 1,500, the slowdown can be
    // confined to less than 5%"
    assertTrue(KernelSlicing.slowdown(360_000, 240) < 0.05, "600x600 at 1,500 blocks");
    assertTrue(KernelSlicing.slowdown(810_000, 540) < 0.05, "900x900 at 1,500 blocks");
    assertTrue(KernelSlicing.slowdown(810_000, 1_024) > 0.05, "but not at 792 blocks");
  }

  @Test
  void slowdown_interpolatesBetweenRows_andKeepsThePerLaunchOverheadBeyondTheLastRow() {
    // 600x600 at 768 sub-kernels: 468.75 blocks, between 703.1 (11.8 %) and 351.6 (23.9 %)
    double b = 360_000.0 / 768;
    double expected = 0.118 + (b - 360_000.0 / 512) / (360_000.0 / 1_024 - 360_000.0 / 512) * (0.239 - 0.118);
    assertEquals(expected, KernelSlicing.slowdown(360_000, 768), 1e-12);
    // beyond 4,096 the overhead per launch stays s x b = 0.946 x 87.9 blocks: twice the launches, twice the slowdown
    assertEquals(2 * 0.946, KernelSlicing.slowdown(360_000, 8_192), 1e-9);
    assertEquals(0.0, KernelSlicing.slowdown(360_000, 32), "between the 1 and 64 rows, both 0");
  }

  @Test
  void slowdown_ofOtherGrids_followsTheNearerTable4Grid() {
    // 500,000 blocks are nearer 360,000 (ratio 1.39) than 810,000 (1.62): the 600x600 curve, at 1,953 blocks
    double b = 500_000.0 / 256;
    double expected = 0.010 + (b - 360_000.0 / 128) / (360_000.0 / 256 - 360_000.0 / 128) * (0.043 - 0.010);
    assertEquals(expected, KernelSlicing.slowdown(500_000, 256), 1e-12);
  }

  @Test
  void sliceInto_rejectsImpossibleCounts() {
    assertThrows(IllegalArgumentException.class, () -> KernelSlicing.sliceInto(MM_600, 0));
    assertThrows(IllegalArgumentException.class, () -> KernelSlicing.sliceInto(KernelSpec.cd("one-block", MS), 2));
    assertThrows(IllegalArgumentException.class, () -> new KernelSlicing(0, 1_500));
  }
}
