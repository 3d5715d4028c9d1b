package org.gpuemu.emulator.reproduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The README's reproduction tables are what the renderer makes of the committed reproduction.json files, so they
 * cannot drift from the data (regenerate each with the command the README prints beside it): the quick check
 * ({@code reproduce all --quick}, run by CI) and the full reproduction ({@code reproduce all --scale 1000}, 3 seeds).
 */
class ReadmeTableTest {
  private static final Path ROOT = Paths.get(System.getProperty("conf.dir", "../conf")).getParent();

  @ParameterizedTest
  @CsvSource({"reproduce, conf/reproduction/quick.json", "reproduce-full, conf/reproduction/full.json"})
  void readmeBlock_isTheRenderingOfTheCommittedJson(String marker, String json) throws Exception {
    String begin = "<!-- " + marker + ":begin -->";
    String end = "<!-- " + marker + ":end -->";
    // The tables are moving out of the README into docs/validation/reproduction.md: check them where they are.
    Path home = ROOT.resolve("docs/validation/reproduction.md");
    if (!Files.exists(home)) home = ROOT.resolve("README.md");
    String readme = Files.readString(home);
    assumeTrue(readme.contains(begin), home + " has no " + begin + " block yet (the tables are being moved)");
    int from = readme.indexOf(begin);
    int to = readme.indexOf(end);
    assertTrue(from >= 0 && to > from, home + " lacks the " + begin + " ... " + end + " block");
    String block = readme.substring(from + begin.length(), to).strip();
    String rendered = Report.markdown(Report.read(ROOT.resolve(json))).strip();
    assertEquals(rendered, block, "README's table between " + begin + " and " + end + " differs from " + json
        + ": copy reproduction.md of that run between the markers");
  }
}
