package org.gpuemu.policies.gballoon;

/**
 * A vGPU's high memory: {@code size} contiguous slots from {@code start} (P_K and S_K of Algorithm 1, slots counted
 * from 0). gBalloon only ever grows or shrinks a range at its two ends (§3.3, §6).
 */
public record SlotRange(int start, int size) {
  public SlotRange {
    if (start < 0 || size < 1) {
      throw new IllegalArgumentException("a slot range needs start >= 0 and size >= 1, got " + start + "+" + size);
    }
  }

  /** One past the last slot. */
  public int end() {
    return start + size;
  }

  public boolean contains(int slot) {
    return slot >= start && slot < end();
  }

  /** The range with {@code left} slots added before it and {@code right} after it. */
  public SlotRange grown(int left, int right) {
    return new SlotRange(start - left, size + left + right);
  }

  /** The range with {@code left} slots taken from its start and {@code right} from its end. */
  public SlotRange shrunk(int left, int right) {
    return new SlotRange(start + left, size - left - right);
  }

  @Override
  public String toString() {
    return "[" + start + ", " + end() + ")";
  }
}
