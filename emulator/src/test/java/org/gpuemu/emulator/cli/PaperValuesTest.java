package org.gpuemu.emulator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.policies.spi.PolicyCatalog;
import org.junit.jupiter.api.Test;

/** compare.json's paper values: the scenario's expect rows that give a number, beside the compare's own value. */
class PaperValuesTest {
  private static final Path CONF = Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios");

  @Test
  void lookup_followsADottedPath_keysWithDotsIncluded() {
    Map<String, Object> vm = Map.of("fps", 79.5);
    Map<String, Object> doc = Map.of("vms", Map.of("vm.1", vm, "nba2012", Map.of("fps", 30)),
        "fairness", Map.of("mmr", 0.99, "normalized_by", "gpu time"));
    assertEquals(79.5, PaperValues.lookup(doc, "vms.vm.1.fps"));
    assertEquals(30, PaperValues.lookup(doc, "vms.nba2012.fps"));
    assertEquals(0.99, PaperValues.lookup(doc, "fairness.mmr"));
    assertNull(PaperValues.lookup(doc, "fairness.normalized_by"), "not a number");
    assertNull(PaperValues.lookup(doc, "vms.nobody.fps"));
  }

  @Test
  void vgrisTable2_everyNumberOfTheTwoPoliciesRun_theOrderingRowLeftOut() throws Exception {
    // any two summaries stand for the policies' runs: the rows come from the file, the values from the summaries
    Map<String, Summary> results = new LinkedHashMap<>();
    results.put("vgris-share", new Summary(org.gpuemu.emulator.report.SummaryGoldenTest.timeSharing()));
    results.put("vgris-sla", new Summary(org.gpuemu.emulator.report.SummaryGoldenTest.timeSharing()));
    List<Map<String, Object>> rows = PaperValues.of(CONF.resolve("vgris/proportional-share.conf"),
        PolicyCatalog.builtIn(), results);
    // 8 numbers in the file's Table 2 rows (its ninth states only that utilization is greater), 2 in Figure 10's
    assertEquals(10, rows.size());
    Map<String, Object> first = rows.get(0);
    assertEquals("Table 2", first.get("figure"));
    assertEquals("vms.nba2012.fps", first.get("metric"));
    assertEquals("vgris-share", first.get("policy"));
    assertEquals(79.16, first.get("paper"));
    assertNull(first.get("measured"), "the stand-in summaries have no VM nba2012");
    results.remove("vgris-sla");
    assertEquals(6, PaperValues.of(CONF.resolve("vgris/proportional-share.conf"), PolicyCatalog.builtIn(), results)
        .size(), "only the policies the compare ran");
  }
}
