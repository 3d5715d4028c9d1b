package org.gpuemu.emulator.report.html;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What a run left in its folder, as Jackson trees: {@code summary.json} (required) and the rows of
 * {@code timeline.jsonl} (none when the file is absent). {@code label} names the run on a compare page.
 */
public record RunData(String label, JsonNode summary, List<JsonNode> timeline) {
  static final ObjectMapper JSON = new ObjectMapper();

  public RunData {
    timeline = List.copyOf(timeline);
  }

  /** Reads {@code dir}; a missing or unreadable summary.json, or a bad timeline line, is a ReportException. */
  public static RunData read(Path dir, String label) throws ReportException {
    Path summaryFile = dir.resolve("summary.json");
    if (!Files.isRegularFile(summaryFile)) {
      throw new ReportException(dir + ": no summary.json here (is it a run's output folder?)");
    }
    JsonNode summary;
    try {
      summary = JSON.readTree(summaryFile.toFile());
    } catch (IOException e) {
      throw new ReportException(summaryFile + ": not JSON: " + firstLine(e));
    }
    if (summary == null || !summary.isObject()) throw new ReportException(summaryFile + ": not a JSON object");
    List<JsonNode> rows = new ArrayList<>();
    Path timelineFile = dir.resolve("timeline.jsonl");
    if (Files.isRegularFile(timelineFile)) {
      List<String> lines;
      try {
        lines = Files.readAllLines(timelineFile);
      } catch (IOException e) {
        throw new ReportException(timelineFile + ": cannot read: " + firstLine(e));
      }
      for (int i = 0; i < lines.size(); i++) {
        if (lines.get(i).isBlank()) continue;
        try {
          JsonNode row = JSON.readTree(lines.get(i));
          if (row.isObject() && row.hasNonNull("t_s") && row.hasNonNull("vm")) rows.add(row);
          else throw new ReportException(timelineFile + ":" + (i + 1) + ": a row needs t_s and vm");
        } catch (JsonProcessingException e) {
          throw new ReportException(timelineFile + ":" + (i + 1) + ": not JSON: " + firstLine(e));
        }
      }
    }
    return new RunData(label, summary, rows);
  }

  private static String firstLine(Exception e) {
    String m = String.valueOf(e.getMessage());
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}
