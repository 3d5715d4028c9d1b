package org.gpuemu.policies.fairgv;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.gpuemu.workloads.KernelSpec;

/**
 * FairGV's kernel slicing (fairgv.txt §3.3.2, §5.5.2, Table 4): a kernel with more than {@code aboveBlocks} thread
 * blocks ("FairGV identifies a kernel as very long running when the grid size is more than 600×600, but this value
 * is configurable": 360,000 blocks) is split into sub-kernels of no fewer than {@code subKernelBlocks} (1,500)
 * thread blocks each, as many as that allows: ⌊B / 1,500⌋ sub-kernels of near-equal block counts.
 *
 * <p>The cost of slicing, derived from Table 4. Table 4 gives, for matrixMul grids of 600×600 (T = 19,506 ms,
 * B = 360,000 blocks) and 900×900 (81,030 ms, 810,000 blocks), the slowdown s of the whole kernel cut into n
 * sub-kernels. Spread over the launches, each sub-kernel launch costs s·T / n, which is s·b block-times for
 * b = B / n blocks per sub-kernel (a block-time being T / B). That per-launch overhead is not one constant: it
 * grows from 0 (b ≥ 5,625 on the 600 grid, ≥ 3,165 on the 900 grid) to about 85 block-times for small sub-kernels
 * (600: 83 at n = 512–4,096; 900: 88 at n = 4,096), and the two grids do not share one curve of b (at b ≈ 1,500 the
 * 600 grid loses 4.3 %, the 900 grid 0.2 %). So the model keeps Table 4 as measured: the slowdown of a kernel of B
 * blocks cut into sub-kernels of b blocks is read off the Table 4 grid nearer to B (in ratio of blocks), linearly
 * interpolated in b between its rows, 0 above its largest sub-kernel (n = 1), and, below its smallest (n = 4,096),
 * with the per-launch overhead in block-times held at its last value, since it has stopped growing there. Each
 * sub-kernel's duration is its share of the kernel's blocks times T·(1 + s), so Table 4's rows are reproduced
 * exactly and the overhead of each launch is s·T / n. Table 4's thread-block column reads 74 and 166 for 4,096
 * sub-kernels where 360,000 / 4,096 = 88 and 810,000 / 4,096 = 198; the rows are taken by their sub-kernel count.
 */
public final class KernelSlicing {
  /** One measured grid of Table 4: its blocks, its kernel size, and (sub-kernels, slowdown) rows. */
  record Grid(int blocks, long kernelNanos, List<Row> rows) {
    /** Rows by blocks per sub-kernel, ascending. */
    Grid {
      rows = rows.stream().sorted(Comparator.comparingDouble(r -> -r.subKernels())).toList();
    }

    double blocksPer(Row r) {
      return (double) blocks / r.subKernels();
    }
  }

  /** One row of Table 4: the kernel cut into {@code subKernels} ran {@code slowdown} (a fraction) longer. */
  record Row(int subKernels, double slowdown) {}

  private static final long MS = 1_000_000L;

  /** fairgv.txt Table 4. */
  static final List<Grid> TABLE_4 = List.of(
      new Grid(600 * 600, 19_506 * MS, List.of(new Row(1, 0.0), new Row(64, 0.0), new Row(128, 0.010),
          new Row(256, 0.043), new Row(512, 0.118), new Row(1_024, 0.239), new Row(2_048, 0.478),
          new Row(3_072, 0.711), new Row(4_096, 0.946))),
      new Grid(900 * 900, 81_030 * MS, List.of(new Row(1, 0.0), new Row(64, 0.0), new Row(128, 0.0),
          new Row(256, 0.0), new Row(512, 0.002), new Row(1_024, 0.062), new Row(2_048, 0.175),
          new Row(3_072, 0.307), new Row(4_096, 0.445))));

  private final long aboveBlocks;
  private final int subKernelBlocks;

  /** Slices kernels of more than {@code aboveBlocks} blocks into sub-kernels of at least {@code subKernelBlocks}. */
  public KernelSlicing(long aboveBlocks, int subKernelBlocks) {
    if (aboveBlocks <= 0 || subKernelBlocks <= 0) {
      throw new IllegalArgumentException("kernel slicing: thresholds must be > 0, got " + aboveBlocks + " and "
          + subKernelBlocks);
    }
    this.aboveBlocks = aboveBlocks;
    this.subKernelBlocks = subKernelBlocks;
  }

  /** FairGV's rule: the sub-kernels to run in place of {@code kernel}, or the kernel itself when it is not long. */
  public List<KernelSpec> slice(KernelSpec kernel) {
    int n = kernel.threadBlocks() / subKernelBlocks;
    return kernel.threadBlocks() <= aboveBlocks || n <= 1 ? List.of(kernel) : sliceInto(kernel, n);
  }

  /** {@code kernel} cut into {@code n} sub-kernels of near-equal block counts, each paying its launch overhead. */
  public static List<KernelSpec> sliceInto(KernelSpec kernel, int n) {
    int blocks = kernel.threadBlocks();
    if (n < 1 || n > blocks) {
      throw new IllegalArgumentException("kernel slicing: cannot cut " + blocks + " blocks into " + n + " sub-kernels");
    }
    long total = Math.round(kernel.soloNanos() * (1 + slowdown(blocks, n)));
    List<KernelSpec> parts = new ArrayList<>(n);
    long blocksBefore = 0;
    for (int i = 0; i < n; i++) {
      long partBlocks = (i + 1L) * blocks / n - (long) i * blocks / n;
      long start = Math.multiplyExact(total, blocksBefore) / blocks;
      blocksBefore += partBlocks;
      long end = Math.multiplyExact(total, blocksBefore) / blocks;
      parts.add(new KernelSpec(kernel.name() + "#" + (i + 1) + "/" + n, kernel.type(), (int) partBlocks,
          Math.max(1, end - start)));
    }
    return parts;
  }

  /** Table 4's slowdown (a fraction) of a kernel of {@code blocks} thread blocks cut into {@code n} sub-kernels. */
  public static double slowdown(int blocks, int n) {
    Grid grid = nearest(blocks);
    double b = (double) blocks / n;
    List<Row> rows = grid.rows();
    Row smallest = rows.get(0);
    if (b <= grid.blocksPer(smallest)) {
      // the per-launch overhead s·b (in block-times) stays at its last measured value
      return smallest.slowdown() * grid.blocksPer(smallest) / b;
    }
    for (int i = 1; i < rows.size(); i++) {
      Row lo = rows.get(i - 1);
      Row hi = rows.get(i);
      if (b <= grid.blocksPer(hi)) {
        double f = (b - grid.blocksPer(lo)) / (grid.blocksPer(hi) - grid.blocksPer(lo));
        return lo.slowdown() + f * (hi.slowdown() - lo.slowdown());
      }
    }
    return 0;
  }

  /** The Table 4 grid whose block count is nearer to {@code blocks} by ratio. */
  private static Grid nearest(int blocks) {
    return TABLE_4.stream()
        .min(Comparator.comparingDouble(g -> Math.abs(Math.log((double) blocks / g.blocks()))))
        .orElseThrow();
  }
}
