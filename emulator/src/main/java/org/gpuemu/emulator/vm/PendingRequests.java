package org.gpuemu.emulator.vm;

import org.gpuemu.emulator.vm.VgpuRequests.Pending;

/**
 * The requests of one vGPU incarnation not finished yet (in the runtime's queue, the driver's buffer or on the GPU),
 * by id, in id order. Ids count up as the guest records requests, and requests mostly finish in that order, so they
 * are held in a ring of ascending ids: a binary search finds one, a removal at either end moves nothing and one in
 * between moves the shorter side. A map and a sorted set of ids cost a boxed id and a node or two per request.
 */
final class PendingRequests {
  private long[] ids = new long[16];
  private Pending[] items = new Pending[16];
  /** The slot of the oldest request. */
  private int head;
  private int size;

  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** Adds request {@code id}, newer than every one held. */
  void add(long id, Pending p) {
    if (size > 0 && id <= newestId()) throw new IllegalArgumentException("request " + id + " is not the newest");
    if (size == ids.length) grow();
    int slot = slot(size);
    ids[slot] = id;
    items[slot] = p;
    size++;
  }

  /** Request {@code id}, or null when it is not held. */
  Pending get(long id) {
    int i = indexOf(id);
    return i < 0 ? null : items[slot(i)];
  }

  boolean contains(long id) {
    return indexOf(id) >= 0;
  }

  /** Removes request {@code id}: it, or null when it was not held. */
  Pending remove(long id) {
    int i = indexOf(id);
    if (i < 0) return null;
    Pending p = items[slot(i)];
    if (i < size / 2) { // the older side moves up one place
      for (int k = i; k > 0; k--) move(k - 1, k);
      free(0);
      head = slot(1);
    } else { // the newer side moves down one place
      for (int k = i; k < size - 1; k++) move(k + 1, k);
      free(size - 1);
    }
    size--;
    return p;
  }

  /** The oldest id held; Long.MAX_VALUE when none. */
  long oldestId() {
    return size == 0 ? Long.MAX_VALUE : ids[head];
  }

  /** The newest id held; Long.MIN_VALUE when none. */
  long newestId() {
    return size == 0 ? Long.MIN_VALUE : ids[slot(size - 1)];
  }

  /** The id of the {@code i}-th request in id order (0: the oldest). */
  long idAt(int i) {
    return ids[slot(i)];
  }

  /** The {@code i}-th request in id order (0: the oldest). */
  Pending at(int i) {
    return items[slot(i)];
  }

  /** The place in id order of request {@code id}, or -1. */
  private int indexOf(long id) {
    int low = 0;
    int high = size - 1;
    while (low <= high) {
      int mid = (low + high) >>> 1;
      long found = ids[slot(mid)];
      if (found < id) {
        low = mid + 1;
      } else if (found > id) {
        high = mid - 1;
      } else {
        return mid;
      }
    }
    return -1;
  }

  private int slot(int i) {
    return (head + i) & (ids.length - 1);
  }

  private void move(int from, int to) {
    ids[slot(to)] = ids[slot(from)];
    items[slot(to)] = items[slot(from)];
  }

  private void free(int i) {
    items[slot(i)] = null;
  }

  private void grow() {
    long[] newIds = new long[ids.length * 2];
    Pending[] newItems = new Pending[ids.length * 2];
    for (int i = 0; i < size; i++) {
      newIds[i] = ids[slot(i)];
      newItems[i] = items[slot(i)];
    }
    ids = newIds;
    items = newItems;
    head = 0;
  }
}
