package org.gpuemu.emulator.reproduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/**
 * The README's reproduction table is what the renderer makes of the committed reproduction.json, so it cannot drift
 * from the data (regenerate both with the command the README prints beside the table).
 */
class ReadmeTableTest {
  private static final Path ROOT = Paths.get(System.getProperty("conf.dir", "../conf")).getParent();
  static final String BEGIN = "<!-- reproduce:begin -->";
  static final String END = "<!-- reproduce:end -->";

  @Test
  void readmeBlock_isTheRenderingOfTheCommittedJson() throws Exception {
    String readme = Files.readString(ROOT.resolve("README.md"));
    int begin = readme.indexOf(BEGIN);
    int end = readme.indexOf(END);
    assertTrue(begin >= 0 && end > begin, "README.md lacks the " + BEGIN + " ... " + END + " block");
    String block = readme.substring(begin + BEGIN.length(), end).strip();
    String rendered = Report.markdown(Report.read(ROOT.resolve("conf/reproduction/quick.json"))).strip();
    assertEquals(rendered, block, "README's reproduction table differs from conf/reproduction/quick.json: "
        + "copy reproduction.md of that run between the markers");
  }
}
