package org.gpuemu.emulator.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.emulator.run.Runner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * gballoon.txt Figures 9-10 on the first 8 s of valley-slots.conf: under gBalloon the Valley VM starts with 384 MB
 * (6 slots) and is given one slot per request, a request every 2 s while it lacks memory (6 -> 7 -> 8 -> 9 over
 * its first scenes), and its FPS reaches gVirt-1024's, which had the memory from the start; gVirt-384 keeps it at
 * 6 slots and slower.
 */
class GballoonScenarioTest {
  private static final Path CONF = Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios", "gballoon");
  private static final ObjectMapper JSON = new ObjectMapper();

  private record Valley(List<Integer> slots, List<Double> fps) {
    double fpsFrom(int second) {
      return fps.subList(second - 1, fps.size()).stream().mapToDouble(Double::doubleValue).average().orElse(0);
    }
  }

  private static Valley run(String policy, Path out) throws Exception {
    Settings.Scenario s = ScenarioLoader.load(CONF.resolve("valley-slots.conf"),
        new ScenarioLoader.Overrides(FastForward.SCALE, 8_000_000_000L, null,
            Map.of("memory.policy", policy)));
    Summary summary = new Summary(Runner.run(s, out.resolve(policy), v -> { }, 1000));
    assertTrue(summary.brokenInvariants().isEmpty(), summary.brokenInvariants().toString());
    List<Integer> slots = new ArrayList<>();
    List<Double> fps = new ArrayList<>();
    for (String line : Files.readAllLines(out.resolve(policy).resolve("timeline.jsonl"))) {
      JsonNode row = JSON.readTree(line);
      double t = row.get("t_s").asDouble();
      if (t != Math.rint(t)) continue; // the partial period after the end
      slots.add(row.get("memory_slots").asInt());
      fps.add(row.get("fps").asDouble());
    }
    return new Valley(slots, fps);
  }

  @Test
  void valleyGrowsSlotBySlot_andCatchesUpWithGvirt1024(@TempDir Path out) throws Exception {
    Valley balloon = run("gballoon", out);
    Valley big = run("static-1024", out);
    Valley small = run("static-384", out);
    // slots: one at a time, never down, from 6 to at least 9 within 8 s (Figure 9: 6, 7, 8, 9 at 0, 2 and 4 s)
    for (int i = 1; i < balloon.slots().size(); i++) {
      int step = balloon.slots().get(i) - balloon.slots().get(i - 1);
      assertTrue(step == 0 || step == 1, "slots " + balloon.slots());
    }
    assertTrue(balloon.slots().get(balloon.slots().size() - 1) >= 9, "slots " + balloon.slots());
    assertEquals(6, small.slots().get(small.slots().size() - 1));
    // once grown, within 5 % of gVirt-1024 (paper: about 2 %); gVirt-384 clearly slower (Figure 6: up to 28 %)
    double balloonFps = balloon.fpsFrom(6);
    double bigFps = big.fpsFrom(6);
    double smallFps = small.fpsFrom(6);
    assertTrue(Math.abs(balloonFps - bigFps) <= 0.05 * bigFps, "gballoon " + balloonFps + ", static-1024 " + bigFps);
    assertTrue(smallFps < 0.9 * bigFps, "static-384 " + smallFps + ", static-1024 " + bigFps);
    assertTrue(balloon.fps().get(0) < balloonFps, "FPS rises as slots come: " + balloon.fps());
  }

  /** Runs {@code conf} (keeping only its first {@code vms} VMs when given) under a memory policy; the summary. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> summary(String conf, int vms, String policy, long seconds, Path out)
      throws Exception {
    Path file = CONF.resolve(conf);
    if (vms > 0) {
      List<String> kept = new ArrayList<>();
      for (String line : Files.readAllLines(file)) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^\\s+v(\\d+) \\{").matcher(line);
        if (!m.find() || Integer.parseInt(m.group(1)) <= vms) kept.add(line);
      }
      file = out.resolve(vms + "-" + conf);
      Files.write(file, kept);
    }
    Settings.Scenario s = ScenarioLoader.load(file,
        new ScenarioLoader.Overrides(FastForward.SCALE, seconds * 1_000_000_000L, null,
            Map.of("memory.policy", policy)));
    Summary summary = new Summary(Runner.run(s, out.resolve(vms + policy), v -> { }, 1000));
    assertTrue(summary.brokenInvariants().isEmpty(), summary.brokenInvariants().toString());
    return summary.document();
  }

  /** The VMs' frames per second summed, from second {@code from} of the timeline on (whole periods only). */
  private static double fpsSumFrom(Path run, int from) throws Exception {
    double frames = 0;
    double last = from;
    for (String line : Files.readAllLines(run.resolve("timeline.jsonl"))) {
      JsonNode row = JSON.readTree(line);
      double t = row.get("t_s").asDouble();
      if (t != Math.rint(t) || t <= from) continue;
      frames += row.get("frames").asDouble();
      last = Math.max(last, t);
    }
    return frames / (last - from);
  }

  /**
   * Figure 5 over Valley's first 12 s (its first scene: 9 slots needed, 6 held under gVirt-384), FPS summed over the
   * VMs from 6 s on, once gBalloon has grown them. 3 VMs of 1024 MB do not overlap, so gVirt-1024 copies no more
   * than gVirt-384 and wins by Valley's memory (3.1 times here); gBalloon's ranges, placed apart, grow to 9 slots
   * without sharing and come close to it. At 6 VMs the 1024 MB ranges overlap and each switch copies 14 slots more,
   * which takes most of that lead away (over the whole benchmark, whose later scenes lack more, gVirt-1024 keeps a
   * lead: see the README); gBalloon's 9-slot ranges nearly tile the map and copy far less.
   */
  @Test
  void figure5_gvirt1024LeadsAt3Vms_gballoonCloseToIt_at6MostOfTheLeadIsGone_gballoonAboveBoth(@TempDir Path out)
      throws Exception {
    Map<Integer, Map<String, Double>> sums = new java.util.TreeMap<>();
    for (int vms : new int[] {3, 6}) {
      for (String policy : List.of("static-384", "static-1024", "gballoon")) {
        summary("valley-3to15.conf", vms, policy, 12, out);
        // after gBalloon's growth to the first scene's 9 slots (three asks 2 s apart, Figure 9)
        sums.computeIfAbsent(vms, k -> new java.util.LinkedHashMap<>())
            .put(policy, fpsSumFrom(out.resolve(vms + policy), 6));
      }
    }
    Map<String, Double> three = sums.get(3);
    Map<String, Double> six = sums.get(6);
    double lead3 = three.get("static-1024") / three.get("static-384");
    double lead6 = six.get("static-1024") / six.get("static-384");
    assertTrue(lead3 > 2, "3 VMs: " + three);
    assertTrue(three.get("gballoon") > 0.85 * three.get("static-1024"), "3 VMs: " + three);
    assertTrue(lead6 < lead3 / 2 && lead6 > 0.8, "6 VMs: " + six + ", 3 VMs: " + three);
    assertTrue(six.get("gballoon") > 1.1 * Math.max(six.get("static-384"), six.get("static-1024")), "6 VMs: " + six);
  }

  /**
   * Figure 8 (10 s): 7 VMs of two-threaded cg and 8 of Valley. The GTT copies are Dom0's work, ahead
   * of the vCPUs, on every core in turn: gVirt-1024's overlapping ranges copy 16 slots and the low range at every
   * switch and take the most CPU time from cg, gBalloon, which grows the Valley VMs only to the 9 slots they need,
   * less. Since the copies do not wait behind vCPUs, Valley under gVirt-1024 stays level with gVirt-384 (paper: +4 %;
   * when the copies shared their core fairly, -44 %), and gBalloon's Valley, with its memory and fewer copies, is
   * above both.
   */
  @Test
  @SuppressWarnings("unchecked")
  void figure8_gvirt1024CostsCgTheMost_gballoonLess_valleyLevelUnder1024(@TempDir Path out) throws Exception {
    Map<String, Double> cg = new java.util.LinkedHashMap<>();
    Map<String, Double> valley = new java.util.LinkedHashMap<>();
    for (String policy : List.of("static-384", "static-1024", "gballoon")) {
      Map<String, Object> doc = summary("cpu-and-gpu.conf", 0, policy, 10, out);
      Map<String, Map<String, Object>> vms = (Map<String, Map<String, Object>>) doc.get("vms");
      vms.forEach((name, vm) -> {
        Map<String, Double> to = name.startsWith("c") ? cg : valley;
        to.merge(policy, ((Number) vm.get(name.startsWith("c") ? "cpu_ms" : "fps")).doubleValue(), Double::sum);
      });
    }
    assertTrue(cg.get("static-1024") < 0.97 * cg.get("static-384"), "cg " + cg);
    assertTrue(cg.get("gballoon") > cg.get("static-1024"), "cg " + cg);
    assertTrue(cg.get("gballoon") < cg.get("static-384"), "cg " + cg);
    double level = valley.get("static-1024") / valley.get("static-384");
    assertTrue(level > 0.85 && level < 1.2, "valley " + valley);
    assertTrue(valley.get("gballoon") > 1.1 * valley.get("static-384"), "valley " + valley);
  }

  /**
   * Figures 6-7 (10 s: each VM's first benchmark of Table 2, six Valleys, three other 3D benchmarks
   * and six 2D traces): every VM's performance over gVirt-384's (3D by FPS, 2D by operations per second), averaged
   * ({@code Summary#performanceOverFirst}). gVirt-1024 copies 16 slots at most switches and loses (paper: -24 %);
   * gBalloon grows only the Valleys and gains (paper: +8 %, and 32 % above gVirt-1024).
   */
  @Test
  void figures6and7_gballoonAboveGvirt384_aboveGvirt1024(@TempDir Path out) throws Exception {
    Map<String, Summary> runs = new java.util.LinkedHashMap<>();
    for (String policy : List.of("static-384", "static-1024", "gballoon")) {
      Settings.Scenario s = ScenarioLoader.load(CONF.resolve("mixed-15vms.conf"),
          new ScenarioLoader.Overrides(FastForward.SCALE, 10_000_000_000L, null,
              Map.of("memory.policy", policy)));
      Summary summary = new Summary(Runner.run(s, out.resolve(policy), v -> { }, 1000));
      assertTrue(summary.brokenInvariants().isEmpty(), summary.brokenInvariants().toString());
      runs.put(policy, summary);
    }
    Map<String, Double> perf = Summary.performanceOverFirst(runs);
    assertTrue(perf.get("static-1024") < 0.92, perf.toString());
    assertTrue(perf.get("gballoon") > 1.04, perf.toString());
    assertTrue(perf.get("gballoon") > 1.2 * perf.get("static-1024"), perf.toString());
  }
}
