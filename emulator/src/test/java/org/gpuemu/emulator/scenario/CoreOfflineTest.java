package org.gpuemu.emulator.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.emulator.report.SummaryDoc;
import org.gpuemu.emulator.run.RunResult;
import org.gpuemu.emulator.run.Runner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18's core-offline (cpu/CoreLedger): the three games of vgris.txt Figure 2 under FCFS, each VM's two vCPUs
 * pinned to core 0 and core 1 of a 2-core host, and core 0 offline from 1 s for 1 s. Its vCPUs must run on core 1
 * meanwhile (every game keeps rendering in the window) and come back; nothing fails, nothing is lost.
 */
class CoreOfflineTest {
  private static final Path CONF = Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios");
  private static final long MS = 1_000_000L;
  private static final ObjectMapper JSON = new ObjectMapper();

  private static RunResult run(List<String> faults, Path out) throws Exception {
    Map<String, String> sets = new LinkedHashMap<>();
    sets.put("faults", "[]");
    sets.put("host.cores", "2");
    sets.put("metrics.period", "250ms");
    for (String vm : List.of("dirt3", "3dmark05", "nba2012")) sets.put("vms." + vm + ".cores", "[0, 1]");
    Settings.Scenario s = ScenarioLoader.load(CONF.resolve("faults/gpu-hang.conf"), new ScenarioLoader.Overrides(
        FastForward.SCALE, 3_000 * MS, null, sets, new FaultPlan.Cli(faults, null, null)));
    return Runner.run(s, out, Runner.Options.every(500));
  }

  @Test
  void coreOffline_itsVcpusRunOnTheOtherCore_everyGameRendersInTheWindow_nothingFails(@TempDir Path out)
      throws Exception {
    RunResult base = run(List.of(), out.resolve("base"));
    RunResult faulted = run(List.of("core-offline@1s:nba2012:1s"), out);
    Summary s = new Summary(faulted);
    SummaryDoc.Invariants inv = s.doc().invariants();
    String what = inv + " " + s.doc().verdict();
    assertEquals("valid", s.doc().verdict().result(), what);
    assertEquals(0, inv.requestsFailed(), what);
    assertEquals(0, inv.requestsLost(), what);
    assertTrue(s.brokenInvariants().isEmpty(), what + " " + s.brokenInvariants());
    assertEquals(2.0, s.doc().faults().get(0).healedAtS(), 1e-9);
    Map<String, Integer> framesInWindow = framesIn(out, 1.0, 2.0);
    // each game presents from its vCPU 0, pinned to the offline core: without the move none would render at all
    for (String vm : List.of("dirt3", "3dmark05", "nba2012")) {
      assertTrue(framesInWindow.getOrDefault(vm, 0) > 0, vm + " rendered nothing while core 0 was offline: "
          + framesInWindow);
    }
    Map<String, Integer> after = framesIn(out, 2.0, 3.0);
    for (String vm : List.of("dirt3", "3dmark05", "nba2012")) assertTrue(after.getOrDefault(vm, 0) > 0, vm);
    // core 0 ran nothing for a third of the run, so about a third of its busy time moved to core 1
    long core0 = faulted.cores().get(0).busyNanos(), core0Base = base.cores().get(0).busyNanos();
    assertTrue(core0 < 0.8 * core0Base, "core 0 busy " + core0 / 1e6 + " ms against " + core0Base / 1e6 + " ms");
    assertTrue(faulted.cores().get(1).busyNanos() > base.cores().get(1).busyNanos(), "core 1 took the moved vCPUs");
  }

  @Test
  void coreOffline_onAOneCoreHost_isBadInput_namingTheKey() {
    ConfigProblems e = org.junit.jupiter.api.Assertions.assertThrows(ConfigProblems.class,
        () -> ScenarioLoader.load(CONF.resolve("faults/gpu-hang.conf"), new ScenarioLoader.Overrides(
            FastForward.SCALE, 3_000 * MS, null, Map.of("faults", "[]", "host.cores", "1"),
            new FaultPlan.Cli(List.of("core-offline@1s:nba2012"), null, null))));
    assertTrue(e.problems().stream().anyMatch(p -> p.contains("scenario.host.cores: a core-offline fault needs at least 2"
        + " cores")), e.problems().toString());
  }

  /** Each VM's frames in the timeline periods ending after {@code from} and no later than {@code to}. */
  private static Map<String, Integer> framesIn(Path out, double from, double to) throws Exception {
    Map<String, Integer> frames = new LinkedHashMap<>();
    for (String line : Files.readAllLines(out.resolve("timeline.jsonl"))) {
      JsonNode row = JSON.readTree(line);
      double t = row.get("t_s").asDouble();
      if (t > from + 1e-9 && t <= to + 1e-9) frames.merge(row.get("vm").asText(), row.get("frames").asInt(), Integer::sum);
    }
    return frames;
  }
}
