package org.gpuemu.emulator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code reproduce --quick} end to end on a fixture folder of one tiny figure (two policies, 300 ms runs): the two
 * files and their shape; bad input exits 2 naming the problem.
 */
@Tag("slow")
class ReproduceCommandTest {
  @TempDir Path dir;

  private Path fixture(String rows) throws Exception {
    Path conf = dir.resolve("conf");
    Files.createDirectories(conf.resolve("vgris"));
    Files.writeString(conf.resolve("vgris").resolve("tiny.conf"), """
        # vgris.txt: a fixture, not a figure
        scenario {
          duration = 2s
          vms { a { workload = dirt3 }, b { workload = nba2012 } }
          expect {
            policies = [fcfs, round-robin]
            quick-duration = 300ms
            rows = [
        """ + rows + """
            ]
          }
        }
        """);
    return conf;
  }

  @Test
  void quickRun_writesJsonRowsAndAMarkdownTable() throws Exception {
    Path conf = fixture("""
              { figure = "Figure X", metric = gpu.utilization, at-least = 0.5, source = "a saturated GPU" }
              { figure = "Figure X", policy = round-robin, metric = vms.a.fps, greater-than = fcfs, source = "s" }
              { figure = "Figure Y", policy = round-robin, over = fcfs, metric = gpu.utilization, paper = 1.0,
                tolerance = 0.5, tolerance-from = convention, source = "s" }
              { figure = "Figure Y", metric = fairness.lambda_run_time, at-most = 1, source = "null: dirt3 never ends" }
        """);
    Path out = dir.resolve("out");
    MainTest.Result r = MainTest.execute("reproduce", "vgris", "--quick", "--no-warm-up", "--conf", conf.toString(),
        "--out", out.toString());
    assertEquals(0, r.status(), r.out() + r.err());
    assertTrue(r.out().contains("[1/1] vgris/tiny (Figure X, Figure Y): fcfs, round-robin x 1 seed"), r.out());
    JsonNode doc = new ObjectMapper().readTree(out.resolve("reproduction.json").toFile());
    assertEquals(1, doc.get("seeds").asInt());
    assertEquals(4, doc.get("rows").size());
    // --quick judges nothing: a measured row is "not judged (quick)" (or "not run" without a value)
    Set<String> verdicts = Set.of("not judged (quick)", "not run");
    for (JsonNode row : doc.get("rows")) {
      for (String key : new String[] {"paper", "figure", "metric", "paper_value", "value", "range", "verdict",
          "faithful"}) {
        assertTrue(row.has(key), key + " missing in " + row);
      }
      assertTrue(verdicts.contains(row.get("verdict").asText()), row.toString());
      assertEquals("vgris", row.get("paper").asText());
    }
    assertEquals("round-robin / fcfs", doc.get("rows").get(2).get("policy").asText());
    assertEquals(1.0, doc.get("rows").get(2).get("paper_value").asDouble());
    // a present null (no run time for a game that never ends) is "not run", not bad input
    assertEquals("not run", doc.get("rows").get(3).get("verdict").asText());
    assertEquals("not judged (quick)", doc.get("rows").get(0).get("verdict").asText());
    assertEquals(1.0, doc.get("rows").get(0).get("value").asDouble(), 0.5, "the value is reported all the same");
    int counted = 0;
    for (JsonNode n : doc.get("counts").get("vgris")) counted += n.asInt();
    assertEquals(4, counted);
    String md = Files.readString(out.resolve("reproduction.md"));
    assertTrue(md.contains("#### vgris"), md);
    assertTrue(md.contains("| Figure X | `vgris/tiny` | fcfs | `gpu.utilization` | ≥ 0.5 |"), md);
    assertTrue(Files.isRegularFile(out.resolve("vgris/tiny/fcfs/seed-1/summary.json")));
  }

  @Test
  void badInput_exits2_withOneLineNamingIt() throws Exception {
    MainTest.Result r = MainTest.execute("reproduce", "nonesuch", "--conf", dir.toString());
    assertEquals(2, r.status());
    assertTrue(r.err().contains("reproduce nonesuch: unknown paper"), r.err());
    Path conf = fixture("{ figure = F, metric = m, paper = 1, source = s }");
    r = MainTest.execute("reproduce", "--quick", "--conf", conf.toString(), "--out", dir.resolve("o").toString());
    assertEquals(2, r.status());
    assertEquals(1, r.errLines().size(), r.err());
    assertTrue(r.err().contains("tiny.conf: scenario.expect.rows[0]: a paper value needs tolerance"), r.err());
  }

  @Test
  void aMetricThatNamesNothing_isBadInput_afterTheRun() throws Exception {
    Path conf = fixture("{ figure = F, metric = vms.nobody.fps, at-least = 1, source = s }");
    MainTest.Result r = MainTest.execute("reproduce", "--quick", "--no-warm-up", "--conf", conf.toString(), "--out",
        dir.resolve("o").toString());
    assertEquals(2, r.status(), r.out() + r.err());
    assertTrue(r.err().contains("metric 'vms.nobody.fps' names nothing in summary.json"), r.err());
  }

  @Test
  void groups_runEveryCombination_inFolders_andRowsAggregateOverThem() throws Exception {
    Path conf = dir.resolve("conf");
    Files.createDirectories(conf.resolve("vgris"));
    Files.writeString(conf.resolve("vgris").resolve("grouped.conf"), """
        # vgris.txt: a fixture, not a figure
        scenario {
          duration = 2s
          vms { a { workload = dirt3 }, b { workload = nba2012 } }
          expect {
            policies = [fcfs, round-robin]
            quick-duration = 300ms
            time-scale = 1000
            groups {
              axes = [{ name = second, path = vms.b.workload, values = [nba2012, 3dmark05], labels = [nba, gt2] }]
            }
            rows = [
              { figure = "Figure Z", policy = round-robin, over = fcfs, metric = gpu.utilization, groups = mean,
                paper = 1.0, tolerance = 0.5, tolerance-from = convention, source = "s" }
              { figure = "Figure Z", metric = vms.a.fps, groups = min, where = "second=gt2", at-least = 0, input = true,
                source = "s" }
            ]
          }
        }
        """);
    Path out = dir.resolve("out");
    MainTest.Result r = MainTest.execute("reproduce", "vgris", "--quick", "--no-warm-up", "--conf", conf.toString(),
        "--out", out.toString());
    assertEquals(0, r.status(), r.out() + r.err());
    assertTrue(r.out().contains("fcfs, round-robin in 2 groups x 1 seed"), r.out());
    assertTrue(Files.isRegularFile(out.resolve("vgris/grouped/gt2/round-robin/seed-1/summary.json")));
    JsonNode doc = new ObjectMapper().readTree(out.resolve("reproduction.json").toFile());
    JsonNode mean = doc.get("rows").get(0);
    assertEquals("round-robin / fcfs, mean of 2 groups", mean.get("policy").asText());
    assertEquals(2, mean.get("groups").size());
    // fast forward: every run lags the wall clock, and its figures are judged all the same
    assertTrue(mean.get("faithful").asBoolean(), mean.toString());
    assertEquals("input", doc.get("rows").get(1).get("verdict").asText());
    assertEquals(1, doc.get("counts").get("vgris").get("input").asInt());
    assertTrue(Files.readString(out.resolve("reproduction.md")).contains("input (matches)"));
  }
}
