package org.gpuemu.policies.gballoon;

import java.util.ArrayList;
import java.util.List;

/**
 * gBalloon's GPU memory adjustment algorithm (gballoon.txt §3.3, Algorithm 1): once the policy has chosen the vGPU K
 * and the number of slots Q, grow or shrink K's range at its two ends so as to share as few slots with the other
 * vGPUs as possible. Both procedures try every split of Q into L slots at the start and R = Q − L at the end, count
 * the sharing of each, and keep the first best (strict comparisons, as written): expansion minimises the shared
 * slots it adds, reduction maximises the shared slots it removes. M is the map's slot count, P_K and S_K the start
 * and size of K's range.
 */
public final class AdjustmentAlgorithm {
  private AdjustmentAlgorithm() {}

  /** Procedure Expansion: where K's range grows by Q slots. */
  public static Adjustment expansion(SlotMap map, int k, int q) {
    SlotRange range = map.range(k);
    requirePositive(q);
    if (range.size() + q > map.slots()) {
      return new Adjustment.Impossible("vGPU " + k + " has " + range.size() + " slots; " + q + " more exceed the "
          + map.slots() + " slots");
    }
    int first = firstLeft(map, range, q);
    if (first > Math.min(q, range.start())) {
      return new Adjustment.Impossible("vGPU " + k + " " + range + " cannot grow by " + q + " slots within the "
          + map.usable() + " usable slots");
    }
    int[] counts = expansionCounts(map, k, q);
    int minimum = Integer.MAX_VALUE;
    int left = first;
    for (int i = first; i < first + counts.length; i++) {
      if (minimum > counts[i - first]) {
        minimum = counts[i - first];
        left = i;
      }
    }
    return new Adjustment.Split(left, q - left, minimum);
  }

  /** Procedure Reduction: where K's range shrinks by Q slots. */
  public static Adjustment reduction(SlotMap map, int k, int q) {
    SlotRange range = map.range(k);
    requirePositive(q);
    if (range.size() < q) {
      return new Adjustment.Impossible("vGPU " + k + " has " + range.size() + " slots, fewer than " + q);
    }
    int[] counts = reductionCounts(map, k, q);
    int maximum = -1;
    int left = 0;
    for (int i = 0; i <= q; i++) {
      if (maximum < counts[i]) {
        maximum = counts[i];
        left = i;
      }
    }
    return new Adjustment.Split(left, q - left, maximum);
  }

  /**
   * Lines (3)-(9) of Expansion: the count of every candidate L, from Q − min(Q, M − P_K − S_K) to min(Q, P_K). The
   * loop over j counts every vGPU, K included, as written; K holds none of the slots outside its range.
   */
  static int[] expansionCounts(SlotMap map, int k, int q) {
    SlotRange range = map.range(k);
    int first = firstLeft(map, range, q);
    int last = Math.min(q, range.start());
    List<Integer> counts = new ArrayList<>();
    for (int i = first; i <= last; i++) {
      int lcount = map.occupied(range.start() - i, range.start(), SlotMap.NONE);
      int rcount = map.occupied(range.end(), range.end() + q - i, SlotMap.NONE);
      counts.add(lcount + rcount);
    }
    return counts.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Lines (3)-(11) of Reduction: the count of every candidate L from 0 to Q, over the vGPUs j ≠ K. */
  static int[] reductionCounts(SlotMap map, int k, int q) {
    SlotRange range = map.range(k);
    int[] counts = new int[q + 1];
    for (int i = 0; i <= q; i++) {
      int lcount = map.occupied(range.start(), range.start() + i, k);
      int rcount = map.occupied(range.end() + i - q, range.end(), k);
      counts[i] = lcount + rcount;
    }
    return counts;
  }

  /**
   * The smallest L: what the end of the map leaves no room for at the right must go to the left. The end is M, or
   * while the host withdraws the top slots (a memory-pressure fault) the first withdrawn slot: a range grows into
   * usable slots only, and one that reaches past it grows to the left.
   */
  private static int firstLeft(SlotMap map, SlotRange range, int q) {
    return q - Math.min(q, Math.max(0, map.usable() - range.start() - range.size()));
  }

  private static void requirePositive(int q) {
    if (q < 1) {
      throw new IllegalArgumentException("Q must be >= 1, got " + q);
    }
  }
}
