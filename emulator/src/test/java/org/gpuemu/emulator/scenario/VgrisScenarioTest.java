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
 * Short runs of the VGRIS scenario files (conf/scenarios/vgris), asserting the paper's outcomes with tolerances:
 * issue 3's "done when" list. Each run is a few emulated seconds, as fast as the machine goes ({@link FastForward}).
 */
class VgrisScenarioTest {
  private static final Path CONF = Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios");
  private static final ObjectMapper JSON = new ObjectMapper();

  private static Summary run(String file, long seconds, Map<String, String> sets, Path out) throws Exception {
    return run(file, seconds, null, sets, out);
  }

  private static Summary run(String file, long seconds, Long seed, Map<String, String> sets, Path out)
      throws Exception {
    Settings.Scenario s = ScenarioLoader.load(CONF.resolve(file),
        new ScenarioLoader.Overrides(FastForward.SCALE, seconds * 1_000_000_000L, seed, sets));
    Summary summary = new Summary(Runner.run(s, out, Runner.Options.every(500)));
    assertTrue(summary.brokenInvariants().isEmpty(), summary.brokenInvariants().toString());
    return summary;
  }

  @SuppressWarnings("unchecked")
  private static double vm(Summary s, String name, String key) {
    Map<String, Object> vms = (Map<String, Object>) s.document().get("vms");
    return ((Number) ((Map<String, Object>) vms.get(name)).get(key)).doubleValue();
  }

  /** Timeline rows of one VM, whole periods only, skipping the first {@code skip} seconds (start-up). */
  private static List<JsonNode> timeline(Path out, String vm, double skip) throws Exception {
    List<JsonNode> rows = new ArrayList<>();
    for (String line : Files.readAllLines(out.resolve("timeline.jsonl"))) {
      JsonNode row = JSON.readTree(line);
      double t = row.get("t_s").asDouble();
      if (row.get("vm").asText().equals(vm) && t > skip && t == Math.rint(t)) rows.add(row);
    }
    return rows;
  }

  @Test
  void slaAware_holdsFeasibleVmsAtTheirSla_andRaisesTheStarvedOneAgainstFcfs(@TempDir Path out) throws Exception {
    Summary fcfs = run("vgris/sla-aware.conf", 6, Map.of("scheduler.gpu.policy", "fcfs"), out.resolve("fcfs"));
    Summary sla = run("vgris/sla-aware.conf", 6, Map.of(), out.resolve("sla"));
    // Figure 7: NBA 2012 and DiRT 3 are held at 30 FPS (within 10 %); GT2 rises markedly (paper +65.05 %)
    for (String name : new String[] {"nba2012", "dirt3"}) {
      double fps = vm(sla, name, "fps");
      assertTrue(Math.abs(fps - 30) <= 3, name + " fps " + fps);
    }
    double before = vm(fcfs, "3dmark05", "fps");
    double after = vm(sla, "3dmark05", "fps");
    assertTrue(after > 1.4 * before, "GT2 fps " + before + " under fcfs, " + after + " under SLA-aware");
    // and fewer of its frames miss 33 ms (paper: 6.22 % -> 3.19 %; fcfs here misses nearly all). Both runs see the
    // same scenes (a scene depends on the emulated time only), and the 6 s hold one scene of GT2's: in this seed one
    // too heavy to pace at 33 ms beside the other two (GT2 below 30 FPS), so only the direction holds here
    double overFcfs = vm(fcfs, "3dmark05", "frames_over_sla_pct");
    double overSla = vm(sla, "3dmark05", "frames_over_sla_pct");
    assertTrue(overSla < overFcfs, "GT2 over-SLA % " + overFcfs + " -> " + overSla);
    // Figure 6: under this contention a Present costs milliseconds without Flush (paper 11.70 ms on average) and
    // less with it (0.48 ms); the agents report every Present's cost and their prediction for it
    for (String name : new String[] {"nba2012", "dirt3", "3dmark05"}) {
      JsonNode withoutFlush = present(fcfs, name);
      JsonNode withFlush = present(sla, name);
      assertTrue(withoutFlush.path("calls").asLong() > 0 && withFlush.path("calls").asLong() > 0,
          name + " " + withoutFlush + withFlush);
      double costWithout = withoutFlush.path("cost_ms").path("mean").asDouble();
      double costWith = withFlush.path("cost_ms").path("mean").asDouble();
      assertTrue(costWith < costWithout, name + " Present cost " + costWithout + " -> " + costWith);
      assertTrue(withFlush.has("prediction_failures_pct"), name + " " + withFlush);
    }
  }

  private static JsonNode present(Summary s, String vm) {
    return JSON.valueToTree(s.document()).path("vms").path(vm).path("present");
  }

  /**
   * Figure 7b's pacing where its premise holds: in seed 2 GT2's scene for these 6 s fits in what the other two leave
   * at 30 FPS (asserted first: GT2 reaches its SLA), and then far fewer of its frames miss 33 ms than under fcfs
   * (paper: 6.22 % -> 3.19 %; fcfs here misses nearly all). Paced frames last exactly the 33 ms target, which is not
   * over it. The seed is picked for the premise, not for the outcome: whether a scene fits is the draw's, and in a
   * scene that does not fit (seed 1, the test above) every paced frame is a little over 33 ms.
   */
  @Test
  void slaAware_pacesTheStarvedOneAt33ms_inAShortSceneItsShareFits(@TempDir Path out) throws Exception {
    Summary fcfs = run("vgris/sla-aware.conf", 6, 2L, Map.of("scheduler.gpu.policy", "fcfs"), out.resolve("fcfs"));
    Summary sla = run("vgris/sla-aware.conf", 6, 2L, Map.of(), out.resolve("sla"));
    double fps = vm(sla, "3dmark05", "fps");
    assertTrue(fps >= 29.7, "premise: GT2's scene in seed 2 fits beside the other two at 30 FPS, but fps " + fps);
    double overFcfs = vm(fcfs, "3dmark05", "frames_over_sla_pct");
    double overSla = vm(sla, "3dmark05", "frames_over_sla_pct");
    assertTrue(overSla < 50 && overSla < overFcfs / 3, "GT2 over-SLA % " + overFcfs + " -> " + overSla);
  }

  @Test
  void proportionalShare_usageTracksTheShares_andExceedsSlaAware(@TempDir Path out) throws Exception {
    Summary share = run("vgris/proportional-share.conf", 8, Map.of(), out.resolve("share"));
    Summary sla = run("vgris/proportional-share.conf", 6, Map.of("scheduler.gpu.policy", "vgris-sla"),
        out.resolve("sla"));
    // Table 2: NBA 2012 at share 0.3 uses 30.12 %, GT1 at 0.5 uses 50.30 % (both are GPU-hungry: they need
    // 44.48 % and 70.82 % alone); within 15 % of the share, measured after the first second
    Map<String, Double> shares = Map.of("nba2012", 0.3, "3dmark05", 0.5);
    for (Map.Entry<String, Double> e : shares.entrySet()) {
      List<JsonNode> rows = timeline(out.resolve("share"), e.getKey(), 1);
      double usage = rows.stream().mapToDouble(r -> r.get("gpu_usage").asDouble()).average().orElse(0);
      assertTrue(Math.abs(usage - e.getValue()) <= 0.15 * e.getValue(), e.getKey() + " GPU usage " + usage);
      assertEquals(e.getValue(), vm(share, e.getKey(), "share"), 1e-9);
      // proportional share uses more of the GPU than SLA-aware at 30 FPS (Table 2)
      double slaUsage = vm(sla, e.getKey(), "gpu_usage");
      assertTrue(usage > 1.5 * slaUsage, e.getKey() + " share " + usage + " vs SLA-aware " + slaUsage);
    }
  }

  /**
   * Figure 11's mechanism on a compressed timeline: NBA 2012 and DiRT 3 from the start; a GPU-bound newcomer
   * (3DMark06 GT1, too heavy for a fair third of the GPU) arrives at 4 s and leaves 10 s later; Time = 3 s.
   */
  @Test
  void hybrid_switchesToSlaAwareWhenAVmStarves_andBackWhenTheGpuIdles(@TempDir Path out) throws Exception {
    Summary s = run("vgris/hybrid.conf", 24, Map.of(
        "vms.3dmark05.workload", "3dmark06-gt1",
        "vms.3dmark05.start-delay", "4s",
        "vms.3dmark05.stop-after", "10s",
        "scheduler.gpu.window", "3s"), out);
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> switches = (List<Map<String, Object>>) s.document().get("policy_switches");
    assertTrue(switches.size() >= 2, "switches " + switches);
    assertEquals("sla-aware", switches.get(0).get("to"));
    assertEquals("proportional-share", switches.get(1).get("to"));
    double toSla = ((Number) switches.get(0).get("t_s")).doubleValue();
    double back = ((Number) switches.get(1).get("t_s")).doubleValue();
    assertTrue(toSla >= 4 + 3 && toSla <= 4 + 3 + 3, "to SLA-aware at " + toSla);
    // back after GPU usage stayed under 0.9 for the window: at the latest once the newcomer has left (14 s)
    assertTrue(back >= toSla + 3 && back <= 14 + 3 + 3, "back to proportional share at " + back);
    // no starvation: once SLA-aware, the newcomer gets more frames than under the fair shares before
    List<JsonNode> rows = timeline(out, "3dmark05", 5);
    double starved = rows.stream().filter(r -> r.get("t_s").asDouble() <= toSla)
        .mapToDouble(r -> r.get("fps").asDouble()).average().orElse(0);
    double servedUntil = Math.min(back, 14); // the newcomer leaves at 14 s
    double served = rows.stream()
        .filter(r -> r.get("t_s").asDouble() > toSla + 1 && r.get("t_s").asDouble() <= servedUntil)
        .mapToDouble(r -> r.get("fps").asDouble()).average().orElse(0);
    assertTrue(served > 1.3 * starved, "newcomer fps " + starved + " before, " + served + " under SLA-aware");
    // the modes are in the timeline
    assertEquals("sla-aware", timeline(out, "nba2012", 0).stream()
        .filter(r -> r.get("t_s").asDouble() == Math.ceil(toSla) + 1).findFirst().orElseThrow()
        .get("mode").asText());
  }

  /** Figure 8a with the sweep sped up (20 ms less sleep per second): FPS against the paper's power law. */
  @Test
  void sleepSweep_fpsFallsAsThePapersPowerLawOfTheSleep(@TempDir Path out) throws Exception {
    run("vgris/sleep-vs-fps.conf", 12, Map.of("vms.postprocess.present-sleep.decrease", "20ms"), out);
    List<String> misses = new ArrayList<>();
    int checked = 0;
    for (JsonNode row : timeline(out, "postprocess", 1)) {
      double t = row.get("t_s").asDouble();
      double sleepMs = 300 - 20 * (t - 0.5); // the sleep in the middle of second t
      if (sleepMs < 20) continue;
      double paper = 646.11 * Math.pow(sleepMs, -0.927);
      double fps = row.get("fps").asDouble();
      checked++;
      // whole frames per second: one frame besides 15 %
      if (Math.abs(fps - paper) > 0.15 * paper + 1) misses.add("sleep " + sleepMs + " ms: " + fps + " vs " + paper);
    }
    assertTrue(checked >= 8, "seconds checked " + checked);
    mostlyOnTheCurve(misses, checked);
  }

  /** Figure 8b: the GPU time PostProcess leaves goes to ShadowVolume, y = -2.13 x + 336.8. */
  @Test
  void sleepSweepWithTwoVms_theOtherVmTakesWhatOneLeaves(@TempDir Path out) throws Exception {
    run("vgris/sleep-two-vms.conf", 12, Map.of("vms.postprocess.present-sleep.decrease", "20ms"), out);
    List<JsonNode> post = timeline(out, "postprocess", 1);
    List<JsonNode> shadow = timeline(out, "shadowvolume", 1);
    assertEquals(post.size(), shadow.size());
    List<String> misses = new ArrayList<>();
    double ratio = 0;
    for (int i = 0; i < post.size(); i++) {
      double x = post.get(i).get("fps").asDouble();
      double y = shadow.get(i).get("fps").asDouble();
      double line = 336.8 - 2.13 * x;
      ratio += y / line / post.size();
      if (Math.abs(y - line) > 0.05 * line) misses.add("PostProcess " + x + ": ShadowVolume " + y + " vs " + line);
    }
    assertTrue(Math.abs(ratio - 1) < 0.03, "ShadowVolume against the line on average: " + ratio);
    mostlyOnTheCurve(misses, post.size());
  }

  /**
   * A second in which the machine could not keep up (other processes, a GC pause) shows as one outlier in a
   * per-second timeline; the shape must hold in at least four seconds out of five.
   */
  private static void mostlyOnTheCurve(List<String> misses, int seconds) {
    assertTrue(misses.size() <= seconds / 5, misses.size() + " of " + seconds + " seconds off: " + misses);
  }
}
