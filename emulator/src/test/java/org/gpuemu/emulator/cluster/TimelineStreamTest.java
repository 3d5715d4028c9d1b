package org.gpuemu.emulator.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The coordinator's merged timeline, streamed: two parts (nodes) report their rows as a cluster run's nodes do —
 * every report the rows since the last, the second node lagging one report behind the first, a period's rows split
 * over two reports — and the file is every row in the one-JVM order, while the window holds the same few rows
 * whether the run is 100 or 1,000 periods long (coordinator memory does not grow with the run's length).
 */
class TimelineStreamTest {
  @TempDir Path dir;

  private static final Map<String, Integer> ORDER = Map.of("a1", 0, "b1", 1, "a2", 2, "b2", 3);

  private static String row(long periodMillis, String vm) {
    return "{\"t_s\":" + periodMillis / 1000.0 + ",\"vm\":\"" + vm + "\",\"fps\":30.0}";
  }

  /** Runs {@code periods} periods of 100 ms through a stream; returns the window's peak. */
  private int run(int periods, Path file) throws Exception {
    try (TimelineStream s = new TimelineStream(file, ORDER, TimelineStream.CAPACITY)) {
      s.open("A", 0);
      s.open("B", 0);
      List<String> laggingB = new ArrayList<>();
      long reportedA = 0;
      // a report every 5 periods of model time (500 ms at time scale 1); the tap is a moment late, so a report
      // carries the rows of its periods but one VM's last row comes with the next report
      String heldA = null;
      for (int p = 1; p <= periods; p++) {
        List<String> a = new ArrayList<>();
        if (heldA != null) a.add(heldA);
        a.add(row(p * 100L, "a1"));
        heldA = row(p * 100L, "a2");
        laggingB.add(row(p * 100L, "b1"));
        laggingB.add(row(p * 100L, "b2"));
        if (p % 5 == 0) {
          s.report("A", a, p * 100_000_000L);
          heldA = null;
          s.report("A", List.of(row(p * 100L, "a2")), p * 100_000_000L);
          reportedA = p;
          // B lags: it reports the periods before its last five
          int keep = Math.min(laggingB.size(), 10);
          List<String> sent = new ArrayList<>(laggingB.subList(0, laggingB.size() - keep));
          laggingB.subList(0, laggingB.size() - keep).clear();
          long bAt = (p - 5) * 100_000_000L;
          s.report("B", sent, Math.max(0, bAt));
        } else {
          for (String r : a) s.report("A", List.of(r), (p - 1) * 100_000_000L);
        }
      }
      s.close("A", heldA == null ? List.of() : List.of(heldA));
      s.close("B", laggingB);
      assertEquals(0, s.late(), "no row out of order");
      assertEquals(4L * periods, s.rows());
      assertTrue(reportedA > 0);
      return s.peak();
    }
  }

  @Test
  void rowsOfTwoNodes_writtenInOneJvmOrder_windowFlatOverATenTimesLongerRun() throws Exception {
    int shortPeak = run(100, dir.resolve("short.jsonl"));
    int longPeak = run(1_000, dir.resolve("long.jsonl"));
    List<String> rows = Files.readAllLines(dir.resolve("long.jsonl"));
    List<String> sorted = new ArrayList<>(rows);
    sorted.sort(Comparator.<String>comparingDouble(r -> Double.parseDouble(r.substring(7, r.indexOf(','))))
        .thenComparing(r -> ORDER.get(r.substring(r.indexOf("\"vm\":\"") + 6, r.indexOf("\",\"fps")))));
    assertEquals(sorted, rows, "by time, then by the VM's order in the scenario");
    // B lags five periods, A reports every five: about 10 periods of 4 rows are held, whatever the length
    assertEquals(shortPeak, longPeak, "the window's peak does not grow with the run");
    assertTrue(longPeak <= 4 * 12, "a couple of report intervals of rows: " + longPeak);
  }

  /**
   * What the coordinator holds of a run, fed as the nodes feed it: two parts' progress reports through the watcher's
   * ledger into the stream, part A every period, part B every five periods with its last five periods' rows. Returns
   * the window's peak; checks on the way that the ledger keeps each report's counts and none of its rows.
   */
  private int viaLedger(int periods, Path file) throws Exception {
    try (TimelineStream s = new TimelineStream(file, ORDER, TimelineStream.CAPACITY)) {
      RunWatcher.Ledger ledger = new RunWatcher.Ledger(s);
      String a = RunWatcher.Ledger.key("A", List.of(0), 0);
      String b = RunWatcher.Ledger.key("B", List.of(1), 0);
      s.open(a, 0);
      s.open(b, 0);
      List<String> pendingB = new ArrayList<>();
      for (int p = 1; p <= periods; p++) {
        long at = p * 100_000_000L;
        ledger.report(new NodeAgent.Progress("A", List.of(0), 0, at,
            List.of(new NodeAgent.VmCount("a1", p, p, 0, 30.0, 0.5)), List.of(row(p * 100L, "a1"),
                row(p * 100L, "a2")), List.of()));
        pendingB.add(row(p * 100L, "b1"));
        pendingB.add(row(p * 100L, "b2"));
        if (p % 5 == 0) {
          ledger.report(new NodeAgent.Progress("B", List.of(1), 0, at,
              List.of(new NodeAgent.VmCount("b1", p, p, 0, 30.0, 0.5)), List.copyOf(pendingB), List.of()));
          pendingB.clear();
          assertTrue(ledger.last(b).rows().isEmpty(), "the ledger keeps B's counts, not its rows");
          assertEquals(p, ledger.last(b).vms().get(0).submitted(), "B's last counts");
        }
        assertTrue(ledger.last(a).rows().isEmpty(), "the ledger keeps A's counts, not its rows");
        assertEquals(at, ledger.last(a).atNanos(), "only A's last report is kept");
      }
      s.close(a, List.of());
      s.close(b, List.copyOf(pendingB));
      assertEquals(2L * periods, ledger.rows(a), "A's rows counted");
      assertEquals(4L * periods, s.rows(), "every row written");
      assertEquals(0, s.late());
      return s.peak();
    }
  }

  @Test
  void coordinatorsLedgerAndWindow_holdTheSameFewRows_overARunTenTimesLonger() throws Exception {
    int shortPeak = viaLedger(100, dir.resolve("short.jsonl"));
    int longPeak = viaLedger(1_000, dir.resolve("long.jsonl"));
    assertEquals(shortPeak, longPeak, "what the coordinator holds does not grow with the run");
    // B reports every five periods: the window holds the rows of B's interval (5 periods of 4 rows) and those at
    // B's last mark (a row at the mark itself waits: a later report may still bring one at the same time)
    assertEquals(4 * 6, longPeak, "one report interval of rows and the period at the mark");
  }

  @Test
  void overflowingWindow_writesTheOldestAnyway_andCountsRowsOutOfOrder() throws Exception {
    try (TimelineStream s = new TimelineStream(dir.resolve("t.jsonl"), ORDER, 3)) {
      s.open("A", 0);
      s.open("B", 0); // B never reports: only the bound moves the window
      s.report("A", List.of(row(100, "a1"), row(200, "a1"), row(300, "a1"), row(400, "a1")), 400_000_000L);
      assertEquals(1, s.rows(), "one row over the bound of 3 written");
      s.close("B", List.of(row(50, "b1")));
      assertEquals(1, s.late(), "B's row at 0.05 s came after A's at 0.1 s was written");
      s.close("A", List.of());
      assertEquals(5, s.rows(), "nothing dropped");
    }
  }
}
