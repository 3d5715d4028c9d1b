package org.gpuemu.emulator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The explore guide's worked example (docs/guides/explore.md), end to end: a plugin policy with a planted bug that
 * only a vGPU crash with requests queued exposes (fair-gpu-time divides by the GPU time a request was accounted,
 * which is 0 for one the crash completed unrun), found by explore within 200 runs, shrunk to the one fault it needs,
 * replayed exactly 3 of 3 by run, and passing once fixed. Plus explore's bad input.
 */
@Tag("slow")
class ExploreCommandTest {
  private static final Path EXAMPLE = Paths.get("src", "test", "resources", "explore", "fair-gpu-time");
  private static final String BUG = "ALPHA * work.soloNanos() / (double) gpuNanos);";
  /** The fix as the guide shows it: a request completed unrun says nothing about the vGPU's speed. */
  private static final String FIX = "(gpuNanos == 0 ? s : ALPHA * work.soloNanos() / (double) gpuNanos));";

  @TempDir static Path work;
  static Path buggy;
  static Path fixed;
  static Path scenario;

  @BeforeAll
  static void buildThePluginTwice_withTheBugAndFixed() throws IOException {
    String policy = Files.readString(EXAMPLE.resolve("FairGpuTimePolicy.java"));
    assertTrue(policy.contains(BUG), "the planted bug is where the guide says");
    buggy = plugin("buggy", policy);
    fixed = plugin("fixed", policy.replace(BUG, BUG.replace("ALPHA * work.soloNanos() / (double) gpuNanos);", FIX)));
    scenario = EXAMPLE.resolve("scenario.conf");
  }

  private static Path plugin(String name, String policy) throws IOException {
    Path src = Files.createDirectories(work.resolve(name + "/src/org/example"));
    Files.writeString(src.resolve("FairGpuTimePolicy.java"), policy);
    Files.copy(EXAMPLE.resolve("FairGpuTimeProvider.java"), src.resolve("FairGpuTimeProvider.java"));
    Path classes = Files.createDirectories(work.resolve(name + "/classes"));
    PluginTest.compile(classes, List.of(src.resolve("FairGpuTimePolicy.java"), src.resolve("FairGpuTimeProvider.java")));
    Path services = Files.createDirectories(work.resolve(name + "/resources/META-INF/services"));
    Files.writeString(services.resolve("org.gpuemu.policies.spi.PolicyProvider"), "org.example.FairGpuTimeProvider\n");
    Path plugins = Files.createDirectories(work.resolve(name + "/plugins"));
    PluginTest.jar(plugins.resolve("fair-gpu-time.jar"), classes, work.resolve(name + "/resources"));
    return plugins;
  }

  @Test
  void plantedBug_isFoundWithin200Runs_shrunkToTheCrashItNeeds_replayedExactly3Of3_andFixed() throws IOException {
    Path out = work.resolve("explore");
    MainTest.Result r = MainTest.execute("explore", scenario.toString(), "--plugins", buggy.toString(), "--runs",
        "200", "--duration", "6s", "--faults", "random", "--stop-on-failure", "--out", out.toString());
    assertEquals(1, r.status(), r.toString());
    JsonNode doc = new ObjectMapper().readTree(out.resolve("explore.json").toFile());
    assertTrue(doc.get("runs").asInt() <= 200, doc.toString());
    JsonNode first = doc.get("failures").get(0);
    assertTrue(first.get("findings").get(0).asText().startsWith("fair GPU share: "), first.toString());
    JsonNode shrink = doc.get("shrink");
    assertEquals("fair GPU share", shrink.get("kind").asText(), shrink.toString());
    // the planted bug needs one vGPU crash (or a VM reboot, which restarts the vGPU the same way) and nothing else
    assertEquals(1, shrink.get("faults_after").asInt(), shrink.toString());
    Path repro = Paths.get(shrink.get("reproducer").asText());
    String text = Files.readString(repro);
    assertTrue(text.contains("kind = vgpu-crash") || text.contains("kind = vm-reboot"), text);
    assertTrue(r.out().contains("replay: java -jar emulator/target/emulator.jar run " + repro), r.out());

    Map<String, Object> reported = figures(out.resolve("repro-run/summary.json"));
    for (int i = 1; i <= 3; i++) {
      Path again = work.resolve("replay-" + i);
      MainTest.Result run = MainTest.execute("run", repro.toString(), "--plugins", buggy.toString(), "--warm-up",
          "0s", "--no-report", "--out", again.toString());
      assertEquals(0, run.status(), run.toString()); // run judges no explore property: the invariants hold
      assertEquals(reported, figures(again.resolve("summary.json")), "replay " + i + " of 3 differs");
    }

    long seed = shrink.get("seed").asLong();
    MainTest.Result fixedRun = MainTest.execute("explore", repro.toString(), "--plugins", fixed.toString(), "--runs",
        "1", "--seed", Long.toString(seed), "--duration", String.format("%.1fs", shrink.get("duration_s").asDouble()),
        "--out", work.resolve("fixed").toString());
    assertEquals(0, fixedRun.status(), fixedRun.toString());
    assertTrue(fixedRun.out().contains("every run held"), fixedRun.out());
  }

  /** A run's figures: summary.json without what measures the machine or names the run's file (DeterminismTest). */
  private static Map<String, Object> figures(Path summary) throws IOException {
    Map<String, Object> doc = new ObjectMapper().readValue(summary.toFile(),
        new TypeReference<LinkedHashMap<String, Object>>() { });
    for (String key : List.of("fidelity", "wall_seconds", "time_scale", "file", "scenario")) doc.remove(key);
    return doc;
  }

  @Test
  void badInput_isOneLine_exit2() throws IOException {
    Path file = Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios", "baseline",
        "default-contention.conf");
    assertBad(List.of(file.toString(), "--nope"), "error: Unknown option: '--nope' (try --help)");
    assertBad(List.of(file.toString(), "--faults", "random", "--fault-rate", "3"),
        "--fault-rate 3: expected N/DURATION with N > 0, e.g. 1/3s");
    assertBad(List.of(file.toString(), "--faults", "random", "--fault-rate", "0/1s"),
        "--fault-rate 0/1s: expected N/DURATION with N > 0, e.g. 1/3s");
    assertBad(List.of(file.toString(), "--fault-rate", "1/2s"), "--fault-rate 1/2s: only with --faults random");
    assertBad(List.of(file.toString(), "--faults", "often"), "--faults often: expected 'random'");
    assertBad(List.of(file.toString(), "--runs", "0"), "--runs 0: expected 1 to 10000000 runs");
    assertBad(List.of(file.toString(), "--jobs", "0"), "--jobs 0: expected 1 to 64 runs at a time");
    assertBad(List.of(file.toString(), "--duration", "10"), "--duration 10: expected a duration with a unit, e.g. 10s");
    Path arrival = Files.writeString(work.resolve("arrival.conf"), Files.readString(file)
        + "\nscenario.fidelity.order = arrival\n");
    assertBad(List.of(arrival.toString()), arrival + ": scenario.fidelity.order: explore needs the conservative "
        + "order (only under it does a run replay from its seed, faults and tie order); remove the key or set it to "
        + "conservative");
    Path stall = Files.writeString(work.resolve("stall.conf"), Files.readString(file)
        + "\nscenario.faults = [{ at = 1s, kind = emulator-stall, target = dirt3 }]\n");
    assertBad(List.of(stall.toString()), stall + ": scenario.faults[0]: an emulator-stall stops wall time, which fast "
        + "forward has none of; explore cannot replay it (remove it)");
    Path badProperty = Files.writeString(work.resolve("property.conf"), Files.readString(file)
        + "\nscenario.explore.properties = [{ metric = fairness.mmr, at-least = high }]\n");
    assertBad(List.of(badProperty.toString()), badProperty
        + ": scenario.explore.properties[0].at-least: expected a number, got \"high\"");
  }

  private static void assertBad(List<String> args, String line) {
    String[] all = new String[args.size() + 3];
    all[0] = "explore";
    for (int i = 0; i < args.size(); i++) all[i + 1] = args.get(i);
    all[args.size() + 1] = "--out";
    all[args.size() + 2] = work.resolve("bad").toString();
    MainTest.Result r = MainTest.execute(all);
    assertEquals(2, r.status(), r.toString());
    assertEquals(List.of(line), r.errLines(), r.toString());
    r.assertNoStackTrace();
  }
}
