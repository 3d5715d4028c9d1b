package org.gpuemu.emulator.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A VM's GPU usage in steady state, from its {@code timeline.jsonl} rows without the first period (start-up: the
 * first frames are being queued) and the last (it holds the drain after the end, when the GPU finishes what the
 * guest had queued).
 */
final class SteadyUsage {
  private SteadyUsage() {}

  /**
   * One timeline row of a VM.
   *
   * @param endSeconds the period's end, emulated seconds ({@code t_s})
   * @param gpuBusyMillis GPU time accounted to the VM in the period ({@code gpu_busy_ms})
   */
  record Row(double endSeconds, double gpuBusyMillis) {}

  /** The VM's rows of a timeline file, in file order. */
  static List<Row> read(Path timeline, String vm) throws IOException {
    ObjectMapper json = new ObjectMapper();
    List<Row> rows = new ArrayList<>();
    for (String line : Files.readAllLines(timeline)) {
      if (line.isBlank()) continue;
      JsonNode row = json.readTree(line);
      if (vm.equals(row.path("vm").asText())) {
        rows.add(new Row(row.path("t_s").asDouble(), row.path("gpu_busy_ms").asDouble()));
      }
    }
    return rows;
  }

  /** Busy fraction over the middle rows (all but the first and the last); NaN with fewer than three rows. */
  static double of(List<Row> rows) {
    if (rows.size() < 3) return Double.NaN;
    double busyMillis = 0;
    for (int i = 1; i < rows.size() - 1; i++) busyMillis += rows.get(i).gpuBusyMillis();
    double seconds = rows.get(rows.size() - 2).endSeconds() - rows.get(0).endSeconds();
    return seconds > 0 ? busyMillis / 1e3 / seconds : Double.NaN;
  }
}
