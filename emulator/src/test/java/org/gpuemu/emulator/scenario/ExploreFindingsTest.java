package org.gpuemu.emulator.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.emulator.report.SummaryDoc;
import org.gpuemu.emulator.run.Runner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Findings of {@code explore} replayed from the reproducers it shrank them to (src/test/resources/explore/findings,
 * each file's comment says what broke and why): each run must end and report, with nothing lost or duplicated and
 * every failure explained by a fault (the checker's verdict valid), and its invariants whole.
 */
class ExploreFindingsTest {
  private static final Path FINDINGS = Paths.get("src", "test", "resources", "explore", "findings");

  private static Summary replay(String file, Path out) throws Exception {
    Settings.Scenario s = ScenarioLoader.load(FINDINGS.resolve(file), new ScenarioLoader.Overrides(FastForward.SCALE,
        null, null, Map.of()));
    Summary summary = new Summary(Runner.run(s, out, Runner.Options.every(500)));
    SummaryDoc.Invariants inv = summary.doc().invariants();
    String what = file + ": " + inv + " " + summary.doc().verdict();
    assertEquals("valid", summary.doc().verdict().result(), what);
    assertEquals(0, inv.requestsLost(), what);
    assertEquals(0, inv.requestsDuplicated(), what);
    assertTrue(summary.brokenInvariants().isEmpty(), what + " " + summary.brokenInvariants());
    return summary;
  }

  /**
   * COMBO's space scheduler, a 1 s message loss on the game from 1.206 s: every launch of one frame was given up, so
   * that frame reached no scheduler and the next one was ready after the one before it. The scheduler used to stop
   * there (the policy refused the frame); the missing frame's slot now passes and the game renders on.
   */
  @Test
  void comboGame_aFrameWhoseLaunchesWereAllLost_isSkipped_andTheGameRendersOn(@TempDir Path out) throws Exception {
    Summary s = replay("combo-message-loss-empty-frame.conf", out);
    SummaryDoc.Fault loss = s.doc().faults().get(0);
    assertEquals("message-loss", loss.kind());
    // the launches given up 1.4 s after their first send, each explained by the loss
    assertEquals(Map.of("timed-out", 5L), loss.requestsFailed());
    assertNotNull(loss.recoveryS(), "the game completed no request after the heal");
  }

  /**
   * COMBO, a 1 s {@code vcpu-stall} of the game from 1.451 s: a parboil kernel in the BE group was suspended by a
   * frame's layout that gave the render group every SM, and resumed onto a BE group of none; no frame plans after the
   * end, so it never finished and the drain timed out. After the end the BE group now gets half the SMs.
   */
  @Test
  void comboBeKernelLeftWithoutSms_finishesInTheDrain(@TempDir Path out) throws Exception {
    Summary s = replay("combo-drain-vcpu-stall.conf", out);
    assertEquals(0, s.doc().invariants().requestsOpenAtEnd());
  }

  /**
   * COMBO, a {@code gpu-hang} of parboil at 1.559 s, reset 2 s later, after the end: the game's render kernel, SM-bound
   * to its frame's render group, waits for the SMs the hung kernel holds. A drain layout applied at the end shrank
   * that group below the kernel's binding and 11 requests had no outcome; it now waits for the render stream to be idle.
   */
  @Test
  void comboHangPastTheEnd_theDrainLayoutWaitsForTheRenderKernel(@TempDir Path out) throws Exception {
    Summary s = replay("combo-hang-drain.conf", out);
    assertEquals(Map.of("gpu-reset", 1L), s.doc().faults().get(0).requestsFailed());
  }

  /**
   * MPS, a {@code gpu-hang} of game2 that took hold at 1.217 s, then the fatal exception at 1.5 s that reboots every
   * client: the hung kernel, an orphan of game2's restarted vGPU, held the GPU until the watchdog's reset at 3.217 s,
   * after the end. The drain did not wait for it, so the SM group had counted 92.5 ms of busy time no vGPU accounted
   * (gpu_time_conserved broke); the drain now waits for a rebooted vGPU's kernels still on the GPU.
   */
  @Test
  void mpsHungKernelOfARebootedClient_isWaitedFor_andItsGpuTimeAccounted(@TempDir Path out) throws Exception {
    Summary s = replay("mps-hang-reboot.conf", out);
    SummaryDoc.Fault hang = s.doc().faults().stream().filter(f -> f.kind().equals("gpu-hang")).findFirst().orElseThrow();
    assertNotNull(hang.healedAtS(), "the watchdog's reset ends the hang in the drain");
    assertEquals(3.2168, hang.healedAtS(), 1e-3, hang.toString());
  }

  /**
   * Two {@code vcpu-stall}s of the training VM's vCPU overlapping (0.667 s and 0.793 s, 1 s each): the core kept one
   * stall per vCPU, so the first end healed the second fault and the second end found nothing and threw. Each now
   * heals at its own end.
   */
  @Test
  void overlappingStallsOfOneVcpu_eachHealsAtItsOwnEnd(@TempDir Path out) throws Exception {
    Summary s = replay("overlapping-vcpu-stalls.conf", out);
    List<SummaryDoc.Fault> stalls = s.doc().faults().stream().filter(f -> f.kind().equals("vcpu-stall")).toList();
    assertEquals(2, stalls.size(), stalls.toString());
    for (SummaryDoc.Fault f : stalls) assertEquals(f.atS() + 1.0, f.healedAtS(), 1e-3, f.toString());
  }
}
