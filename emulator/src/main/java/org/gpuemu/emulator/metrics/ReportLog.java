package org.gpuemu.emulator.metrics;

/**
 * One reporting actor's log of reports to the metrics hub: entries of the level of the event that made each (model
 * time and generation) and two values, appended by the actor and drained by the hub up to a level. One producer (the
 * actor, whose events run one at a time, on whichever thread) and one consumer (the hub, in whichever incarnation).
 *
 * <p>A ring of primitive longs, four per entry, whose capacity doubles when the writer finds it full: no allocation per
 * report once it has grown to what one metrics period holds. The writer publishes an entry with a release write of the
 * write count after writing its longs; the reader reads the count with an acquire read, then only the entries below
 * it, and publishes what it consumed with a release write of the read count, which the writer reads before reusing a
 * slot. Growing copies the unread entries into the larger array under the log's lock, which the reader also holds
 * while it drains, so it never reads an array the writer has left; the writer takes the lock only to grow.
 *
 * <p>An actor's events are handled in level order, so one log's levels never decrease: a drain stops at the first
 * entry past its bound, and what the writer appends meanwhile (later events, on another thread) is left for the next.
 */
final class ReportLog {
  /** Longs per entry: model time, generation, two values. */
  static final int WIDTH = 4;
  private static final int FIRST_CAPACITY = 16 * WIDTH;
  /** The ring of a log nothing was written to yet (an idle VM's), shared: its first entry makes its own. */
  private static final long[] NONE = new long[0];

  /** What a drain hands each entry to. */
  @FunctionalInterface
  interface Entries {
    void entry(long a, long b);
  }

  /** The ring: changed only under the lock; the writer reads its own, the reader reads it under the lock. */
  private long[] ring = NONE;
  /** Longs written, published by the writer (release) after the entry's longs. */
  private volatile long written;
  /** Longs consumed, published by the reader (release) after it read them. */
  private volatile long consumed;
  /** The writer's own copy of {@link #written}, and the last {@link #consumed} it read. */
  private long writtenHere;
  private long consumedSeen;

  /** The writer's side: appends ({@code stamp}, {@code generation}, {@code a}, {@code b}). */
  void append(long stamp, int generation, long a, long b) {
    long w = writtenHere;
    long[] r = ring;
    if (w + WIDTH - consumedSeen > r.length) {
      consumedSeen = consumed;
      if (w + WIDTH - consumedSeen > r.length) r = grow(w);
    }
    int mask = r.length - 1;
    int at = (int) (w & mask);
    r[at] = stamp;
    r[at + 1] = generation;
    r[at + 2] = a;
    r[at + 3] = b;
    writtenHere = w + WIDTH;
    written = w + WIDTH;
  }

  /** Doubles the ring (the first: {@link #FIRST_CAPACITY}) with the unread entries, below {@code w}, in place. */
  private synchronized long[] grow(long w) {
    long from = consumed;
    long[] old = ring;
    long[] bigger = new long[old.length == 0 ? FIRST_CAPACITY : 2 * old.length];
    for (long i = from; i < w; i++) bigger[(int) (i & (bigger.length - 1))] = old[(int) (i & (old.length - 1))];
    ring = bigger;
    consumedSeen = from;
    return bigger;
  }

  /**
   * The reader's side: hands every entry below level ({@code stamp}, {@code generation}) to {@code to}, in order, and
   * those at it too when {@code inclusive}; returns how many.
   */
  synchronized int drain(long stamp, int generation, boolean inclusive, Entries to) {
    long w = written;
    long[] r = ring;
    int mask = r.length - 1;
    long c = consumed;
    int n = 0;
    while (c < w) {
      int at = (int) (c & mask);
      long s = r[at];
      int g = (int) r[at + 1];
      int cmp = s != stamp ? Long.compare(s, stamp) : Integer.compare(g, generation);
      if (cmp > 0 || cmp == 0 && !inclusive) break;
      to.entry(r[at + 2], r[at + 3]);
      c += WIDTH;
      n++;
    }
    consumed = c;
    return n;
  }

  /** Entries written and not yet drained (diagnostics and tests). */
  long pending() {
    return (written - consumed) / WIDTH;
  }

  /** The ring's size in longs (tests: it stops growing). */
  synchronized int capacity() {
    return ring.length;
  }
}
