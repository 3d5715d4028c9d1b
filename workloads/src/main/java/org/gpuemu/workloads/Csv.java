package org.gpuemu.workloads;

import java.util.ArrayList;
import java.util.List;

/** Splits one CSV line (RFC 4180: fields in double quotes may hold commas and doubled quotes). */
final class Csv {
  private Csv() {}

  /** The fields of {@code line}, unquoted and trimmed; null when a quoted field is not closed. */
  static List<String> fields(String line) {
    List<String> out = new ArrayList<>();
    StringBuilder field = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
          field.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          field.append(c);
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        out.add(field.toString().trim());
        field.setLength(0);
      } else {
        field.append(c);
      }
    }
    if (quoted) return null;
    out.add(field.toString().trim());
    return out;
  }
}
