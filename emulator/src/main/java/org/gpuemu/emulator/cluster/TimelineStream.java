package org.gpuemu.emulator.cluster;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The merged {@code timeline.jsonl} of a cluster run, written as the rows arrive: rows by time, then by the VM's
 * order in the scenario (as one JVM writes them), through a reorder window instead of the whole run in memory.
 *
 * <p>Each running part (a node's hosts) has a mark: how far in model time its rows are complete. A part's rows come
 * in time order (its metrics hub writes a period's rows after the one before), so every row before the newest row
 * it sent is in; and the rows of a period reach the node's report a moment after the model passed it, so a
 * report's model time is complete by the next report ({@link #report}). A row is written once it is before every
 * open part's mark; a part that ends or is lost no longer holds the window back. So the window holds about two
 * report intervals of rows whatever the run's length. If it grows past {@code capacity} rows (a node lagging far
 * behind the others), its oldest rows are written anyway; a row arriving before one already written is then written
 * where it arrives and counted ({@link #late}): the file says how ordered it is, never drops a row.
 */
final class TimelineStream implements AutoCloseable {
  /** Rows the window holds at most (about 30 MB of rows of 157 bytes): a bound, not a size it normally reaches. */
  static final int CAPACITY = 200_000;

  private static final Pattern TIME = Pattern.compile("\\{\"t_s\":([-0-9.Ee]+)");
  private static final Pattern VM = Pattern.compile("\"vm\":\"((?:[^\"\\\\]|\\\\.)*)\"");

  private record Row(long atNanos, int vm, long seq, String line) {}

  private record Mark(long rowNanos, long reportedNanos, long previousReportNanos) {
    long completeNanos() {
      return Math.max(rowNanos, previousReportNanos);
    }
  }

  private final BufferedWriter out;
  private final Map<String, Integer> vmOrder;
  private final int capacity;
  private final PriorityQueue<Row> window = new PriorityQueue<>((a, b) -> a.atNanos != b.atNanos
      ? Long.compare(a.atNanos, b.atNanos) : a.vm != b.vm ? Integer.compare(a.vm, b.vm) : Long.compare(a.seq, b.seq));
  private final Map<String, Mark> open = new HashMap<>();
  private long seq;
  private long writtenThrough = Long.MIN_VALUE;
  private Row lastWritten;
  private long rows;
  private long late;
  private int peak;
  private boolean closed;

  private final java.util.function.Consumer<String> tap;

  TimelineStream(Path file, Map<String, Integer> vmOrder, int capacity) throws IOException {
    this(file, vmOrder, capacity, row -> { });
  }

  /** As above; {@code tap} sees every row as it is written (the live dashboard), on the writer's thread. */
  TimelineStream(Path file, Map<String, Integer> vmOrder, int capacity, java.util.function.Consumer<String> tap)
      throws IOException {
    this.tap = tap;
    this.out = Files.newBufferedWriter(file);
    this.vmOrder = Map.copyOf(vmOrder);
    this.capacity = capacity;
  }

  /** A part starts: its rows begin at {@code fromNanos} of the run's model time (0, or where it restarted). */
  synchronized void open(String part, long fromNanos) {
    open.put(part, new Mark(fromNanos, fromNanos, fromNanos));
  }

  /** A part's report: its rows since the last one and the model time it had reached. */
  synchronized void report(String part, java.util.List<String> lines, long atNanos) {
    if (closed) return; // a report with no rows after the part's end: every row it sent was in before the close
    Mark m = open.get(part);
    long newest = m == null ? Long.MIN_VALUE : m.rowNanos();
    for (String line : lines) {
      Row r = row(line);
      newest = Math.max(newest, r.atNanos());
      add(r);
    }
    if (m != null) open.put(part, new Mark(newest, Math.max(m.reportedNanos(), atNanos), m.reportedNanos()));
    flush();
  }

  /** A part ended with {@code lines}, the rows no report carried, or was lost (none): it holds nothing back. */
  synchronized void close(String part, java.util.List<String> lines) {
    for (String line : lines) add(row(line));
    open.remove(part);
    flush();
  }

  /** Writes every row left; the file is complete. */
  @Override public synchronized void close() throws IOException {
    if (closed) return;
    closed = true;
    open.clear();
    flush();
    out.close();
  }

  /** Rows written so far. */
  synchronized long rows() {
    return rows;
  }

  /** Rows written after a row that comes after them in the file's order (the window overflowed). */
  synchronized long late() {
    return late;
  }

  /** The most rows the window held at once. */
  synchronized int peak() {
    return peak;
  }

  private void add(Row r) {
    window.add(r);
    peak = Math.max(peak, window.size());
  }

  private void flush() {
    long through = Long.MAX_VALUE;
    for (Mark m : open.values()) through = Math.min(through, m.completeNanos());
    while (!window.isEmpty() && (window.peek().atNanos() < through || window.size() > capacity)) {
      write(window.poll());
    }
    try {
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void write(Row r) {
    if (lastWritten != null && window.comparator().compare(r, lastWritten) < 0) late++;
    lastWritten = r;
    writtenThrough = Math.max(writtenThrough, r.atNanos());
    try {
      out.write(r.line());
      out.write('\n');
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    rows++;
    tap.accept(r.line());
  }

  private Row row(String line) {
    Matcher t = TIME.matcher(line);
    if (!t.lookingAt()) throw new IllegalArgumentException("a timeline row without t_s first: " + line);
    Matcher v = VM.matcher(line);
    int vm = v.find() ? vmOrder.getOrDefault(v.group(1), -1) : -1;
    return new Row(Math.round(Double.parseDouble(t.group(1)) * 1e9), vm, seq++, line);
  }
}
