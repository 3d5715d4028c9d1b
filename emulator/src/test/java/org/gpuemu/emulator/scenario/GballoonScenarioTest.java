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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * gballoon.txt Figures 9-10 on the first 8 s of valley-slots.conf: under gBalloon the Valley VM starts with 384 MB
 * (6 slots) and is given one slot per request, a request every 2 s while it lacks memory (6 -> 7 -> 8 -> 9 over
 * its first scenes), and its FPS reaches gVirt-1024's, which had the memory from the start; gVirt-384 keeps it at
 * 6 slots and slower.
 */
@Tag("slow")
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
    Summary summary = new Summary(Runner.run(s, out.resolve(policy), Runner.Options.every(1000)));
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
    // once grown, within 5 % of gVirt-1024 (paper: about 2 %); gVirt-384 slower (§3.1: a VM lacking memory is
    // degraded by returning objects)
    double balloonFps = balloon.fpsFrom(6);
    double bigFps = big.fpsFrom(6);
    double smallFps = small.fpsFrom(6);
    assertTrue(Math.abs(balloonFps - bigFps) <= 0.05 * bigFps, "gballoon " + balloonFps + ", static-1024 " + bigFps);
    assertTrue(smallFps < bigFps, "static-384 " + smallFps + ", static-1024 " + bigFps);
    assertTrue(balloon.fps().get(0) < balloonFps, "FPS rises as slots come: " + balloon.fps());
  }

  /** Runs {@code conf} (with {@code vms} Valley VMs when > 0) under a memory policy; the summary. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> summary(String conf, int vms, String policy, long seconds, Path out)
      throws Exception {
    Map<String, String> sets = new java.util.LinkedHashMap<>();
    sets.put("memory.policy", policy);
    if (vms > 0) {
      List<String> list = new ArrayList<>();
      for (int v = 1; v <= vms; v++) list.add("v" + v + " { workload = valley }");
      sets.put("vms", "{ " + String.join(", ", list) + " }");
    }
    Settings.Scenario s = ScenarioLoader.load(CONF.resolve(conf),
        new ScenarioLoader.Overrides(FastForward.SCALE, seconds * 1_000_000_000L, null, sets));
    Summary summary = new Summary(Runner.run(s, out.resolve(vms + policy), Runner.Options.every(1000)));
    assertTrue(summary.brokenInvariants().isEmpty(), summary.brokenInvariants().toString());
    return summary.document();
  }

  @SuppressWarnings("unchecked")
  private static double sum(Map<String, Object> doc, String prefix, String key) {
    double sum = 0;
    for (Map.Entry<String, Object> vm : ((Map<String, Object>) doc.get("vms")).entrySet()) {
      if (vm.getKey().startsWith(prefix)) sum += ((Number) ((Map<String, Object>) vm.getValue()).get(key)).doubleValue();
    }
    return sum;
  }

  /**
   * Figure 5 over Valley's whole benchmark (234 s, its demand rising to 13 slots), the VMs' FPS summed: with three
   * and six VMs gVirt-1024 is ahead of gVirt-384, and gBalloon within 10 % of gVirt-1024 at three. (From nine VMs on,
   * and gBalloon from six, the emulator contradicts the paper: docs/papers/gballoon.md says why.)
   */
  @Test
  void figure5_gvirt1024AheadUpTo6Vms_gballoonLikeItAt3(@TempDir Path out) throws Exception {
    Map<Integer, Map<String, Double>> sums = new java.util.TreeMap<>();
    for (int vms : new int[] {3, 6}) {
      for (String policy : vms == 3 ? List.of("static-384", "static-1024", "gballoon")
          : List.of("static-384", "static-1024")) {
        Map<String, Object> doc = summary("valley-3to15.conf", vms, policy, 234, out);
        sums.computeIfAbsent(vms, k -> new java.util.LinkedHashMap<>()).put(policy, sum(doc, "v", "fps"));
      }
    }
    Map<String, Double> three = sums.get(3);
    assertTrue(three.get("static-1024") > three.get("static-384"), "3 VMs: " + three);
    assertEquals(1.0, three.get("gballoon") / three.get("static-1024"), 0.1, "3 VMs: " + three);
    assertTrue(sums.get(6).get("static-1024") > sums.get(6).get("static-384"), "6 VMs: " + sums.get(6));
  }

  /**
   * Figure 8 over Valley's whole benchmark (234 s): 7 VMs of two-threaded cg and 8 of Valley. Valley's ratios are two
   * of the four the guest driver's eviction round and re-binding cost were fitted on (ObjectReturns); this checks that
   * the fitted model is what runs: gBalloon's Valley, with its memory, above gVirt-384's, as the paper has it (+2 %;
   * measured +22 %). The paper's other orderings of this figure (gVirt-1024's Valley above gVirt-384's, cg slower under
   * gVirt-1024 than under gVirt-384 and gBalloon) the model misses: docs/papers/gballoon.md says why.
   */
  @Test
  void figure8_gballoonsValleyAboveGvirt384s(@TempDir Path out) throws Exception {
    Map<String, Double> valley = new java.util.LinkedHashMap<>();
    for (String policy : List.of("static-384", "gballoon")) {
      Map<String, Object> doc = summary("cpu-and-gpu.conf", 0, policy, 234, out);
      valley.put(policy, sum(doc, "v", "fps"));
    }
    assertTrue(valley.get("gballoon") > valley.get("static-384"), "valley " + valley);
  }

  /**
   * Figures 6-7 (10 s: each VM's first benchmark of Table 2, six Valleys, three other 3D benchmarks
   * and six 2D traces): every VM's performance over gVirt-384's (3D by FPS, 2D by operations per second), averaged
   * ({@code Summary#performanceOverFirst}). gVirt-1024 copies 16 slots at most switches and loses (paper: -24 %);
   * gBalloon grows only the Valleys and stays well above gVirt-1024 (paper: 32 % above it). The paper's +8 % over
   * gVirt-384 is left to reproduce's Figure 7 row, which the model misses over the whole run (0.93 with 64 MiB
   * eviction rounds, 0.85 with the refitted 128 MiB: fewer rounds a frame slow gVirt-384's Valleys less), so it is
   * not asserted here (docs/papers/gballoon.md).
   */
  @Test
  void figures6and7_gballoonAboveGvirt384_aboveGvirt1024(@TempDir Path out) throws Exception {
    Map<String, Summary> runs = new java.util.LinkedHashMap<>();
    for (String policy : List.of("static-384", "static-1024", "gballoon")) {
      Settings.Scenario s = ScenarioLoader.load(CONF.resolve("mixed-15vms.conf"),
          new ScenarioLoader.Overrides(FastForward.SCALE, 10_000_000_000L, null,
              Map.of("memory.policy", policy)));
      Summary summary = new Summary(Runner.run(s, out.resolve(policy), Runner.Options.every(1000)));
      assertTrue(summary.brokenInvariants().isEmpty(), summary.brokenInvariants().toString());
      runs.put(policy, summary);
    }
    Map<String, Double> perf = Summary.performanceOverFirst(runs);
    assertTrue(perf.get("static-1024") < 0.92, perf.toString());
    assertTrue(perf.get("gballoon") > 1.2 * perf.get("static-1024"), perf.toString());
  }
}
