package org.gpuemu.policies.fairgv;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.NavigableSet;
import java.util.OptionalInt;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.IntPredicate;

/**
 * FairGV's fair queuing (fairgv.txt §3.2.1, Figure 4, §4.2): each vGPU has a weight w and a start tag S; after a
 * time quantum of execution length L its finish tag is F = S + L / w and its start tag becomes F. Active vGPUs are
 * kept in a sorted set by start tag (the paper's red-black tree), so the left-most one, the smallest start tag,
 * runs next; ties go to the lower vGPU index (Figure 4: "vGPU 1 is scheduled first when vGPUs have the same start
 * tags"). The global virtual time is the minimum start tag of the active vGPUs.
 *
 * <p>Interpretations:
 * <ul>
 *   <li>Tags are in nanoseconds of a weight-1 vGPU. L / w is an integer division whose remainder is carried per
 *       vGPU, so no nanosecond of charged time is lost to rounding.</li>
 *   <li>A waking vGPU gets S = max(S, virtual time). The paper says its start tag "is forced to have the current
 *       virtual time" and that it "cannot claim resources from its idle period"; Figure 4's vGPU 1 (S = 30 when it
 *       blocked, 35 when it woke) fits both readings. Setting S to the virtual time even when its own tag is larger
 *       would let a vGPU shed the time it was just charged by blocking for a moment, which work conserving makes
 *       vGPUs do all the time; the maximum is standard start-time fair queuing, the family §3.2.1 cites [30].</li>
 *   <li>When no vGPU is active the virtual time keeps its last value, so it never decreases; a vGPU that joins
 *       starts at the virtual time, inactive, as if it had just woken.</li>
 * </ul>
 */
public final class StartTags {
  private static final class Tag {
    final int vgpu;
    int weight;
    long start;
    /** Nanoseconds charged but not yet turned into start tag (less than one weight). */
    long remainder;
    boolean active;

    Tag(int vgpu, int weight, long start) {
      this.vgpu = vgpu;
      this.weight = weight;
      this.start = start;
    }
  }

  private final SortedMap<Integer, Tag> tags = new TreeMap<>();
  /** The active vGPUs by start tag: a tag is taken out before its start changes. */
  private final NavigableSet<Tag> active =
      new TreeSet<>(Comparator.<Tag>comparingLong(t -> t.start).thenComparingInt(t -> t.vgpu));
  private long virtualTime;
  private long virtualTimeAtLastCheck;

  /** A vGPU joins, inactive, with its start tag at the virtual time. */
  public void join(int vgpu, int weight) {
    if (weight <= 0) {
      throw new IllegalArgumentException("fair queuing: vGPU " + vgpu + " has weight " + weight + "; weights are > 0");
    }
    if (tags.putIfAbsent(vgpu, new Tag(vgpu, weight, virtualTime)) != null) {
      throw new IllegalArgumentException("fair queuing: vGPU " + vgpu + " joined twice");
    }
  }

  /**
   * The vGPU's weight from its next charge on: its start tag stays (what it ran so far was charged at the old
   * weight), and the nanoseconds charged but not yet turned into tag are turned at the new one.
   */
  public void setWeight(int vgpu, int weight) {
    if (weight <= 0) {
      throw new IllegalArgumentException("fair queuing: vGPU " + vgpu + " given weight " + weight + "; weights are > 0");
    }
    Tag t = tag(vgpu);
    boolean wasActive = t.active && active.remove(t);
    t.weight = weight;
    t.start += t.remainder / weight;
    t.remainder %= weight;
    if (wasActive) active.add(t);
    updateVirtualTime();
  }

  /** A vGPU leaves. */
  public void leave(int vgpu) {
    active.remove(tag(vgpu));
    tags.remove(vgpu);
    updateVirtualTime();
  }

  /** A blocked vGPU became runnable: its start tag is raised to the virtual time if it is behind. */
  public void wake(int vgpu) {
    Tag t = tag(vgpu);
    if (t.active) return;
    t.start = Math.max(t.start, virtualTime);
    t.active = true;
    active.add(t);
    updateVirtualTime();
  }

  /** A vGPU blocked (nothing left to run): it leaves the sorted set and no longer holds the virtual time back. */
  public void block(int vgpu) {
    Tag t = tag(vgpu);
    if (!t.active) return;
    active.remove(t);
    t.active = false;
    updateVirtualTime();
  }

  /** A quantum of execution length {@code nanos} ended: F = S + L / w becomes the start tag; returns F. */
  public long charge(int vgpu, long nanos) {
    if (nanos < 0) {
      throw new IllegalArgumentException("fair queuing: vGPU " + vgpu + " charged a negative " + nanos + " ns");
    }
    Tag t = tag(vgpu);
    boolean wasActive = t.active && active.remove(t);
    long owed = t.remainder + nanos;
    t.start += owed / t.weight;
    t.remainder = owed % t.weight;
    if (wasActive) active.add(t);
    updateVirtualTime();
    return t.start;
  }

  /** The active vGPU with the smallest start tag (ties: lowest index); empty when none is active. */
  public OptionalInt first() {
    return first(v -> true);
  }

  /** The active vGPU with the smallest start tag among those {@code eligible} accepts; empty when none is. */
  public OptionalInt first(IntPredicate eligible) {
    for (Tag t : active) {
      if (eligible.test(t.vgpu)) return OptionalInt.of(t.vgpu);
    }
    return OptionalInt.empty();
  }

  /** The global virtual time: the minimum start tag of the active vGPUs (the last one when none is active). */
  public long virtualTime() {
    return virtualTime;
  }

  /** A vGPU's start tag, in weight-1 nanoseconds. */
  public long startTag(int vgpu) {
    return tag(vgpu).start;
  }

  /** Whether the vGPU is active (runnable or running). */
  public boolean isActive(int vgpu) {
    return tag(vgpu).active;
  }

  /** Whether the vGPU has joined. */
  public boolean contains(int vgpu) {
    return tags.containsKey(vgpu);
  }

  /** The vGPU's weight. */
  public int weight(int vgpu) {
    return tag(vgpu).weight;
  }

  /** Broken invariants: the virtual time decreased, or an active tag is behind it, or the set is inconsistent. */
  public List<String> checkInvariants() {
    List<String> found = new ArrayList<>();
    if (virtualTime < virtualTimeAtLastCheck) {
      found.add("fair queuing: virtual time decreased from " + virtualTimeAtLastCheck + " to " + virtualTime);
    }
    virtualTimeAtLastCheck = Math.max(virtualTimeAtLastCheck, virtualTime);
    for (Tag t : tags.values()) {
      if (t.active && t.start < virtualTime) {
        found.add("fair queuing: active vGPU " + t.vgpu + " has start tag " + t.start + " behind the virtual time "
            + virtualTime);
      }
      if (t.active != active.contains(t)) {
        found.add("fair queuing: vGPU " + t.vgpu + (t.active ? " is active but not" : " is blocked but")
            + " in the tree");
      }
    }
    return found;
  }

  private void updateVirtualTime() {
    if (!active.isEmpty()) {
      virtualTime = Math.max(virtualTime, active.first().start);
    }
  }

  private Tag tag(int vgpu) {
    Tag t = tags.get(vgpu);
    if (t == null) {
      throw new IllegalArgumentException("fair queuing: unknown vGPU " + vgpu);
    }
    return t;
  }
}
