package org.gpuemu.emulator.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.emulator.report.SummaryDoc;
import org.gpuemu.emulator.run.Runner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A gpu-hang on a space-shared GPU (COMBO, conf/scenarios/combo/qos.conf) strikes the SM group the target's kernels
 * run on: the DNN's running kernel in the BE group hangs at once (it used to wait for a DNN kernel in the render
 * group, which it never runs), the watchdog resets it the TDR delay later, and nothing is lost.
 */
class SpaceHangTest {
  private static final Path FILE = Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios", "combo",
      "qos.conf");
  private static final long S = 1_000_000_000L;

  @Test
  void hangOfTheBeVm_hangsItsRunningKernelInTheBeGroup_resetAfterTheTdrDelay(@TempDir Path out) throws Exception {
    Settings.Scenario s = ScenarioLoader.load(FILE, new ScenarioLoader.Overrides(FastForward.SCALE, 4 * S, null,
        Map.of(), new FaultPlan.Cli(List.of("gpu-hang@1s:dnn"), null, null)));
    Summary summary = new Summary(Runner.run(s, out, Runner.Options.every(500)));
    SummaryDoc.Invariants inv = summary.doc().invariants();
    assertEquals(0, inv.requestsLost(), inv.toString());
    assertEquals("valid", summary.doc().verdict().result(), summary.doc().verdict().toString());
    SummaryDoc.Fault hang = summary.doc().faults().get(0);
    // the DNN always has a kernel on its group: the hang takes hold within a kernel launch of 1 s, reset 2 s later
    assertTrue(hang.healedAtS() >= 3.0 && hang.healedAtS() < 3.1, "healed at " + hang.healedAtS());
    assertEquals(Map.of("gpu-reset", 1L), hang.requestsFailed());
  }

}
