package org.gpuemu.emulator.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.Map;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.emulator.run.Runner;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Short runs of the COMBO scenario files (conf/scenarios/combo) as fast as the machine goes ({@link FastForward}),
 * with the paper's orderings asserted with margins well inside what the runs measure (see docs/papers/combo.md's COMBO
 * section for the figures): Table 6, Figure 13 (its four games), Figure 14's p99 FPS on those runs,
 * Figures 15 (the headroom distribution) and 16 (merging), and 17 (switching).
 */
@Tag("slow")
class ComboScenarioTest {
  private static final Path CONF = Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios", "combo");
  /** Table 6's BE kernel: mri-q, 1.2 ms, beside a 60 FPS game. */
  private static final double MRIQ_MS = 1.2;
  private static final double TABLE6_FPS = 60;

  /** What one run measured. */
  private record Run(double beThroughput, double beCd, long qosViolations, double fpsP99,
      Map<String, Object> headroom) {
    double headroomMs(String key) {
      return ((Number) headroom.get(key)).doubleValue();
    }
  }

  @SuppressWarnings("unchecked")
  private static Run run(String file, Path out, Map<String, String> sets) throws Exception {
    Settings.Scenario s = ScenarioLoader.load(CONF.resolve(file), new ScenarioLoader.Overrides(FastForward.SCALE, null,
        null, sets));
    Summary summary = new Summary(Runner.run(s, out.resolve(file + "-" + sets.hashCode()), Runner.Options.every(1000)));
    Map<String, Object> doc = summary.document();
    assertTrue(summary.brokenInvariants().isEmpty(), summary.brokenInvariants().toString());
    Map<String, Object> be = (Map<String, Object>) doc.get("be_throughput");
    Map<String, Object> game = (Map<String, Object>) ((Map<String, Object>) doc.get("vms")).get("game");
    return new Run(((Number) be.get("total")).doubleValue(), ((Number) be.get("cd")).doubleValue(),
        ((Number) doc.get("qos_violations")).longValue(), ((Number) game.get("fps_p99")).doubleValue(),
        (Map<String, Object>) game.get("headroom_ms"));
  }

  private static Run run(String file, Path out, String policy) throws Exception {
    return run(file, out, Map.of("scheduler.gpu.policy", policy));
  }

  /** A Table 6 run: mri-q kernels completed per frame (Table 6's unit) and the frames that missed QoS. */
  private record Table6(double mriqPerFrame, long qosViolations) {}

  private static Table6 table6(Path out, String policy, String game) throws Exception {
    Map<String, String> sets = new LinkedHashMap<>();
    sets.put("scheduler.gpu.policy", policy);
    sets.put("vms.game.workload", game);
    // §5.2 predates headroom merging
    if (policy.equals("combo-relaxed")) sets.put("scheduler.gpu.merge-headrooms", "false");
    Run r = run("stable-vs-dynamic.conf", out, sets);
    return new Table6(r.beCd() / MRIQ_MS / TABLE6_FPS, r.qosViolations());
  }

  @Test
  void table6_exactIsBetterUnderAStableLoad_relaxedUnderADynamicOne(@TempDir Path out) throws Exception {
    // paper: exact 1.45 (stable) / 1.0 (dynamic), relaxed 0.998 / 1.16 mri-q kernels per frame
    Table6 exactDynamicRun = table6(out, "combo-exact", "combo-table6-dynamic");
    double exactStable = table6(out, "combo-exact", "combo-table6").mriqPerFrame();
    double relaxedStable = table6(out, "combo-relaxed", "combo-table6").mriqPerFrame();
    double exactDynamic = exactDynamicRun.mriqPerFrame();
    double relaxedDynamic = table6(out, "combo-relaxed", "combo-table6-dynamic").mriqPerFrame();
    String all = String.format("exact %.3f / %.3f (%d QoS misses), relaxed %.3f / %.3f", exactStable, exactDynamic,
        exactDynamicRun.qosViolations(), relaxedStable, relaxedDynamic);
    // Table 6's ordering: exact is better under the stable load, relaxed under the dynamic one, where each change of
    // the split costs the BE group its frame (measured, see docs/papers/combo.md: exact 1.34 / 0.98, relaxed 1.02 / 1.27)
    // (ratios 1.31-1.34 and 1.28-1.31 over seven runs each, two of them on a loaded machine; without the suspension
    // the dynamic one was 1.06-1.11)
    assertTrue(exactStable > 1.15 * relaxedStable, all);
    assertTrue(relaxedDynamic > 1.15 * exactDynamic, all);
    // "a sacrifice of the BE application in that frame to meet the QoS target": without the suspension a BE kernel
    // held SMs of the grown render group and 12 to 15 of the 56 frames missed; with it only the first frames do (1 to
    // 4 measured, on a loaded machine too), which render beside the BE kernels launched before the game started
    assertTrue(exactDynamicRun.qosViolations() <= 8, all);
    // relaxed under the stable load runs one kernel per frame, as §5.2 explains (0.998)
    assertEquals(1.0, relaxedStable, 0.15, all);
  }

  @Test
  void figures14_17_bothKeepP99FpsAbove114_andComboGainsBySwitching(@TempDir Path out) throws Exception {
    // Figure 13's claims (every one of the 128 groups gains; per-game means 8.55-16.8 % over 32 groups each) are
    // judged by reproduce's rows. These files are one group each; with the DNN kernels derived from the RTX 3090 and
    // the co-location gain by memory class, The Ascent beside DenseNet-121 and cutcp measured 0.991 (DenseNet's
    // 0.01-0.6 ms kernels fit PilotFish's idle periods; cutcp is memory-intensive), so no group's gain is asserted
    Run quake2 = null;
    for (String game : new String[] {"quake2", "dutm", "steel", "ascent"}) {
      String file = "vs-pilotfish-" + game + ".conf";
      Run pilotfish = run(file, out, "pilotfish");
      Run combo = run(file, out, "combo");
      String both = game + ": combo " + combo + ", pilotfish " + pilotfish;
      assertTrue(combo.fpsP99() >= 114, both);
      assertTrue(pilotfish.fpsP99() >= 114, both);
      if (game.equals("quake2")) quake2 = combo;
    }
    // Figure 17: switching.conf is vs-pilotfish-quake2.conf (the same VMs) under another heading; its combo run is
    // the one above
    Run relaxed = run("switching.conf", out, "combo-relaxed");
    assertTrue(quake2.beThroughput() > 1.02 * relaxed.beThroughput(), "combo " + quake2 + ", relaxed " + relaxed);
  }

  @Test
  void figures15_16_mergingHeadroomsJoinsThemAndImprovesThroughput(@TempDir Path out) throws Exception {
    Run noMerge = run("headroom-merge.conf", out, "combo-nm");
    Run combo = run("headroom-merge.conf", out, "combo");
    String both = "combo " + combo + ", combo-nm " + noMerge;
    assertTrue(combo.beThroughput() > 1.03 * noMerge.beThroughput(), both);
    assertTrue(combo.fpsP99() >= 114, "combo " + combo);
    // Figure 15: merging joins two adjacent headrooms into one, so the long headrooms grow (about twice: measured p90
    // 4.5 against 2.3 ms) while the merged frame's own, which it gave up, shrinks to the guard (p10 0.1 against 1.0)
    assertTrue(combo.headroomMs("p90") > 1.5 * noMerge.headroomMs("p90"), both);
    assertTrue(combo.headroomMs("p10") < 0.5 * noMerge.headroomMs("p10"), both);
    assertEquals(noMerge.headroomMs("count"), combo.headroomMs("count"), 5, both);
  }
}
