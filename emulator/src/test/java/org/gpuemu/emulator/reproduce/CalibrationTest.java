package org.gpuemu.emulator.reproduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.Expectations;
import org.gpuemu.policies.spi.PolicyCatalog;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A figure the model was fitted on can never be judged reproduced: conf/reproduction/calibration.conf lists the
 * fitted constants and their rows, every listed row of conf/scenarios is declared {@code calibrated}, {@code
 * reproduce} refuses a listed row that is not, and no committed table has a listed row reproduced.
 */
@Tag("slow")
class CalibrationTest {
  private static final Path CONF = Paths.get(System.getProperty("conf.dir", "../conf"));
  @TempDir Path dir;

  private static Reproduction.Options options(Path scenarios) {
    return new Reproduction.Options(scenarios, Reproduction.PAPERS, false, 1, Paths.get("unused"),
        PolicyCatalog.builtIn(), false, null);
  }

  @Test
  void everyRowOfAFittedFigure_isDeclaredCalibrated() throws Exception {
    List<Calibration.Constant> table = Calibration.near(CONF.resolve("scenarios"));
    assertFalse(table.isEmpty(), "conf/reproduction/calibration.conf is read");
    List<Reproduction.Figure> figures = Reproduction.plan(options(CONF.resolve("scenarios")));
    List<String> problems = new ArrayList<>();
    int calibrated = 0;
    for (Reproduction.Figure f : figures) {
      problems.addAll(Calibration.check(table, f));
      for (Expectations.Row row : f.expect().rows()) {
        if (!Calibration.of(table, f.paper(), f.name(), row).isEmpty() && !row.input()) calibrated++;
      }
    }
    assertEquals(List.of(), problems);
    // each entry names rows that exist: a selector that matches nothing is a stale entry
    for (Calibration.Constant c : table) {
      boolean any = figures.stream().anyMatch(f -> f.paper().equals(c.paper())
          && f.expect().rows().stream().anyMatch(r -> c.rows().stream().anyMatch(s -> s.matches(f.name(), r))));
      assertTrue(any, c.constant() + ": its rows match no row of conf/scenarios");
    }
    assertTrue(calibrated > 0);
  }

  @Test
  void aRowOfAFittedFigure_notDeclaredCalibrated_isBadInput() throws Exception {
    Path scenarios = Files.createDirectories(dir.resolve("conf/scenarios/vgris"));
    Files.writeString(scenarios.resolve("fit.conf"), """
        scenario {
          vms { a { workload = dirt3 } }
          expect { rows = [
            { figure = "Figure 8b", metric = gpu.utilization, at-least = 0.5, source = s }
            { figure = "Figure 8b", metric = vms.a.fps, at-least = 1, calibrated = "K, fitted on Figure 8b", source = s }
            { figure = "Figure 9", metric = gpu.utilization, at-least = 0.5, source = s }
          ] }
        }
        """);
    Files.createDirectories(dir.resolve("conf/reproduction"));
    Files.writeString(dir.resolve("conf/reproduction/calibration.conf"), """
        constants = [{ constant = K, value = "2 ms", derivation = "fit of Figure 8b", paper = vgris,
          rows = [{ figure = "Figure 8b" }] }]
        """);
    ConfigProblems p = assertThrows(ConfigProblems.class,
        () -> Reproduction.plan(options(dir.resolve("conf/scenarios"))));
    assertEquals(1, p.problems().size(), p.problems().toString());
    assertTrue(p.problems().get(0).endsWith("fit.conf: scenario.expect.rows[0]: Figure 8b is what K was fitted on ("
        + "reproduction/calibration.conf): declare it calibrated = \"<the constant>\""), p.problems().get(0));
  }

  @Test
  void aBadTable_isNamedKeyByKey() throws Exception {
    Path file = Files.writeString(dir.resolve("calibration.conf"), """
        constants = [{ constant = K, value = 2, paper = nonesuch, rows = [], extra = 1 }]
        """);
    ConfigProblems p = assertThrows(ConfigProblems.class, () -> Calibration.read(file));
    String all = String.join("\n", p.problems());
    assertTrue(all.contains("constants[0].extra: unknown key"), all);
    assertTrue(all.contains("constants[0].derivation: required"), all);
    assertTrue(all.contains("constants[0].paper: expected one of"), all);
    assertTrue(all.contains("constants[0].rows: expected at least one row"), all);
  }

  @Test
  void noCommittedTable_judgesARowOfAFittedFigureReproduced() throws Exception {
    List<Calibration.Constant> table = Calibration.near(CONF.resolve("scenarios"));
    for (String json : List.of("full.json", "headline.json", "quick.json")) {
      Path file = CONF.resolve("reproduction").resolve(json);
      if (!Files.isRegularFile(file)) continue;
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> rows = (List<Map<String, Object>>) Report.read(file).get("rows");
      for (Map<String, Object> r : rows) {
        for (Calibration.Constant c : table) {
          boolean fitted = c.paper().equals(r.get("paper")) && c.rows().stream().anyMatch(s ->
              s.figure().equals(r.get("figure")) && (s.scenario() == null || s.scenario().equals(r.get("scenario")))
                  && (s.metric() == null || s.metric().equals(r.get("metric")))
                  && (s.policy() == null || String.valueOf(r.get("policy")).startsWith(s.policy()))
                  && (s.paper() == null || s.paper().equals(r.get("paper_value"))));
          assertFalse(fitted && ClaimVerdict.REPRODUCED.label().equals(r.get("verdict")), json + ": " + r.get("figure")
              + " " + r.get("scenario") + " " + r.get("metric") + " is judged reproduced, but " + c.constant()
              + " was fitted on it");
        }
      }
    }
  }
}
