package org.gpuemu.emulator.reproduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The generated reproduction pages under docs/validation are what the renderer makes of the committed JSON
 * documents, so they cannot drift from the data: the full reproduction ({@code reproduce all --scale 1000}, 3 seeds)
 * and the headline claims ({@code reproduce headline}). Regenerate a page with the command in its first line.
 */
class ReproductionDocsTest {
  private static final Path ROOT = Paths.get(System.getProperty("conf.dir", "../conf")).toAbsolutePath().getParent();

  @ParameterizedTest
  @CsvSource({"docs/validation/reproduction.md, conf/reproduction/full.json",
      "docs/validation/headline.md, conf/reproduction/headline.json"})
  void page_isTheRenderingOfTheCommittedJson(String page, String json) throws Exception {
    Path file = ROOT.resolve(json);
    assertTrue(Files.isRegularFile(file), json + " is committed");
    String rendered = Report.page(Report.read(file), json);
    assertEquals(rendered, Files.readString(ROOT.resolve(page)), page + " differs from the rendering of " + json
        + ": regenerate it with java -jar emulator/target/emulator.jar reproduce --render " + json + " > " + page);
  }

  /** The README's status block is the status line of the committed headline claims. */
  @org.junit.jupiter.api.Test
  void readmeStatus_isTheHeadlineCountOfTheCommittedJson() throws Exception {
    String expected = Report.headlineStatus(Report.read(ROOT.resolve("conf/reproduction/headline.json")));
    String readme = Files.readString(ROOT.resolve("README.md"));
    int begin = readme.indexOf("<!-- headline:begin -->\n");
    int end = readme.indexOf("\n<!-- headline:end -->");
    assertTrue(begin >= 0 && end > begin, "README.md has the headline:begin and headline:end markers");
    assertEquals(expected, readme.substring(begin + "<!-- headline:begin -->\n".length(), end),
        "README.md's headline block: replace it with this line (from conf/reproduction/headline.json)");
  }
}
