package org.gpuemu.emulator.report.html;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The page builder on hand-written run folders: what is inlined, what is charted, what is left out. */
class ReportPageTest {
  /** Any element loading from the network: a src or href that is an http(s) or protocol-relative URL. */
  private static final Pattern REMOTE = Pattern.compile(
      "<(script|link|img|iframe|source|object|embed)\\b[^>]*\\b(src|href|data)\\s*=\\s*[\"']?\\s*(https?:)?//",
      Pattern.CASE_INSENSITIVE);

  @TempDir Path dir;

  private String page(String fixture) throws Exception {
    Path written = ReportPage.write(Fixtures.copy(fixture, dir));
    assertEquals(ReportPage.FILE, written.getFileName().toString());
    return Files.readString(written);
  }

  @Test
  void runPage_inlinesTheWholeChartLibrary_andLoadsNothingFromTheNetwork() throws Exception {
    String html = page("hybrid");
    String library = EChartsLibrary.script();
    assertTrue(library.length() > 500_000, "the minified ECharts bundle is about 1 MB: " + library.length());
    assertTrue(html.contains(library), "the ECharts bundle is not inlined");
    assertEquals("5.3.1", EChartsLibrary.version(), "the version pinned in the parent pom");
    assertFalse(REMOTE.matcher(html).find(), "an element loads from the network");
    assertFalse(Pattern.compile("<script[^>]*\\bsrc\\s*=", Pattern.CASE_INSENSITIVE).matcher(html).find(),
        "every script is inline");
    assertFalse(html.contains("<link"), "no stylesheet or other link element");
  }

  @Test
  void runPage_inlinesTheSummaryAndTimelineAsJson() throws Exception {
    String html = page("hybrid");
    JsonNode data = Fixtures.data(html);
    JsonNode summary = RunData.JSON.readTree(dir.resolve("hybrid/summary.json").toFile());
    assertEquals(summary, data.get("summary"));
    assertEquals(15, data.get("timeline").size(), "every row of timeline.jsonl, the short last period included");
  }

  @Test
  void hybridRun_chartsFramesFairnessAndFidelity_andNothingItHasNoDataFor() throws Exception {
    Set<String> panels = Fixtures.panels(page("hybrid"));
    assertEquals(List.of("fps", "share", "latency", "fairness-time", "normalized", "lateness", "causality", "violations"),
        new ArrayList<>(panels), "no COMBO, memory or gBalloon panel: the run has none of their data");
  }

  @Test
  void fpsPanel_marksTheModeSwitch_andTheSla_andLeavesOutTheIdleVmAndTheShortLastPeriod() throws Exception {
    JsonNode option = Fixtures.option(page("hybrid"), "fps");
    List<String> vms = new ArrayList<>();
    option.path("series").forEach(s -> vms.add(s.path("name").asText()));
    assertEquals(List.of("dirt3", "nba2012"), vms, "'idle' never presented a frame");
    JsonNode dirt3 = option.path("series").get(0).path("data");
    assertEquals(4, dirt3.size(), "periods ending at 1..4 s; the 15 ms drain period after 4 s is left out");
    JsonNode marks = option.path("series").get(0).path("markLine").path("data");
    // the mode column turns sla-aware in the period ending at 3 s, so the switch is marked at that period's start
    assertEquals(30.0, marks.get(0).path("yAxis").asDouble(), "the SLA line first");
    assertEquals(2.0, marks.get(1).path("xAxis").asDouble());
    assertEquals("→ sla-aware", marks.get(1).path("label").path("formatter").asText());
    assertEquals(2, marks.size());
  }

  @Test
  void latencyPanel_drawsPercentileBars_andSaysWhyThereIsNoCdf() throws Exception {
    String html = page("hybrid");
    JsonNode option = Fixtures.option(html, "latency");
    assertEquals("bar", option.path("series").get(0).path("type").asText());
    assertEquals(List.of("dirt3", "nba2012"), texts(option.path("xAxis").path("data")));
    assertEquals(List.of("p50", "p99", "max"), texts(option.path("series").findValues("name")));
    assertTrue(html.contains("no CDF"), "the caption says why no CDF is drawn");
  }

  @Test
  void fidelity_showsTheVerdictWithItsReason_andTheViolationLimit() throws Exception {
    String html = page("hybrid");
    assertTrue(html.contains("Verdict: NOT FAITHFUL: causality: an event was handled 11904 us after a later one"),
        "the banner");
    JsonNode sizes = Fixtures.option(html, "violations");
    assertEquals(1200.7, sizes.path("series").get(0).path("markLine").path("data").get(0).path("yAxis").asDouble());
    assertTrue(html.contains("Real-time factor 0.9318"), "the real-time factor");
  }

  @Test
  void comboRun_chartsBeThroughputFpsPercentilesAndTheHeadroomHistogram() throws Exception {
    String html = page("combo");
    Set<String> panels = Fixtures.panels(html);
    assertTrue(panels.containsAll(List.of("be", "fps-pct", "headroom")), panels.toString());
    assertFalse(panels.contains("violations"), "no causality violation, so no sizes panel");
    JsonNode headroom = Fixtures.option(html, "headroom");
    assertEquals(List.of("0–1 ms", "1–2 ms", "2–3 ms", "3–4 ms", "4–5 ms"), texts(headroom.path("xAxis").path("data")));
    assertEquals(List.of(150.0, 1.0, 20.0, 60.0, 8.0), numbers(headroom.path("series").get(0).path("data")));
    JsonNode fps = Fixtures.option(html, "fps");
    // the scheme (the timeline's mode) turns relaxed in the period ending at 2 s: marked at that period's start
    JsonNode modeSwitch = fps.path("series").get(0).path("markLine").path("data").get(1);
    assertEquals(1.0, modeSwitch.path("xAxis").asDouble());
    assertEquals("→ relaxed", modeSwitch.path("label").path("formatter").asText(), "COMBO's scheme switch");
  }

  @Test
  void gballoonRun_chartsSlotsMemoryAndTheProfile_butNoFairnessFromOneVm() throws Exception {
    Set<String> panels = Fixtures.panels(page("gballoon"));
    assertTrue(panels.containsAll(List.of("slots", "memory", "profile")), panels.toString());
    assertFalse(panels.contains("normalized"), "normalized throughput needs two VMs");
    assertFalse(panels.contains("causality"), "the summary has no causality record");
  }

  @Test
  void runWithoutTimeline_keepsTheSummaryPanels_andDropsTheTimeCharts() throws Exception {
    Path run = Fixtures.copy("hybrid", dir);
    Files.delete(run.resolve("timeline.jsonl"));
    Set<String> panels = Fixtures.panels(Files.readString(ReportPage.write(run)));
    assertEquals(List.of("latency", "fairness", "normalized", "lateness", "causality", "violations"),
        new ArrayList<>(panels), "MMR and λ fall back to their final values");
  }

  @Test
  void comparePage_putsThePoliciesSideBySide_andWritesEachPolicysOwnReport() throws Exception {
    String html = page("compare");
    Set<String> panels = Fixtures.panels(html);
    assertTrue(panels.containsAll(List.of("cmp-fps", "cmp-gpu_share", "cmp-normalized_throughput", "cmp-fairness",
        "cmp-ratios", "cmp-fidelity", "fcfs-fps", "vgris-share-fps")), panels.toString());
    assertFalse(panels.contains("cmp-normalized_run_time"), "null for every policy");
    assertFalse(panels.contains("cmp-be"), "no BE rows");
    JsonNode fps = Fixtures.option(html, "cmp-fps");
    assertEquals(List.of("fcfs", "vgris-share"), texts(fps.path("series").findValues("name")));
    assertEquals(List.of(60.0, 25.0), numbers(fps.path("series").get(0).path("data")));
    assertTrue(html.contains("href=\"fcfs/report.html\""), "links each policy's report");
    assertTrue(Files.isRegularFile(dir.resolve("compare/fcfs/report.html")));
    assertTrue(Files.isRegularFile(dir.resolve("compare/vgris-share/report.html")));
  }

  @Test
  void aVmNamedLikeMarkup_cannotBreakOutOfTheDataScript() throws Exception {
    Path run = Fixtures.copy("hybrid", dir);
    String evil = "</script><script>alert(1)</script>";
    for (String file : List.of("summary.json", "timeline.jsonl")) {
      Path f = run.resolve(file);
      Files.writeString(f, Files.readString(f).replace("nba2012", evil.replace("/", "\\/")));
    }
    String html = Files.readString(ReportPage.write(run));
    assertFalse(html.contains(evil), "the name appears only escaped");
    assertTrue(Fixtures.data(html).path("summary").path("vms").has(evil), "and the data still parses");
  }

  @Test
  void folderWithoutSummaryOrCompare_isAReportException_namingTheFolder() {
    ReportException e = assertThrows(ReportException.class, () -> ReportPage.write(dir));
    assertEquals(dir + ": neither summary.json nor compare.json here (not a run or compare folder)", e.getMessage());
  }

  @Test
  void badTimelineLine_isAReportException_namingFileAndLine() throws Exception {
    Path run = Fixtures.copy("gballoon", dir);
    Files.writeString(run.resolve("timeline.jsonl"), "{\"t_s\":1.0,\"vm\":\"valley\"}\n{oops\n");
    ReportException e = assertThrows(ReportException.class, () -> ReportPage.write(run));
    assertTrue(e.getMessage().startsWith(run.resolve("timeline.jsonl") + ":2: not JSON"), e.getMessage());
  }

  private static List<String> texts(Iterable<JsonNode> nodes) {
    List<String> out = new ArrayList<>();
    nodes.forEach(n -> out.add(n.asText()));
    return out;
  }

  private static List<Double> numbers(JsonNode nodes) {
    List<Double> out = new ArrayList<>();
    nodes.forEach(n -> out.add(n.asDouble()));
    return out;
  }

  @Test
  void controlledRun_drawsTheLatencyCdf_fairnessAndRealTimeFactorOverTime_andTheHistograms() throws Exception {
    String html = page("controlled");
    Set<String> panels = Fixtures.panels(html);
    assertEquals(List.of("fps", "share", "latency-cdf", "fairness-time", "normalized", "rtf", "lateness",
        "lateness-histogram", "causality"), new ArrayList<>(panels));
    JsonNode cdf = Fixtures.option(html, "latency-cdf").path("series").get(0).path("data");
    assertEquals(101, cdf.size(), "the latency at 0, 1, ..., 100 % of the frames");
    assertEquals(0.0, cdf.get(0).get(1).asDouble());
    assertEquals(1.0, cdf.get(100).get(1).asDouble());
    JsonNode summary = RunData.JSON.readTree(dir.resolve("controlled/summary.json").toFile());
    assertEquals(summary.path("vms").path("nba2012").path("frame_latency_ms").path("max").asDouble(),
        cdf.get(100).get(0).asDouble(), "the last point is the longest frame");
    JsonNode fairness = Fixtures.option(html, "fairness-time").path("series");
    assertEquals("MMR", fairness.get(0).path("name").asText());
    assertEquals("λ", fairness.get(1).path("name").asText());
    JsonNode rtf = Fixtures.option(html, "rtf").path("series").get(0).path("data");
    assertTrue(rtf.size() >= 5, "a sample per progress period: " + rtf);
  }

  @Test
  void controlledRun_shadesTheFaultWindowOnEveryTimeChart_andMarksTheControls() throws Exception {
    String html = page("controlled");
    for (String id : List.of("fps", "share", "fairness-time", "rtf")) {
      JsonNode first = Fixtures.option(html, id).path("series").get(0);
      JsonNode window = first.path("markArea").path("data").get(0);
      assertEquals(2.0, window.get(0).path("xAxis").asDouble(), id + ": the stall struck at 2 s");
      assertEquals(2.3, window.get(1).path("xAxis").asDouble(), id + ": and healed at 2.3 s");
      assertTrue(window.get(0).path("name").asText().startsWith("vcpu-stall 3dmark05 (recovered in 3.2 ms"),
          window.get(0).path("name").asText());
      List<String> lines = new ArrayList<>();
      first.path("markLine").path("data").forEach(d -> lines.add(d.path("label").path("formatter").asText()));
      assertTrue(lines.contains("share nba2012 = 0.5"), id + ": " + lines);
      assertTrue(lines.contains("paused 3 s wall"), id + ": " + lines);
    }
    assertTrue(html.contains("<td>control: share</td><td>nba2012</td><td>= 0.5, applied</td>"), "the events table");
    assertTrue(html.contains("<td>fault vcpu-stall</td><td>3dmark05</td><td>healed at 2.3 s, recovered 3.2 ms after"
        + "</td>"), "the fault's row");
  }

  @Test
  void comparePage_drawsThePapersValueBesideWhatTheCompareMeasured() throws Exception {
    String html = page("compare");
    JsonNode fps = Fixtures.option(html, "cmp-paper-0");
    assertEquals(List.of("nba2012 (vgris-share)", "dirt3 (vgris-share)"),
        RunData.JSON.convertValue(fps.path("xAxis").path("data"), List.class));
    assertEquals("measured here", fps.path("series").get(0).path("name").asText());
    assertEquals(40.0, fps.path("series").get(0).path("data").get(0).asDouble());
    assertEquals("paper", fps.path("series").get(1).path("name").asText());
    assertEquals(79.16, fps.path("series").get(1).path("data").get(0).asDouble());
    assertTrue(html.contains("vgris-share: the paper says at least 0.99."), "a bound is said in the caption");
  }
}
