package org.gpuemu.emulator.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.clock.TimerLateness;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Goals, table and bench.json from a made-up report: bookkeeping only, no measurement. */
class BenchReportTest {
  @TempDir Path dir;

  private static TimerSection.Row row(String name, long p50, long p99) {
    return new TimerSection.Row(name, 1_000, p50, p99, p99 + 1, p99 + 2);
  }

  private static TimerSection.Condition condition(int timers, String load, long emuP50, long emuP99) {
    List<TimerSection.Row> rows = List.of(row("default", 24_000, 30_000), row("tick", 2_600, 3_800),
        row("emulator", emuP50, emuP99));
    return new TimerSection.Condition(timers, 5, load, rows, TimerSection.Ratios.of(rows));
  }

  private static TimerSection.Report timers() {
    TimerSection.Row floor = row("OS floor", 60, 250);
    return new TimerSection.Report(100, 10_000, 3, 3, "load (8 VMs)",
        List.of(condition(100, "idle", 10, 1_000), condition(1_000, "idle", 40, 120),
            condition(1_000, "loaded", 60, 700), condition(10_000, "idle", 5_000, 9_000)),
        List.of(new TimerSection.Floor("idle", floor, floor)), new TimerLateness.Snapshot(10, 20, 400, 900, 1_000),
        null);
  }

  private static RequestPathSection.Report path() {
    return new RequestPathSection.Report("sync-loop", List.of(
        new RequestPathSection.Row(8, 1, 2, 100_000, 50_000, 0.7, 8, 46, "ok", 15, 20, 2_000),
        new RequestPathSection.Row(8, 10, 20, 160_000, 80_000, 0.4, 128, 610, "ok", 15, 20, 2_000)));
  }

  private static ScaleSection.Report scale() {
    return new ScaleSection.Report("game-60fps", 60, 200, 1_667, List.of(
        new ScaleSection.Trial(1, 30, 150, 300, true, true, 59.9, false, 2.5, "ok"),
        new ScaleSection.Trial(2, 30, 400, 600, false, true, 59.8, false, 2.5, "ok")),
        1, 2, -1, ScaleSection.Heap.of(100, 10 * 1_024 * 1_024, 600, 30 * 1_024 * 1_024));
  }

  private static FastForwardSection.Report fastForward() {
    FastForwardSection.Trial slow = new FastForwardSection.Trial(0.1, 15, Map.of("a", 0.5), 1, 0, 0, true, 40, true);
    FastForwardSection.Trial x2 = new FastForwardSection.Trial(2, 0.8, Map.of("a", 0.5), 1, 0.01, 0.01, true, 600,
        false);
    FastForwardSection.Trial x4 = new FastForwardSection.Trial(4, 0.4, Map.of("a", 0.5), 1, 0.03, 0.01, false, 900,
        false);
    return new FastForwardSection.Report("ref.conf", 1.5, 0.02, slow, List.of(x2, x4), 2, 30, 1, 15, 15, 285);
  }

  private static OverheadSection.Report overhead() {
    return new OverheadSection.Report(List.of(
        new OverheadSection.Row("cuda-loop", 1, 2, "kernels/s", 5454.5, 5350, 0.909, 0.892, 1.0195, 5, 40),
        new OverheadSection.Row("postprocess", 1, 2, "fps", 158, 157.9, 1, 0.9994, 1.0006, 5, 40),
        new OverheadSection.Row("cuda-loop", 10, 20, "kernels/s", 5454.5, 3300, 0.909, 0.55, 1.65, 5, 300)));
  }

  private static HostsSection.Report hosts() {
    return new HostsSection.Report("hosts-4x8", 4, 32, 10, 0.2, List.of(
        new HostsSection.Row(0, List.of(100_000.0), 100_000, 1_000_000, true, 0),
        new HostsSection.Row(1, List.of(100_000.0), 100_000, 1_000_000, true, 0),
        new HostsSection.Row(2, List.of(150_000.0, 170_000.0, 160_000.0), 160_000, 1_000_000, true, 0)));
  }

  private static HostScaleSection.Report hostScale() {
    ScaleSection.Trial ok = new ScaleSection.Trial(256, 30, 150, 300, true, true, 59.9, true, 2.5, "ok");
    ScaleSection.Trial late = new ScaleSection.Trial(512, 30, 90_000, 600, false, false, 41.2, false, 2.5, "ok");
    return new HostScaleSection.Report("game-60fps", 2.5, List.of(
        new HostScaleSection.Layout(1, 1, List.of(ok, late, late), 256, 512),
        new HostScaleSection.Layout(4, 2, List.of(ok), 1_200, -1)));
  }

  static FidelitySection.Report fidelity() {
    FidelitySection.Side run = new FidelitySection.Side(1, true, null, 900, 0, 3.4, "out/runs/fidelity/a-x1");
    FidelitySection.Side ref = new FidelitySection.Side(0.2, false, "p99 too late", 2_000, 12, 15.6,
        "out/runs/fidelity/a");
    FidelityCheck.Comparison c = FidelityCheck.compare(
        Map.of("vms", Map.of("vm1", Map.of("gpu_share", 0.455, "fps", 30.0, "frames", 90))),
        Map.of("vms", Map.of("vm1", Map.of("gpu_share", 0.45, "fps", 30.3, "frames", 91))));
    FidelitySection.Row ok = new FidelitySection.Row("conf/scenarios/vmcg/a.conf", "vmcg", 1L, 3, run, ref, c,
        FidelityCheck.Call.CONFIRMED, true, false, false, null);
    FidelitySection.Row bad = FidelitySection.Row.failed("conf/scenarios/vmcg/b.conf", null, 0, null, null,
        "cannot load: b.conf: broken");
    return new FidelitySection.Report("conf/scenarios", "vmcg/*", 5, 0.02, 0.01, 0.5, 40, List.of(ok, bad),
        FidelityCheck.Totals.of(List.of(FidelityCheck.Call.CONFIRMED), 0, 1));
  }

  private static Map<String, BenchReport.Goal> byName(List<BenchReport.Goal> goals) {
    Map<String, BenchReport.Goal> map = new java.util.LinkedHashMap<>();
    for (BenchReport.Goal g : goals) map.put(g.goal(), g);
    return map;
  }

  @Test
  void goals_areThisRoundsAndTheStandingOnes_eachOnItsSectionsHeadline() {
    Map<String, BenchReport.Goal> g = byName(Goals.of(timers(), path(), scale(), fastForward(), overhead(), hosts()));
    assertEquals(10, g.size());
    assertEquals(false, g.get("VMs with 60 FPS game loops, faithful at scale 1").met(), "1 VM < 1,000");
    assertEquals(false, g.get("synchronous requests, 8 VMs at scale 1").met(), "50,000 at scale 1 < 300,000");
    assertEquals("50,000 /wall s", g.get("synchronous requests, 8 VMs at scale 1").measured());
    assertEquals(false, g.get("CPU per request, 8 VMs at scale 1").met(), "20 us > 4");
    assertEquals(true, g.get("bytes allocated per request, 8 VMs at scale 1").met(), "2,000 <= 2,000");
    assertEquals(false, g.get("timer lateness idle, p99, 10,000 timers").met(), "9,000 us > 2,000");
    assertEquals(false, g.get("timers no later than Pekko's 1 ms tick").met(), "5,000 us > the tick's 2,600 at 10,000");
    assertEquals("later at 10,000", g.get("timers no later than Pekko's 1 ms tick").measured());
    assertEquals(true, g.get("hosts in parallel: 2 threads over 1, same figures").met(), "160,000 / 100,000 = 1.6x");
    assertEquals(false, g.get("heap per idle VM").met(), "20 MiB / 500 VMs = 41 KiB, over 32 KiB");
    assertTrue(g.keySet().stream().noneMatch(k -> k.contains("p50")), "the retired timer goals are gone: " + g.keySet());
  }

  @Test
  void hostScaleGoal_isTheBestLayout_afterTheOneHostGoal_andAbsentWhenNotRun() {
    List<BenchReport.Goal> goals = new java.util.ArrayList<>(Goals.of(null, null, scale(), null, null, null));
    Goals.hostScale(null, goals);
    assertEquals(10, goals.size(), "the section runs only when named: no goal row without it");
    Goals.hostScale(hostScale(), goals);
    assertEquals(11, goals.size());
    BenchReport.Goal g = goals.get(1);
    assertEquals("VMs with 60 FPS game loops, faithful, hosts apart", g.goal());
    assertEquals("1,200 VMs", g.measured());
    assertEquals(true, g.met(), "1,200 >= 1,000");
    assertTrue(g.note().contains("4 host(s) on 2 host thread(s)"), g.note());
  }

  @Test
  void missingSections_areNotMeasured_notFailed() {
    List<BenchReport.Goal> goals = Goals.of(null, null, null, null, null, null);
    assertEquals(10, goals.size());
    for (BenchReport.Goal g : goals) {
      assertNull(g.met(), g.toString());
      assertEquals("not measured", g.measured());
    }
  }

  @Test
  void table_namesEverySection_andJsonUsesSnakeCase() throws Exception {
    BenchReport report = new BenchReport("quick", new BenchReport.Machine(2, "17", "vm", List.of("G1"), 512,
        List.of()), "now", 100, timers(), path(), scale(), fastForward(), overhead(), hosts(), hostScale(), fidelity(),
        Goals.of(timers(), path(), scale(), fastForward(), overhead(), hosts()), Map.of());
    String table = BenchTable.render(report);
    for (String heading : List.of("Timer lateness", "Request path", "Scale", "Fast forward", "Emulation overhead",
        "Hosts in parallel: hosts-4x8", "150,000-170,000", "Scale against hosts and threads",
        "     4             2             1,200                   -  256: yes 150;", "512: no 90,000;",
        "Goals (docs/performance.md)", "OS floor", "Fidelity", "vmcg/a.conf", "vms.vm1.gpu_share 0.0050 abs",
        "vmcg/b.conf                      ERROR: cannot load", "runs 1, faithful 1, verdict right 1, missed 0",
        "conf/scenarios/vmcg/a.conf at scale 0.2: NOT faithful: p99 too late", "12/2,000")) {
      assertTrue(table.contains(heading), heading + " missing from:\n" + table);
    }
    Path file = dir.resolve("bench.json");
    Bench.write(report, file);
    JsonNode json = Bench.json().readTree(file.toFile());
    assertEquals(512, json.path("machine").path("max_heap_mb").asInt());
    assertEquals(80_000, json.path("request_path").path("rows").get(1).path("requests_per_wall_second").asDouble());
    assertEquals(2, json.path("fast_forward").path("highest_same_scale").asDouble());
    assertEquals(10, json.path("goals").size());
    JsonNode row = json.path("fidelity").path("rows").get(0);
    assertEquals("CONFIRMED", row.path("call").asText());
    assertEquals(true, row.path("verdict_right").asBoolean());
    assertEquals("vms.vm1.gpu_share", row.path("comparison").path("largest").path("figure").asText());
    assertEquals("absolute", row.path("comparison").path("largest").path("kind").asText());
    assertEquals(0.2, row.path("reference").path("time_scale").asDouble());
    assertEquals(12, row.path("reference").path("violations").asLong());
    assertEquals(0, json.path("fidelity").path("totals").path("false_alarms").asInt());
    assertTrue(json.path("fidelity").path("rows").get(1).path("run").isNull());
  }

  @Test
  void ratios_areFormattedWithTheFiguresThatMatter() {
    assertEquals("2,029x", BenchTable.times(2_029.4));
    assertEquals("17x", BenchTable.times(17.2));
    assertEquals("1.7x", BenchTable.times(1.72));
    assertEquals("0.83x", BenchTable.times(0.834));
  }

  @Test
  void ratio_ofAZeroEmulatorFigure_staysFinite() {
    assertEquals(30_000.0, TimerSection.Ratios.ratio(30_000, 0));
  }
}
