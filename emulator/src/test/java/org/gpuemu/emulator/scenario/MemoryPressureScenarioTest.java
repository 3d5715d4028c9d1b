package org.gpuemu.emulator.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.emulator.run.Runner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * conf/scenarios/faults/memory-pressure-gballoon.conf in fast forward, cut to 24 s: the host withdraws the
 * top 6 of the 54 guest slots from 10 s to 20 s. What the mechanisms guarantee, in the run's own figures: under
 * static-384 the VM in those slots (v9) loses its 256 MB, is refused until the heal, and gets its memory back after;
 * under gBalloon the VM there (v2) grows to the left one slot per request until its 4 slots of memory are back (10
 * slots), and renders more frames during the pressure than static-384's. Nothing is lost; no GPU call fails.
 */
class MemoryPressureScenarioTest {
  private static final Path FILE = Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios", "faults",
      "memory-pressure-gballoon.conf");
  private static final long S = 1_000_000_000L;
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode run(String policy, Path out) throws Exception {
    Settings.Scenario s = ScenarioLoader.load(FILE, new ScenarioLoader.Overrides(FastForward.SCALE, 24 * S, null,
        Map.of("memory.policy", policy), FaultPlan.Cli.NONE));
    return JSON.valueToTree(new Summary(Runner.run(s, out, Runner.Options.every(500))).document());
  }

  /** Frames {@code vm} rendered in the timeline's periods ending in (from, to] seconds. */
  private static long frames(Path out, String vm, double from, double to) throws Exception {
    long frames = 0;
    for (String line : java.nio.file.Files.readAllLines(out.resolve("timeline.jsonl"))) {
      JsonNode row = JSON.readTree(line);
      if (vm.equals(row.path("vm").asText()) && row.path("t_s").asDouble() > from && row.path("t_s").asDouble() <= to) {
        frames += row.path("frames").asLong();
      }
    }
    return frames;
  }

  private static void valid(JsonNode s) {
    assertEquals("valid", s.path("verdict").path("result").asText(), s.path("verdict").toString());
    JsonNode inv = s.path("invariants");
    assertEquals(0, inv.path("requests_lost").asLong(), inv.toString());
    assertEquals(0, inv.path("requests_failed").asLong(), "a refusal is the memory-aware guest's, not a failed call");
    JsonNode fault = s.path("faults").get(0);
    assertEquals("memory-pressure", fault.path("kind").asText());
    assertEquals(20.0, fault.path("healed_at_s").asDouble(), 1e-9);
  }

  @Test
  void static384_theVmInTheWithdrawnSlots_isRefusedUntilTheHeal(@TempDir Path out) throws Exception {
    JsonNode s = run("static-384", out);
    valid(s);
    JsonNode v9 = s.path("vms").path("v9");
    assertTrue(v9.path("memory_refusals").asLong() > 0, v9.toString());
    assertEquals(6, v9.path("memory_slots").path("max").asInt(), "static: never more than its 6 slots");
    for (String other : List.of("v1", "v2", "v8")) {
      assertEquals(0, s.path("vms").path(other).path("memory_refusals").asLong(), other + " kept its slots");
    }
    assertTrue(frames(out, "v9", 21, 24) > frames(out, "v9", 11, 14),
        "healed: its range again, and its frames with it");
  }

  @Test
  void gballoon_theVmInTheWithdrawnSlots_growsBackToItsMemory_andRendersMoreThanUnderStatic384(@TempDir Path gb,
      @TempDir Path st) throws Exception {
    JsonNode s = run("gballoon", gb);
    valid(s);
    JsonNode v2 = s.path("vms").path("v2");
    assertEquals(10, v2.path("memory_slots").path("max").asInt(), "6 + 4 slots grown one per request: 256 MB back");
    assertEquals(0, v2.path("memory_refusals").asLong(), "every request grew the range");
    JsonNode figures = s.path("gballoon");
    assertEquals(4, figures.path("expansions").asLong(), figures.toString());
    assertEquals(256.0, figures.path("pressure_evicted_mb").asDouble(), 1e-9, "v2's working set, evicted at 10 s");
    run("static-384", st);
    assertTrue(frames(gb, "v2", 10, 20) > frames(st, "v9", 10, 20),
        "adapting: the VM in the withdrawn slots renders more during the pressure under gBalloon");
  }
}
