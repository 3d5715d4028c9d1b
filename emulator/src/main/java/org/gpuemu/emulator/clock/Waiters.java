package org.gpuemu.emulator.clock;

import java.util.Arrays;

/**
 * The waits registered at a {@link Frontier}, earliest level first: a binary min-heap in parallel primitive arrays
 * (level, waiter, token), so that a wait allocates nothing. A {@code TreeMap<Level, List<Waiter>>} took a level, a
 * list, its array and a tree node per wait. Waits of one level come out in no particular order (each wakes its own
 * inbox; the order of wake-ups decides nothing in the model). Not thread-safe: the frontier's lock guards it.
 */
final class Waiters {
  private long[] stamps = new long[16];
  private int[] generations = new int[16];
  private Frontier.Waiter[] waiters = new Frontier.Waiter[16];
  private long[] tokens = new long[16];
  private int size;

  boolean isEmpty() {
    return size == 0;
  }

  int size() {
    return size;
  }

  /** Whether the earliest wait's level is at most ({@code stamp}, {@code generation}); false when there is none. */
  boolean firstAtOrBefore(long stamp, int generation) {
    return size > 0 && Frontier.compare(stamps[0], generations[0], stamp, generation) <= 0;
  }

  void add(long stamp, int generation, Frontier.Waiter waiter, long token) {
    if (size == stamps.length) {
      int n = 2 * size;
      stamps = Arrays.copyOf(stamps, n);
      generations = Arrays.copyOf(generations, n);
      waiters = Arrays.copyOf(waiters, n);
      tokens = Arrays.copyOf(tokens, n);
    }
    int i = size++;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (Frontier.compare(stamps[parent], generations[parent], stamp, generation) <= 0) break;
      move(parent, i);
      i = parent;
    }
    set(i, stamp, generation, waiter, token);
  }

  /** The earliest wait's waiter (call {@link #firstToken} before {@link #removeFirst}). */
  Frontier.Waiter firstWaiter() {
    return waiters[0];
  }

  long firstToken() {
    return tokens[0];
  }

  void removeFirst() {
    size--;
    long stamp = stamps[size];
    int generation = generations[size];
    Frontier.Waiter waiter = waiters[size];
    long token = tokens[size];
    waiters[size] = null;
    if (size == 0) return;
    int i = 0;
    int half = size >>> 1;
    while (i < half) {
      int child = 2 * i + 1;
      int right = child + 1;
      if (right < size && Frontier.compare(stamps[right], generations[right], stamps[child], generations[child]) < 0) {
        child = right;
      }
      if (Frontier.compare(stamp, generation, stamps[child], generations[child]) <= 0) break;
      move(child, i);
      i = child;
    }
    set(i, stamp, generation, waiter, token);
  }

  private void move(int from, int to) {
    stamps[to] = stamps[from];
    generations[to] = generations[from];
    waiters[to] = waiters[from];
    tokens[to] = tokens[from];
  }

  private void set(int i, long stamp, int generation, Frontier.Waiter waiter, long token) {
    stamps[i] = stamp;
    generations[i] = generation;
    waiters[i] = waiter;
    tokens[i] = token;
  }
}
