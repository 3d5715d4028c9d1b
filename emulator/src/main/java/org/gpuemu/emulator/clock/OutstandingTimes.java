package org.gpuemu.emulator.clock;

import java.util.Arrays;

/**
 * The model times that have outstanding events, for {@link Frontier}: each time's counts ({@link Stamp}) found by
 * its time in an open-addressing hash table (linear probing, Fibonacci hashing) and ordered by time in a binary
 * min-heap whose entries know their place, so that any one leaves in O(log n); an entry that leaves is kept for the
 * next new time. A {@code TreeMap<Long, Stamp>} did the same with a boxed key and a tree node for every model time
 * (the allocation profile in docs/performance.md). Not thread-safe: the frontier's lock guards it.
 */
final class OutstandingTimes {

  /** The outstanding events of one model time, by generation. */
  static final class Stamp {
    long stamp;
    int[] byGeneration = new int[8];
    int total;
    /** No outstanding event below this generation. */
    int first = Integer.MAX_VALUE;
    /** Its place in the heap. */
    private int heapIndex;
    /** The next free entry, while this one is free. */
    private Stamp nextFree;

    void add(int generation) {
      if (generation >= byGeneration.length) {
        byGeneration = Arrays.copyOf(byGeneration, Math.max(generation + 1, 2 * byGeneration.length));
      }
      byGeneration[generation]++;
      total++;
      if (generation < first) first = generation;
    }

    /** Returns whether the earliest generation moved (or none is left). */
    boolean done(int generation) {
      if (generation >= byGeneration.length || byGeneration[generation] == 0) {
        throw new IllegalStateException("no outstanding event at (" + stamp + ", " + generation + ")");
      }
      byGeneration[generation]--;
      total--;
      if (generation != first || byGeneration[generation] > 0) return false;
      if (total == 0) {
        first = Integer.MAX_VALUE;
      } else {
        while (byGeneration[first] == 0) first++;
      }
      return true;
    }
  }

  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  /** The hash table: an entry per slot, null for an empty one; at most half full. */
  private Stamp[] slots = new Stamp[16];
  /** 64 less log2 of the table's length: a time's home slot is the top bits of its product with GOLDEN. */
  private int shift = 60;
  private Stamp[] heap = new Stamp[16];
  private int size;
  private Stamp free;

  /** The entry of model time {@code stamp}, or null. */
  Stamp get(long stamp) {
    int mask = slots.length - 1;
    for (int i = home(stamp); ; i = (i + 1) & mask) {
      Stamp s = slots[i];
      if (s == null || s.stamp == stamp) return s;
    }
  }

  /** A new entry for model time {@code stamp}, which has none, with no event counted yet. */
  Stamp create(long stamp) {
    Stamp s = free;
    if (s != null) {
      free = s.nextFree;
      s.nextFree = null;
    } else {
      s = new Stamp();
    }
    s.stamp = stamp;
    if (2 * (size + 1) > slots.length) grow();
    place(s);
    if (size == heap.length) heap = Arrays.copyOf(heap, 2 * size);
    heap[size] = s;
    s.heapIndex = size;
    size++;
    siftUp(s.heapIndex);
    return s;
  }

  /** Removes {@code s}, whose events are all done, and keeps it for reuse. */
  void remove(Stamp s) {
    unplace(s);
    int i = s.heapIndex;
    size--;
    Stamp last = heap[size];
    heap[size] = null;
    if (i != size) {
      heap[i] = last;
      last.heapIndex = i;
      siftDown(i);
      siftUp(last.heapIndex);
    }
    s.nextFree = free;
    free = s;
  }

  /** The earliest model time's entry, or null when there is none. */
  Stamp first() {
    return size == 0 ? null : heap[0];
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** How many model times have outstanding events. */
  int size() {
    return size;
  }

  /** Outstanding events over every model time. */
  long events() {
    long n = 0;
    for (int i = 0; i < size; i++) n += heap[i].total;
    return n;
  }

  private int home(long stamp) {
    return (int) ((stamp * GOLDEN) >>> shift);
  }

  private void place(Stamp s) {
    int mask = slots.length - 1;
    int i = home(s.stamp);
    while (slots[i] != null) i = (i + 1) & mask;
    slots[i] = s;
  }

  /** Takes {@code s} out of the table, moving back the entries after it that would no longer be found. */
  private void unplace(Stamp s) {
    int mask = slots.length - 1;
    int i = home(s.stamp);
    while (slots[i] != s) i = (i + 1) & mask;
    slots[i] = null;
    for (int j = (i + 1) & mask; slots[j] != null; j = (j + 1) & mask) {
      int k = home(slots[j].stamp);
      // the entry at j stays if its home lies cyclically in (i, j]
      boolean stays = i <= j ? i < k && k <= j : i < k || k <= j;
      if (!stays) {
        slots[i] = slots[j];
        slots[j] = null;
        i = j;
      }
    }
  }

  private void grow() {
    slots = new Stamp[2 * slots.length];
    shift--;
    for (int i = 0; i < size; i++) place(heap[i]);
  }

  private void siftUp(int i) {
    Stamp s = heap[i];
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      Stamp p = heap[parent];
      if (p.stamp <= s.stamp) break;
      heap[i] = p;
      p.heapIndex = i;
      i = parent;
    }
    heap[i] = s;
    s.heapIndex = i;
  }

  private void siftDown(int i) {
    Stamp s = heap[i];
    int half = size >>> 1;
    while (i < half) {
      int child = 2 * i + 1;
      Stamp c = heap[child];
      int right = child + 1;
      if (right < size && heap[right].stamp < c.stamp) {
        child = right;
        c = heap[child];
      }
      if (s.stamp <= c.stamp) break;
      heap[i] = c;
      c.heapIndex = i;
      i = child;
    }
    heap[i] = s;
    s.heapIndex = i;
  }
}
