package org.gpuemu.emulator.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.emulator.run.Runner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Short runs of the scenarios of conf/scenarios/custom (workloads defined in HOCON and replayed traces), asserting
 * what the model guarantees rather than figures that depend on how busy the machine is.
 */
class CustomScenarioTest {
  private static final Path CONF = Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios", "custom");

  private static Summary run(String file, Path out) throws Exception {
    Settings.Scenario s = ScenarioLoader.load(CONF.resolve(file),
        new ScenarioLoader.Overrides(FastForward.SCALE, 3_000_000_000L, null, Map.of()));
    return new Summary(Runner.run(s, out, Runner.Options.every(500)));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> vm(Summary s, String name) {
    return (Map<String, Object>) ((Map<String, Object>) s.document().get("vms")).get(name);
  }

  private static long count(Map<String, Object> vm, String key) {
    return ((Number) vm.get(key)).longValue();
  }

  private static void nothingLost(Summary s) {
    assertTrue(s.brokenInvariants().isEmpty(), s.brokenInvariants().toString());
    @SuppressWarnings("unchecked")
    Map<String, Object> inv = (Map<String, Object>) s.document().get("invariants");
    assertEquals(0L, ((Number) inv.get("requests_lost")).longValue());
  }

  @Test
  void hoconWorkloads_runAsTheCatalogsDo_theGameNeverAboveItsTarget(@TempDir Path out) throws Exception {
    Summary s = run("hocon-workload.conf", out);
    nothingLost(s);
    // the racer paces to 60 FPS: 5 ms of CPU (+-5 % noise) then an 11.67 ms sleep, so no frame is shorter than
    // 16.42 ms (60.9 FPS); contention only slows it
    double fps = (double) vm(s, "game").get("fps");
    assertTrue(fps > 10 && fps < 61.5, "racer fps " + fps);
    assertTrue(count(vm(s, "training"), "kernels_completed") > 0, "the training loop ran");
    // the sequence ran both phases: the racer's frames (it runs 2 of the 3 s), and more requests than the racer's
    // 4 batches per frame (8 ms of GPU in 2 ms batches), so the cuda-loop second added its own
    Map<String, Object> shifts = vm(s, "shifts");
    long frames = count(shifts, "frames");
    assertTrue(frames > 0, "the racer phase presented frames");
    assertTrue(count(shifts, "kernels_completed") - 4 * frames > 100, "the cuda-loop phase ran: " + shifts);
  }

  @Test
  void replayedTraces_run_theGameNeverFasterThanItsTrace(@TempDir Path out) throws Exception {
    Summary s = run("trace-replay.conf", out);
    nothingLost(s);
    // one pass of the kernel trace is 24 operations; alone it takes 15.3 ms, so 3 s hold ~190 passes
    assertTrue(count(vm(s, "inference"), "requests_completed") > 240, "more than ten passes: " + vm(s, "inference"));
    // each replayed frame lasts at least its trace interval (16.667 ms x (1 - 2 %) at the fastest: 61.2 FPS)
    double fps = (double) vm(s, "game").get("fps");
    assertTrue(fps > 10 && fps < 61.3, "replayed game fps " + fps);
  }
}
