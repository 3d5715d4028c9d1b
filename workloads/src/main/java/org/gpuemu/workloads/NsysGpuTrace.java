package org.gpuemu.workloads;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A CUDA GPU trace as Nsight Systems exports it: {@code nsys stats --report cuda_gpu_trace --format csv}. Columns are
 * found by name in the header, so both the older layout ({@code ...,Throughput (MBps),...,Device,Ctx,Strm,Name}) and
 * the newer ({@code ...,Throughput (MB/s),...,Device,Ctx,GreenCtx,Strm,Name}) are read; the columns used are
 * {@code Start}, {@code Duration}, {@code GrdX}, {@code GrdY}, {@code GrdZ}, {@code Strm} and {@code Name}. Times are
 * in the header's unit ({@code (ns)} by default; {@code --timeunit} gives {@code (us)}, {@code (ms)} or {@code (s)}).
 * Lines before the header are skipped: nsys prints NOTICE and "Processing [...]" lines there when its output goes to
 * stdout, and the project's synthetic samples put a comment there.
 *
 * <p>Rows whose name starts with {@code [CUDA memcpy} are copies (their grid columns are empty), {@code [CUDA memset}
 * rows memsets; every other row is a kernel and needs its grid. Rows must come in start order (nsys writes them so),
 * and the operations of one stream must not overlap (a stream runs them one after another).
 */
public final class NsysGpuTrace {
  /** What a row is. */
  public enum Kind {
    KERNEL, COPY_HOST_TO_DEVICE, COPY_DEVICE_TO_HOST, COPY_DEVICE_TO_DEVICE, COPY_OTHER, MEMSET;

    /** A copy or memset: its time is set by a copy engine and the bus, not by SMs. */
    public boolean isTransfer() {
      return this != KERNEL;
    }
  }

  /**
   * One row.
   *
   * @param line          1-based line in the file
   * @param startNanos    start on the traced GPU
   * @param durationNanos duration on the traced GPU (> 0)
   * @param blocks        thread blocks of the grid, GrdX × GrdY × GrdZ (1 for copies and memsets)
   * @param stream        the {@code Strm} column
   */
  public record Op(int line, long startNanos, long durationNanos, long blocks, long stream, String name, Kind kind) {
    public long endNanos() {
      return startNanos + durationNanos;
    }
  }

  private static final Pattern TIME_COLUMN = Pattern.compile("^(Start|Duration) \\((ns|us|ms|s)\\)$");
  private static final String[] GRID = {"GrdX", "GrdY", "GrdZ"};
  /** Bad rows reported before the rest are only counted. */
  static final int MAX_PROBLEMS = 10;

  private NsysGpuTrace() {}

  /** The rows of {@code lines} (a whole file), or every bad row with its line. {@code file} names it in messages. */
  public static List<Op> parse(List<String> lines, String file) throws TraceException {
    Problems problems = new Problems(file);
    int headerAt = -1;
    List<String> header = null;
    for (int i = 0; i < lines.size() && headerAt < 0; i++) {
      List<String> cells = Csv.fields(lines.get(i));
      if (cells != null && cells.stream().anyMatch(c -> c.startsWith("Start ("))) {
        headerAt = i;
        header = cells;
      }
    }
    if (header == null) {
      problems.add(1, "expected the header of `nsys stats --report cuda_gpu_trace --format csv` (Start (ns),"
          + "Duration (ns),...,GrdX,GrdY,GrdZ,...,Strm,Name), found none");
      throw problems.exception();
    }
    Map<String, Integer> column = new HashMap<>();
    Map<String, Double> unitNanos = new HashMap<>();
    columns(header, headerAt, column, unitNanos, problems);
    List<Op> ops = new ArrayList<>();
    Map<Long, Op> lastOfStream = new HashMap<>();
    Op previous = null;
    for (int i = headerAt + 1; i < lines.size(); i++) {
      int line = i + 1;
      if (lines.get(i).isBlank()) continue;
      List<String> cells = Csv.fields(lines.get(i));
      if (cells == null) {
        problems.add(line, "expected a closing double quote");
        continue;
      }
      if (cells.size() != header.size()) {
        problems.add(line, "expected " + header.size() + " comma-separated fields as in the header, got "
            + cells.size());
        continue;
      }
      Op op = row(cells, line, column, unitNanos, problems);
      if (op == null) continue;
      if (previous != null && op.startNanos() < previous.startNanos()) {
        problems.add(line, "expected rows in start order (as nsys writes them): starts at " + op.startNanos()
            + " ns, before line " + previous.line() + "'s " + previous.startNanos() + " ns");
        continue;
      }
      Op before = lastOfStream.get(op.stream());
      if (before != null && op.startNanos() < before.endNanos()) {
        problems.add(line, "expected stream " + op.stream() + "'s operations one after another: starts at "
            + op.startNanos() + " ns, before line " + before.line() + " on the same stream ends at "
            + before.endNanos() + " ns");
        continue;
      }
      lastOfStream.put(op.stream(), op);
      previous = op;
      ops.add(op);
    }
    if (ops.isEmpty() && problems.isEmpty()) problems.add(headerAt + 1, "expected at least one row after the header");
    if (!problems.isEmpty()) throw problems.exception();
    return ops;
  }

  /**
   * Fills {@code column} with each header's index (the time columns as Start and Duration, with their unit's
   * nanoseconds in {@code unitNanos}); throws when a column the trace needs is missing.
   */
  private static void columns(List<String> header, int headerAt, Map<String, Integer> column,
      Map<String, Double> unitNanos, Problems problems) throws TraceException {
    for (int c = 0; c < header.size(); c++) {
      String h = header.get(c);
      Matcher m = TIME_COLUMN.matcher(h);
      if (m.matches()) {
        column.put(m.group(1), c);
        unitNanos.put(m.group(1), nanosPer(m.group(2)));
      } else {
        column.put(h, c);
      }
    }
    List<String> missing = new ArrayList<>();
    for (String need : new String[] {"Start", "Duration", "GrdX", "GrdY", "GrdZ", "Strm", "Name"}) {
      if (!column.containsKey(need)) missing.add(need.equals("Start") || need.equals("Duration") ? need + " (ns)" : need);
    }
    if (!missing.isEmpty()) {
      problems.add(headerAt + 1, "expected the cuda_gpu_trace columns " + missing + " in the header (a time column "
          + "in ns, us, ms or s), got " + header);
      throw problems.exception();
    }
  }

  private static Op row(List<String> cells, int line, Map<String, Integer> column, Map<String, Double> unitNanos,
      Problems problems) {
    int before = problems.count();
    String name = cells.get(column.get("Name"));
    if (name.isEmpty()) problems.add(line, "expected a Name (a kernel or [CUDA memcpy ...]), got an empty field");
    Kind kind = kindOf(name);
    double start = number(cells.get(column.get("Start")), "Start", line, problems);
    double duration = number(cells.get(column.get("Duration")), "Duration", line, problems);
    long startNanos = Math.round(start * unitNanos.get("Start"));
    long durationNanos = Math.round(duration * unitNanos.get("Duration"));
    if (start < 0) problems.add(line, "expected Start >= 0, got " + cells.get(column.get("Start")));
    if (!Double.isNaN(duration) && durationNanos <= 0) {
      problems.add(line, "expected a Duration > 0 ns, got " + cells.get(column.get("Duration")));
    }
    long blocks = 1;
    if (kind == Kind.KERNEL) {
      for (String g : GRID) {
        String v = cells.get(column.get(g));
        long n = positiveLong(v);
        if (n <= 0) {
          problems.add(line, "expected " + g + " a whole number > 0 for a kernel row, got '" + v + "'");
        } else {
          blocks = blocks > Long.MAX_VALUE / n ? Long.MAX_VALUE : blocks * n;
        }
      }
    }
    String s = cells.get(column.get("Strm"));
    long stream = nonNegativeLong(s);
    if (stream < 0) problems.add(line, "expected Strm a stream number >= 0, got '" + s + "'");
    return problems.count() > before ? null : new Op(line, startNanos, durationNanos, blocks, stream, name, kind);
  }

  /** What a row's name says it is. nsys wrote "[CUDA memcpy HtoD]", newer versions "[CUDA memcpy Host-to-Device]". */
  static Kind kindOf(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    if (n.startsWith("[cuda memset")) return Kind.MEMSET;
    if (!n.startsWith("[cuda memcpy")) return Kind.KERNEL;
    if (n.contains("htod") || n.contains("host-to-device")) return Kind.COPY_HOST_TO_DEVICE;
    if (n.contains("dtoh") || n.contains("device-to-host")) return Kind.COPY_DEVICE_TO_HOST;
    if (n.contains("dtod") || n.contains("device-to-device")) return Kind.COPY_DEVICE_TO_DEVICE;
    return Kind.COPY_OTHER;
  }

  private static double number(String v, String what, int line, Problems problems) {
    try {
      double d = Double.parseDouble(v);
      if (Double.isFinite(d)) return d;
    } catch (NumberFormatException e) {
      // reported below
    }
    problems.add(line, "expected " + what + " a number, got '" + v + "'");
    return Double.NaN;
  }

  /** The whole number {@code v} when it is one and > 0, else -1. */
  private static long positiveLong(String v) {
    long n = nonNegativeLong(v);
    return n > 0 ? n : -1;
  }

  /** The whole number {@code v} when it is one and >= 0, else -1. */
  private static long nonNegativeLong(String v) {
    try {
      long n = Long.parseLong(v);
      return n >= 0 ? n : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static double nanosPer(String unit) {
    return switch (unit) {
      case "ns" -> 1;
      case "us" -> 1e3;
      case "ms" -> 1e6;
      default -> 1e9;
    };
  }

  /** Bad rows of one file, the first {@link #MAX_PROBLEMS} in full and the rest counted. */
  static final class Problems {
    private final String file;
    private final List<String> list = new ArrayList<>();
    private int count;

    Problems(String file) {
      this.file = file;
    }

    void add(int line, String message) {
      count++;
      if (list.size() < MAX_PROBLEMS) list.add(file + ":" + line + ": " + message);
    }

    int count() {
      return count;
    }

    boolean isEmpty() {
      return count == 0;
    }

    TraceException exception() {
      List<String> out = new ArrayList<>(list);
      if (count > list.size()) out.add(file + ": " + (count - list.size()) + " more bad rows not shown");
      return new TraceException(out);
    }
  }
}
