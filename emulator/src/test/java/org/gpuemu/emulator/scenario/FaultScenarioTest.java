package org.gpuemu.emulator.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
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
 * Each implemented fault kind on conf/scenarios/faults/gpu-hang.conf's three games (FCFS), for 3 emulated seconds at
 * half speed: the fault happened, it healed, the reason of what it failed is right, nothing is lost, and the other VMs
 * kept completing requests. What the model guarantees, not timings: those vary with the machine.
 */
class FaultScenarioTest {
  private static final Path FILE = Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios", "faults",
      "gpu-hang.conf");
  private static final long S = 1_000_000_000L;

  /** The file's three VMs with {@code fault} instead of its own (the --fault form). */
  private static Summary run(String fault, Path out) throws Exception {
    Settings.Scenario s = ScenarioLoader.load(FILE, new ScenarioLoader.Overrides(FastForward.SCALE, 3 * S, null,
        Map.of("faults", "[]"), new FaultPlan.Cli(List.of(fault), null, null)));
    return new Summary(Runner.run(s, out, Runner.Options.every(500)));
  }

  private static void nothingLost(Summary s) {
    SummaryDoc.Invariants inv = s.doc().invariants();
    assertEquals(0, inv.requestsLost(), inv.toString());
    assertEquals(inv.requestsSubmitted(), inv.requestsCompleted() + inv.requestsFailed(), inv.toString());
    assertTrue(s.brokenInvariants().isEmpty(), s.brokenInvariants().toString());
  }

  private static long completed(Summary s, String vm) {
    return s.doc().vms().get(vm).gpu().requestsCompleted();
  }

  @Test
  void gpuHang_watchdogResetsAfterTheDelay_failsTheHungKernelWithGpuReset_othersCarryOn(@TempDir Path out)
      throws Exception {
    Summary s = run("gpu-hang@1s:nba2012:500ms", out);
    nothingLost(s);
    SummaryDoc.Fault f = s.doc().faults().get(0);
    assertEquals("gpu-hang", f.kind());
    // the hang takes hold at the VM's next kernel (within a frame of 1 s) and the watchdog fires 500 ms later
    assertNotNull(f.healedAtS(), "the watchdog reset the engine");
    assertTrue(f.healedAtS() >= 1.5 && f.healedAtS() < 1.6, "reset at " + f.healedAtS());
    // at least the hung kernel failed, and only with the hang's reason
    assertEquals(List.of("gpu-reset"), List.copyOf(f.requestsFailed().keySet()));
    assertTrue(f.requestsFailed().get("gpu-reset") >= 1, f.toString());
    assertNotNull(f.recoveryS(), "nba2012 completed a request after the reset");
    assertTrue(f.recoveryS() < 0.5, "recovered " + f.recoveryS() + " s after the reset");
    // the others were held up by the non-preemptive hung kernel for 0.5 s, not stopped: they still finished frames
    for (String vm : List.of("dirt3", "3dmark05")) {
      assertEquals(0, s.doc().vms().get(vm).gpu().requestsFailed(), vm);
      assertTrue(completed(s, vm) > 20, vm + " completed " + completed(s, vm));
    }
  }

  @Test
  void vgpuCrash_supervisionRestartsIt_inFlightCallsFailWithVgpuCrashed_theVmGoesOn(@TempDir Path out)
      throws Exception {
    Summary s = run("vgpu-crash@1s:dirt3", out);
    nothingLost(s);
    SummaryDoc.Fault f = s.doc().faults().get(0);
    assertEquals(1.0, f.atS(), 0.01);
    assertEquals(f.atS(), f.healedAtS(), 0.01, "restarted at once (heal-after 0)");
    // a game has always a frame's requests in flight: they fail, each with the crash's reason
    assertTrue(f.requestsFailed().getOrDefault("vgpu-crashed", 0L) >= 1, f.toString());
    assertEquals(1, f.requestsFailed().size(), f.toString());
    assertNotNull(f.recoveryS(), "dirt3 completed a request after the restart");
    // DiRT 3 renders ~25-37 FPS here: it goes on, well past its frames of the first second
    assertTrue(s.doc().vms().get("dirt3").frames().frames() > 40, "dirt3 frames " + s.doc().vms().get("dirt3")
        .frames().frames());
    assertEquals(0, s.doc().vms().get("nba2012").gpu().requestsFailed());
  }

  @Test
  void vcpuStall_stealsTheCoreForItsDuration_thenTheVmGoesOn_failingNothing(@TempDir Path out) throws Exception {
    Summary s = run("vcpu-stall@1s:3dmark05:400ms", out);
    nothingLost(s);
    SummaryDoc.Fault f = s.doc().faults().get(0);
    assertEquals(1.4, f.healedAtS(), 0.01);
    assertTrue(f.requestsFailed().isEmpty(), f.toString());
    assertNotNull(f.recoveryS(), "3dmark05 completed a request after the stall");
    // the stall is steal time while the vCPU asks for its core; GT2's main thread waits for the GPU part of each
    // frame without asking (357 of the 400 ms were steal in one run), so at least half of it, not all
    assertTrue(s.doc().vms().get("3dmark05").cpu().stealMs() >= 200, "steal " + s.doc().vms().get("3dmark05").cpu());
    assertEquals(0, s.doc().invariants().requestsFailed());
  }
}
