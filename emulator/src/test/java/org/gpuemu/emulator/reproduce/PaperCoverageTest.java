package org.gpuemu.emulator.reproduce;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.Expectations;
import org.gpuemu.policies.spi.PolicyCatalog;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issues 20 and 21's "Done when": {@code reproduce all} shows every figure and table of vgris.txt, fairgv.txt,
 * vmcg.txt, combo.txt and gballoon.txt with a verdict. A figure no run gives a number for still has its row ({@code unmeasured}), so the expect blocks of a
 * paper's files name every figure and table the paper prints, and nothing else.
 */
class PaperCoverageTest {
  private static final Path CONF = Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios");

  @ParameterizedTest
  @CsvSource({
      // combo.txt: Figures 1-18 and Tables 1-7 (its captions)
      "combo, 18, 7",
      // gballoon.txt: Figures 1-10 and Tables 1-2
      "gballoon, 10, 2",
      // vmcg.txt: Figures 1-18 and Tables 1-2
      "vmcg, 18, 2",
      // vgris.txt: Figures 1-12 and Tables 1-3 (issue 20)
      "vgris, 12, 3",
      // fairgv.txt: Figures 1-11 and Tables 1-4 (issue 20)
      "fairgv, 11, 4"})
  void everyFigureAndTableOfThePaper_hasARow(String paper, int figures, int tables)
      throws IOException, ConfigProblems {
    Set<String> expected = new TreeSet<>();
    for (int i = 1; i <= figures; i++) expected.add("Figure " + i);
    for (int i = 1; i <= tables; i++) expected.add("Table " + i);
    Set<String> named = new TreeSet<>();
    List<Path> files;
    try (Stream<Path> s = Files.list(CONF.resolve(paper))) {
      files = s.filter(p -> p.toString().endsWith(".conf")).sorted().toList();
    }
    for (Path file : files) {
      for (Expectations.Row row : Expectations.read(file, PolicyCatalog.builtIn()).rows()) {
        // "§5.4, Eq. 4" and "§6.7" are sections, not figures: they may come on top
        // a figure's panels ("Figure 7a", "Figure 7b") are rows of that figure
        if (row.figure().startsWith("Figure ") || row.figure().startsWith("Table ")) {
          named.add(row.figure().replaceAll("^(Figure|Table) ([0-9]+)[a-z]$", "$1 $2"));
        }
      }
    }
    assertEquals(expected, named, paper + ": the figures and tables its expect blocks name");
  }
}
