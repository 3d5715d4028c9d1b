package org.gpuemu.workloads;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A per-frame trace of a game: a CSV with the header columns {@code start_ms} (when the frame's CPU work started),
 * {@code cpu_ms} (CPU time of the frame) and {@code gpu_ms} (GPU time of the frame on the traced GPU), in any order,
 * other columns ignored; lines starting with {@code #} and blank lines are skipped. Frames must start in order.
 */
public final class FrameTrace {
  /** One frame, times in nanoseconds. */
  public record Frame(int line, long startNanos, long cpuNanos, long gpuNanos) {}

  static final String[] COLUMNS = {"start_ms", "cpu_ms", "gpu_ms"};

  private FrameTrace() {}

  /** The frames of {@code lines} (a whole file), or every bad row with its line. */
  public static List<Frame> parse(List<String> lines, String file) throws TraceException {
    NsysGpuTrace.Problems problems = new NsysGpuTrace.Problems(file);
    Map<String, Integer> column = null;
    int width = 0;
    List<Frame> frames = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      int line = i + 1;
      String text = lines.get(i);
      if (text.isBlank() || text.stripLeading().startsWith("#")) continue;
      List<String> cells = Csv.fields(text);
      if (cells == null) {
        problems.add(line, "expected a closing double quote");
        continue;
      }
      if (column == null) {
        column = new HashMap<>();
        for (int c = 0; c < cells.size(); c++) column.put(cells.get(c), c);
        width = cells.size();
        List<String> missing = new ArrayList<>();
        for (String need : COLUMNS) if (!column.containsKey(need)) missing.add(need);
        if (!missing.isEmpty()) {
          problems.add(line, "expected a header with the columns start_ms,cpu_ms,gpu_ms; missing " + missing
              + " in " + cells);
          throw problems.exception();
        }
        continue;
      }
      if (cells.size() != width) {
        problems.add(line, "expected " + width + " comma-separated fields as in the header, got " + cells.size());
        continue;
      }
      int before = problems.count();
      double start = number(cells.get(column.get("start_ms")), "start_ms", line, problems);
      double cpu = number(cells.get(column.get("cpu_ms")), "cpu_ms", line, problems);
      double gpu = number(cells.get(column.get("gpu_ms")), "gpu_ms", line, problems);
      if (problems.count() > before) continue;
      long startNanos = Math.round(start * 1e6);
      long cpuNanos = Math.round(cpu * 1e6);
      long gpuNanos = Math.round(gpu * 1e6);
      if (start < 0) problems.add(line, "expected start_ms >= 0, got " + cells.get(column.get("start_ms")));
      if (cpuNanos <= 0) problems.add(line, "expected cpu_ms > 0 (at least 1 ns), got " + cells.get(column.get("cpu_ms")));
      if (gpuNanos <= 0) problems.add(line, "expected gpu_ms > 0 (at least 1 ns), got " + cells.get(column.get("gpu_ms")));
      Frame previous = frames.isEmpty() ? null : frames.get(frames.size() - 1);
      if (previous != null && startNanos <= previous.startNanos()) {
        problems.add(line, "expected frames in start order: starts at " + cells.get(column.get("start_ms"))
            + " ms, not after line " + previous.line() + "'s frame");
      }
      if (problems.count() > before) continue;
      frames.add(new Frame(line, startNanos, cpuNanos, gpuNanos));
    }
    if (column == null) problems.add(1, "expected a header with the columns start_ms,cpu_ms,gpu_ms, found none");
    else if (frames.isEmpty() && problems.isEmpty()) problems.add(lines.size(), "expected at least one frame row");
    if (!problems.isEmpty()) throw problems.exception();
    return frames;
  }

  private static double number(String v, String what, int line, NsysGpuTrace.Problems problems) {
    try {
      double d = Double.parseDouble(v);
      if (Double.isFinite(d)) return d;
    } catch (NumberFormatException e) {
      // reported below
    }
    problems.add(line, "expected " + what + " a number, got '" + v + "'");
    return Double.NaN;
  }
}
