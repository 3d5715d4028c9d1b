package org.gpuemu.workloads;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Alibaba's GPU-sharing cluster trace (cluster-trace-gpu-v2023, "openb"; Weng et al., "Beware of Fragmentation:
 * Scheduling GPU-Sharing Workloads with Fragmentation Gradient Descent", USENIX ATC 2023): its task list
 * ({@code openb_pod_list_*.csv}: {@code name, cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec, qos, pod_phase,
 * creation_time, deletion_time, scheduled_time}) and its node list ({@code openb_node_list_*.csv}: {@code sn,
 * cpu_milli, memory_mib, gpu, model}). Columns are found by name in the header; a bad row is one problem naming the
 * file and its line.
 */
public final class ClusterTrace {
  /** One task; times in seconds from the trace's start; {@code deletion} -1 when the trace has none. */
  public record Task(int line, String name, long cpuMilli, long memoryMib, int gpus, long gpuMilli, String qos,
      long creation, long deletion) {}

  /** One node: CPU in thousandths of a core, GPUs and their model. */
  public record Node(int line, String name, long cpuMilli, long memoryMib, int gpus, String model) {}

  static final String[] TASK_COLUMNS = {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "qos",
      "creation_time", "deletion_time"};
  static final String[] NODE_COLUMNS = {"sn", "cpu_milli", "memory_mib", "gpu", "model"};

  private ClusterTrace() {}

  /** The tasks of a pod list (a whole file). */
  public static List<Task> tasks(List<String> lines, String file) throws TraceException {
    NsysGpuTrace.Problems problems = new NsysGpuTrace.Problems(file);
    List<Task> out = new ArrayList<>();
    for (Row r : rows(lines, file, TASK_COLUMNS, problems)) {
      int before = problems.count();
      long cpu = r.integer("cpu_milli", problems);
      long mem = r.integer("memory_mib", problems);
      long gpus = r.integer("num_gpu", problems);
      long milli = r.integer("gpu_milli", problems);
      long created = r.integer("creation_time", problems);
      String deleted = r.cell("deletion_time");
      long deletion = deleted.isEmpty() ? -1 : r.integer("deletion_time", problems);
      if (problems.count() > before) continue;
      if (milli < 0 || milli > 1000) {
        problems.add(r.line(), "expected gpu_milli in [0, 1000], got " + milli);
        continue;
      }
      out.add(new Task(r.line(), r.cell("name"), cpu, mem, (int) gpus, milli, r.cell("qos"), created, deletion));
    }
    if (!problems.isEmpty()) throw problems.exception();
    return out;
  }

  /** The nodes of a node list (a whole file). */
  public static List<Node> nodes(List<String> lines, String file) throws TraceException {
    NsysGpuTrace.Problems problems = new NsysGpuTrace.Problems(file);
    List<Node> out = new ArrayList<>();
    for (Row r : rows(lines, file, NODE_COLUMNS, problems)) {
      int before = problems.count();
      long cpu = r.integer("cpu_milli", problems);
      long mem = r.integer("memory_mib", problems);
      long gpus = r.integer("gpu", problems);
      if (problems.count() > before) continue;
      out.add(new Node(r.line(), r.cell("sn"), cpu, mem, (int) gpus, r.cell("model")));
    }
    if (!problems.isEmpty()) throw problems.exception();
    return out;
  }

  private record Row(int line, List<String> cells, Map<String, Integer> column) {
    String cell(String name) {
      return cells.get(column.get(name)).trim();
    }

    long integer(String name, NsysGpuTrace.Problems problems) {
      String v = cell(name);
      try {
        long n = Long.parseLong(v);
        if (n >= 0) return n;
      } catch (NumberFormatException e) {
        // reported below
      }
      problems.add(line, "expected " + name + " to be a whole number >= 0, got '" + v + "'");
      return 0;
    }
  }

  private static List<Row> rows(List<String> lines, String file, String[] needed, NsysGpuTrace.Problems problems)
      throws TraceException {
    Map<String, Integer> column = null;
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      int line = i + 1;
      String text = lines.get(i);
      if (text.isBlank()) continue;
      List<String> cells = Csv.fields(text);
      if (cells == null) {
        problems.add(line, "expected a closing double quote");
        continue;
      }
      if (column == null) {
        column = new HashMap<>();
        for (int c = 0; c < cells.size(); c++) column.put(cells.get(c).trim(), c);
        List<String> missing = new ArrayList<>();
        for (String need : needed) if (!column.containsKey(need)) missing.add(need);
        if (!missing.isEmpty()) {
          problems.add(line, "expected a header with the columns " + String.join(",", needed) + "; missing "
              + missing);
          throw problems.exception();
        }
        continue;
      }
      if (cells.size() != column.size()) {
        problems.add(line, "expected " + column.size() + " comma-separated fields as in the header, got "
            + cells.size());
        continue;
      }
      rows.add(new Row(line, cells, column));
    }
    if (column == null) {
      problems.add(1, "expected a header with the columns " + String.join(",", needed) + "; the file is empty");
      throw problems.exception();
    }
    return rows;
  }
}
