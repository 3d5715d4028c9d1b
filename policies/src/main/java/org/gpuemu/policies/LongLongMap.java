package org.gpuemu.policies;

import java.util.Arrays;

/**
 * A map from {@code long} to {@code long} without boxing, for the ids the model keeps per request in flight (a
 * {@code HashMap<Long, Long>} costs a key object, often a value object and a node for every request): open addressing
 * with linear probing, Fibonacci hashing, backward-shift deletion (no tombstones), at most half full. Used as a set
 * with a constant value. Its iteration order is not defined: {@link #sortedKeys} for an order. Not thread-safe.
 * {@link Long#MIN_VALUE} is not a valid key (it marks a free slot).
 */
public final class LongLongMap {
  private static final long FREE = Long.MIN_VALUE;
  private static final long FIBONACCI = 0x9E3779B97F4A7C15L;

  private long[] keys;
  private long[] values;
  /** 64 minus log2 of the capacity: a hash's top bits pick its slot. */
  private int shift;
  private int size;

  public LongLongMap() {
    allocate(16);
  }

  public int size() {
    return size;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  public boolean containsKey(long key) {
    return slotOf(key) >= 0;
  }

  /** The value of {@code key}, or {@code absent} when it has none. */
  public long get(long key, long absent) {
    int i = slotOf(key);
    return i >= 0 ? values[i] : absent;
  }

  /** Maps {@code key} to {@code value}; true when {@code key} was new. */
  public boolean put(long key, long value) {
    if (key == FREE) throw new IllegalArgumentException("Long.MIN_VALUE is not a valid key");
    int i = find(key);
    values[i] = value;
    if (keys[i] == key) return false;
    keys[i] = key;
    if (++size * 2 > keys.length) grow();
    return true;
  }

  /** Removes {@code key}; its value, or {@code absent} when it had none. */
  public long remove(long key, long absent) {
    int i = slotOf(key);
    if (i < 0) return absent;
    long value = values[i];
    delete(i);
    return value;
  }

  /** Removes {@code key}; true when it was there. */
  public boolean remove(long key) {
    int i = slotOf(key);
    if (i < 0) return false;
    delete(i);
    return true;
  }

  /** The keys in ascending order (a new array). */
  public long[] sortedKeys() {
    long[] out = new long[size];
    int n = 0;
    for (long k : keys) {
      if (k != FREE) out[n++] = k;
    }
    Arrays.sort(out);
    return out;
  }

  /** The slot holding {@code key}, or -1. */
  private int slotOf(long key) {
    int i = find(key);
    return key != FREE && keys[i] == key ? i : -1;
  }

  /** The slot holding {@code key}, or the free slot where it would go. */
  private int find(long key) {
    int mask = keys.length - 1;
    int i = home(key);
    while (keys[i] != key && keys[i] != FREE) i = (i + 1) & mask;
    return i;
  }

  private int home(long key) {
    return (int) ((key * FIBONACCI) >>> shift);
  }

  /**
   * Frees slot {@code i}, moving back each later entry of its run that may fill the gap (one whose home slot is not
   * cyclically after the gap), so that every entry stays reachable from its home slot without tombstones.
   */
  private void delete(int i) {
    int mask = keys.length - 1;
    int gap = i;
    for (int j = (i + 1) & mask; keys[j] != FREE; j = (j + 1) & mask) {
      if (((j - home(keys[j])) & mask) >= ((j - gap) & mask)) {
        keys[gap] = keys[j];
        values[gap] = values[j];
        gap = j;
      }
    }
    keys[gap] = FREE;
    size--;
  }

  private void grow() {
    long[] oldKeys = keys;
    long[] oldValues = values;
    allocate(oldKeys.length * 2);
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldKeys[i] == FREE) continue;
      int j = find(oldKeys[i]);
      keys[j] = oldKeys[i];
      values[j] = oldValues[i];
    }
  }

  private void allocate(int capacity) {
    keys = new long[capacity];
    values = new long[capacity];
    Arrays.fill(keys, FREE);
    shift = 64 - Integer.numberOfTrailingZeros(capacity);
  }
}
