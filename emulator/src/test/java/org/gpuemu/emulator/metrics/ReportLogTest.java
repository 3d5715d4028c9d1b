package org.gpuemu.emulator.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ReportLogTest {

  /** What a drain handed over, in order. */
  private static final class Seen implements ReportLog.Entries {
    final List<long[]> entries = new ArrayList<>();

    @Override public void entry(long a, long b) {
      entries.add(new long[] {a, b});
    }
  }

  @Test
  void drain_handsOverEntriesBelowTheLevel_inOrder_andLeavesTheRest() {
    ReportLog log = new ReportLog();
    log.append(10, 1, 100, -1);
    log.append(10, 3, 101, 7);
    log.append(20, 1, 102, 0);
    log.append(30, 1, 103, 0);
    Seen seen = new Seen();
    // below (20, 1): the two at model time 10, whatever their generation; not the one at (20, 1) itself
    assertEquals(2, log.drain(20, 1, false, seen));
    assertEquals(100, seen.entries.get(0)[0]);
    assertEquals(-1, seen.entries.get(0)[1]);
    assertEquals(101, seen.entries.get(1)[0]);
    assertEquals(7, seen.entries.get(1)[1]);
    assertEquals(2, log.pending());
    // inclusive: the one at (20, 1) too, and the drain stops at the first entry past the level
    assertEquals(1, log.drain(20, 1, true, seen));
    assertEquals(102, seen.entries.get(2)[0]);
    assertEquals(0, log.drain(20, 1, true, seen), "nothing more at or below (20, 1)");
    assertEquals(1, log.drain(Long.MAX_VALUE, Integer.MAX_VALUE, true, seen));
    assertEquals(103, seen.entries.get(3)[0]);
    assertEquals(0, log.pending());
  }

  @Test
  void growing_keepsTheUnreadEntriesInOrder_acrossTheRingsWrap() {
    ReportLog log = new ReportLog();
    Seen seen = new Seen();
    long next = 0;
    // the consumed count is not a multiple of the ring when it grows, so unread entries wrap around the old ring
    for (int round = 0; round < 6; round++) {
      for (int i = 0; i < 7 + 9 * round; i++, next++) log.append(next, 1, next, 2 * next);
      log.drain(next - 3, 0, false, seen); // leaves the last three for the next round
    }
    log.drain(Long.MAX_VALUE, Integer.MAX_VALUE, true, seen);
    assertEquals(next, seen.entries.size());
    for (int i = 0; i < next; i++) {
      assertEquals(i, seen.entries.get(i)[0], "entry " + i);
      assertEquals(2L * i, seen.entries.get(i)[1]);
    }
  }

  @Test
  void steadyState_theRingStopsGrowing() {
    ReportLog log = new ReportLog();
    ReportLog.Entries none = (a, b) -> { };
    long t = 0;
    for (int period = 0; period < 100; period++) {
      for (int i = 0; i < 12; i++) log.append(t++, 1, i, 0);
      log.drain(t, 0, false, none);
    }
    assertEquals(16 * ReportLog.WIDTH, log.capacity(), "12 entries a period fit the first ring of 16 entries");
  }

  /**
   * A writer thread appends entries at increasing model times and, after each, says it is done with that time (as an
   * event is done in its frontier once handled); the reader drains below the times done, as the hub below a level
   * nothing precedes any more. Every entry below the bound is there when the reader drains (none comes later), each
   * is handed over once, in order, while the writer goes on appending past the bound and growing the ring.
   */
  @Test
  void concurrentWriterAndReader_everyEntryBelowTheBoundIsSeenOnce_inOrder() throws InterruptedException {
    final int n = 200_000;
    ReportLog log = new ReportLog();
    AtomicLong doneUpTo = new AtomicLong(-1);
    Thread writer = new Thread(() -> {
      for (int i = 0; i < n; i++) {
        log.append(i, 1, i, -i);
        doneUpTo.set(i);
      }
    }, "report-log-writer");
    long[] expected = {0};
    boolean[] inOrder = {true};
    ReportLog.Entries check = (a, b) -> {
      if (a != expected[0] || b != -expected[0]) inOrder[0] = false;
      expected[0]++;
    };
    writer.start();
    long drains = 0;
    while (expected[0] < n) {
      long bound = doneUpTo.get() + 1; // every entry at a time below it was written before it was done
      log.drain(bound, 0, false, check);
      drains++;
      assertTrue(expected[0] >= bound, "an entry below " + bound + " was missing from the drain: seen "
          + expected[0]);
    }
    writer.join();
    assertTrue(inOrder[0], "entries out of order, repeated or torn");
    assertEquals(n, expected[0]);
    assertEquals(0, log.pending());
    assertTrue(drains > 0);
  }
}
