package org.gpuemu.emulator.report.html;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The hand-written run folders under test resources (hybrid, combo, gballoon, compare) and page readers. */
final class Fixtures {
  private static final Pattern PANEL = Pattern.compile("<section class=\"panel\" id=\"panel-([^\"]+)\"");
  private static final String DATA_OPEN = "<script id=\"report-data\" type=\"application/json\">";

  private Fixtures() {}

  /** Copies fixture {@code name} (a folder, subfolders included) to {@code into/name}; returns that folder. */
  static Path copy(String name, Path into) {
    try {
      Path from = Paths.get(Fixtures.class.getResource(name).toURI());
      Path to = into.resolve(name);
      try (Stream<Path> files = Files.walk(from)) {
        for (Path f : files.toList()) {
          Path target = to.resolve(from.relativize(f).toString());
          if (Files.isDirectory(f)) Files.createDirectories(target);
          else Files.copy(f, target);
        }
      }
      return to;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The panel ids of a page, in order. */
  static Set<String> panels(String html) {
    Set<String> ids = new LinkedHashSet<>();
    Matcher m = PANEL.matcher(html);
    while (m.find()) ids.add(m.group(1));
    return ids;
  }

  /** The page's inlined data. */
  static JsonNode data(String html) throws IOException {
    int start = html.indexOf(DATA_OPEN);
    if (start < 0) throw new AssertionError("no report-data script in the page");
    start += DATA_OPEN.length();
    return RunData.JSON.readTree(html.substring(start, html.indexOf("</script>", start)));
  }

  /** The inlined option of panel {@code id}. */
  static JsonNode option(String html, String id) throws IOException {
    for (JsonNode p : data(html).path("panels")) if (p.path("id").asText().equals(id)) return p.path("option");
    throw new AssertionError("no panel " + id);
  }
}
