package org.gpuemu.policies.gballoon;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The guests' high global graphics memory as gScale shares it (gballoon.txt §2.1, Figure 1): M slots, each vGPU's
 * contiguous range of them (ranges may overlap: the overlapping slots are shared), and the physical GTT, which holds
 * each slot's entries for one vGPU at a time (its owner), plus the one low range every guest shares.
 *
 * <p>Interpretations where the paper is silent:
 * <ul>
 *   <li>A new vGPU's range is placed where it overlaps the existing ranges least, counted as Algorithm 1 counts
 *       sharing (slots times the other vGPUs holding them), the lowest start on ties: the same aim as Algorithm 1
 *       and DymGPU [22]. With 384 MB (6 slots) nine vGPUs tile the 54 slots and the tenth is the first to share,
 *       Figure 2's "start to share the GPU memory from the point when the number of VMs reaches around 10".</li>
 *   <li>Ownership changes only when a vGPU is loaded ({@link #load}): a slot no vGPU loaded yet, a slot another vGPU
 *       loaded last, and a slot added to a range since its vGPU was last loaded are all copied at its next load.
 *       A slot taken from a range keeps its owner (its entries stay in the physical GTT until overwritten).</li>
 * </ul>
 */
public final class SlotMap {
  /** Owner of a slot no vGPU has loaded yet; also "no vGPU excepted" in {@link #occupied}. */
  public static final int NONE = -1;

  private final int slots;
  /** Slots [usable, slots) are withdrawn by the host (a memory-pressure fault): no guest can use or grow into them. */
  private int usable;
  private final SortedMap<Integer, SlotRange> ranges = new TreeMap<>();
  private final int[] owners;
  private int lowOwner = NONE;
  /** The vGPU loaded last and its range then (what the physical GTT must still hold for it). */
  private int loaded = NONE;
  private SlotRange loadedRange;

  /** An empty map of {@code slots} slots (M). */
  public SlotMap(int slots) {
    if (slots < 1) {
      throw new IllegalArgumentException("a slot map needs at least one slot, got " + slots);
    }
    this.slots = slots;
    this.usable = slots;
    this.owners = new int[slots];
    Arrays.fill(owners, NONE);
  }

  /** M: the number of slots. */
  public int slots() {
    return slots;
  }

  /**
   * The slots guests can use now: all {@link #slots} but while the host has withdrawn the top ones (a memory-pressure
   * fault: slots [usable, M) are the host's until it heals).
   */
  public int usable() {
    return usable;
  }

  /** The host withdraws every slot from {@code usable} on ({@code usable == slots()}: it gives them all back). */
  public void withdrawFrom(int usable) {
    if (usable < 0 || usable > slots) {
      throw new IllegalArgumentException("usable slots must be in [0, " + slots + "], got " + usable);
    }
    this.usable = usable;
  }

  /** How many of {@code range}'s slots guests can use now (those below {@link #usable}). */
  public int usableIn(SlotRange range) {
    return Math.max(0, Math.min(range.end(), usable) - range.start());
  }

  /** Every vGPU's range, by vGPU. */
  public SortedMap<Integer, SlotRange> ranges() {
    return Collections.unmodifiableSortedMap(new TreeMap<>(ranges));
  }

  /** The range of {@code vm}. */
  public SlotRange range(int vm) {
    SlotRange range = ranges.get(vm);
    if (range == null) {
      throw new IllegalArgumentException("vGPU " + vm + " has no slots; known " + ranges.keySet());
    }
    return range;
  }

  /**
   * The slots in [from, to) times the vGPUs other than {@code except} whose ranges hold them: Algorithm 1's Lcount
   * (or Rcount) summed over j. Slots outside the map count nothing.
   */
  public int occupied(int from, int to, int except) {
    int count = 0;
    for (SlotRange range : othersThan(except)) {
      count += Math.max(0, Math.min(to, range.end()) - Math.max(from, range.start()));
    }
    return count;
  }

  /** How many ranges hold {@code slot}. */
  public int holders(int slot) {
    return occupied(slot, slot + 1, NONE);
  }

  /** Slots held by two ranges or more. */
  public int sharedSlots() {
    int shared = 0;
    for (int slot = 0; slot < slots; slot++) {
      shared += holders(slot) > 1 ? 1 : 0;
    }
    return shared;
  }

  /** Places a new vGPU's range of {@code size} slots where it overlaps the others least (lowest start on ties). */
  public SlotRange place(int vm, int size) {
    if (size < 1 || size > slots) {
      throw new IllegalArgumentException("vGPU " + vm + " cannot have " + size + " of " + slots + " slots");
    }
    int best = 0;
    int least = Integer.MAX_VALUE;
    for (int start = 0; start + size <= slots; start++) {
      int overlap = occupied(start, start + size, NONE);
      if (overlap < least) {
        least = overlap;
        best = start;
      }
    }
    SlotRange range = new SlotRange(best, size);
    put(vm, range);
    return range;
  }

  /**
   * Places a new vGPU's range of {@code size} slots apart from the others, for ranges that will grow (gBalloon):
   * where it overlaps the others least, as {@link #place}; when it can overlap nothing, at the start on the grid of
   * {@code size} slots (0, size, 2·size, ...; any free start if no grid start is free) that is farthest from every
   * other range (the most free slots between it and its nearer neighbour; the map's ends are not neighbours), lowest
   * start on ties. Six-slot ranges take the starts 0, 48, 24, 12, 36, 6, ...: the first few have free slots on both
   * sides to grow into without sharing, and nine still tile the 54 slots as {@link #place} tiles them.
   */
  public SlotRange placeSpread(int vm, int size) {
    if (size < 1 || size > slots) {
      throw new IllegalArgumentException("vGPU " + vm + " cannot have " + size + " of " + slots + " slots");
    }
    boolean freeOnGrid = false;
    for (int start = 0; start + size <= slots; start += size) {
      freeOnGrid |= occupied(start, start + size, NONE) == 0;
    }
    int best = -1;
    int farthest = -1;
    for (int start = 0; start + size <= slots; start++) {
      if (occupied(start, start + size, NONE) > 0 || (freeOnGrid && start % size != 0)) continue;
      int room = room(start, start + size);
      if (room > farthest) {
        farthest = room;
        best = start;
      }
    }
    if (best < 0) {
      return place(vm, size);
    }
    SlotRange range = new SlotRange(best, size);
    put(vm, range);
    return range;
  }

  /** Free slots between [from, to) and the nearest range on either side ({@link Integer#MAX_VALUE}: none). */
  private int room(int from, int to) {
    int room = Integer.MAX_VALUE;
    for (SlotRange r : ranges.values()) {
      if (r.end() <= from) {
        room = Math.min(room, from - r.end());
      } else if (r.start() >= to) {
        room = Math.min(room, r.start() - to);
      }
    }
    return room;
  }

  /** Gives a new vGPU exactly {@code range} (a paper's figure, a test). */
  public void put(int vm, SlotRange range) {
    if (ranges.containsKey(vm)) {
      throw new IllegalArgumentException("vGPU " + vm + " already has slots " + ranges.get(vm));
    }
    ranges.put(vm, inside(vm, range));
  }

  /** Grows {@code vm}'s range by {@code left} slots before it and {@code right} after it. */
  public SlotRange grow(int vm, int left, int right) {
    return resize(vm, range(vm).grown(left, right));
  }

  /** Shrinks {@code vm}'s range by {@code left} slots at its start and {@code right} at its end. */
  public SlotRange shrink(int vm, int left, int right) {
    return resize(vm, range(vm).shrunk(left, right));
  }

  /** What loading {@code vm}'s vGPU into the physical GTT would copy now (changes nothing). */
  public CopySet copySet(int vm) {
    SlotRange range = range(vm);
    List<Integer> copied = new ArrayList<>();
    for (int slot = range.start(); slot < range.end(); slot++) {
      if (owners[slot] != vm) {
        copied.add(slot);
      }
    }
    return new CopySet(vm, copied, lowOwner != vm);
  }

  /** A GPU context switch to {@code vm}: its {@link #copySet}, after which the physical GTT holds its entries. */
  public CopySet load(int vm) {
    CopySet set = copySet(vm);
    set.slots().forEach(slot -> owners[slot] = vm);
    lowOwner = vm;
    loaded = vm;
    loadedRange = range(vm);
    return set;
  }

  /** The vGPU whose entries the physical GTT holds for {@code slot}, or {@link #NONE}. */
  public int owner(int slot) {
    return owners[slot];
  }

  /** The guest whose entries the physical GTT holds for the shared low range, or {@link #NONE}. */
  public int lowOwner() {
    return lowOwner;
  }

  /**
   * Violations of the map's own rules (empty when consistent): ranges inside the map, owners known, the low range
   * and every slot the last loaded vGPU held when it was loaded (and still holds) owned by it: the physical GTT
   * holds the running context's entries. Checked at the end of every run (the run's invariants).
   */
  public List<String> checkInvariants() {
    List<String> found = new ArrayList<>();
    ranges.forEach((vm, range) -> {
      if (range.end() > slots) {
        found.add("vGPU " + vm + " has slots " + range + " beyond the " + slots + " slots");
      }
    });
    for (int slot = 0; slot < slots; slot++) {
      if (owners[slot] != NONE && !ranges.containsKey(owners[slot])) {
        found.add("slot " + slot + " is owned by unknown vGPU " + owners[slot]);
      }
    }
    if (lowOwner != NONE && !ranges.containsKey(lowOwner)) {
      found.add("the low range is owned by unknown vGPU " + lowOwner);
    }
    if (lowOwner != loaded) {
      found.add("the low range is owned by vGPU " + lowOwner + ", the last loaded is " + loaded);
    }
    if (loaded != NONE && ranges.containsKey(loaded)) {
      // the running context's entries are in place: every slot it held when loaded and still holds is its own
      SlotRange now = ranges.get(loaded);
      for (int slot = Math.max(now.start(), loadedRange.start()); slot < Math.min(now.end(), loadedRange.end());
          slot++) {
        if (owners[slot] != loaded) {
          found.add("slot " + slot + " of the loaded vGPU " + loaded + " is owned by " + owners[slot]);
        }
      }
    }
    return found;
  }

  private SlotRange resize(int vm, SlotRange range) {
    range(vm);
    ranges.put(vm, inside(vm, range));
    return range;
  }

  private SlotRange inside(int vm, SlotRange range) {
    if (range.end() > slots) {
      throw new IllegalArgumentException("vGPU " + vm + ": range " + range + " beyond the " + slots + " slots");
    }
    return range;
  }

  private List<SlotRange> othersThan(int except) {
    List<SlotRange> others = new ArrayList<>();
    ranges.forEach((vm, range) -> {
      if (vm != except) {
        others.add(range);
      }
    });
    return others;
  }
}
