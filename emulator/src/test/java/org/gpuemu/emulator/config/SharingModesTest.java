package org.gpuemu.emulator.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.config.ScenarioLoader.Overrides;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** gpu.mode as the loader reads it: MIG instances and MPS clients as GPU units, bad input with its key path. */
class SharingModesTest {
  @TempDir Path dir;

  private Path file(String mode, String vms) throws IOException {
    return Files.writeString(dir.resolve("s.conf"), """
        scenario {
          gpu { sms = 108, memory = 40GiB, mode = %s, fatal-exception { at = 1s, target = b } }
          duration = 2s
          vms { %s }
        }
        """.formatted(mode, vms));
  }

  private static List<String> problems(Path file, Map<String, String> sets) {
    return assertThrows(ConfigProblems.class, () -> ScenarioLoader.load(file, new Overrides(null, null, null, sets)))
        .problems();
  }

  @Test
  void mig_eachVmIsAUnitOfItsProfilesSmsOfTheWholeGpu() throws Exception {
    Settings.Scenario s = ScenarioLoader.load(file("mig", "a { workload = cuda-loop, mig-profile = 1g.5gb }, "
        + "b { workload = cuda-loop, mig-profile = 3g.20gb }"), Overrides.none());
    Settings.Host h = s.host();
    assertEquals(2, h.gpus());
    assertEquals(14, h.gpuOf(0).sms());
    assertEquals(42, h.gpuOf(1).sms());
    assertEquals(108, h.gpuOf(1).totalSms(), "kernels' solo durations stay on the whole GPU's SMs");
    assertEquals(19968L << 20, h.gpuOf(1).memoryBytes());
    assertEquals(List.of(0, 1), s.vms().stream().map(Settings.Vm::gpu).toList());
    assertEquals(1, s.faults().faults().size(), "MIG contains the fatal exception to b's instance");
  }

  @Test
  void mig_profileOutsideTheGpusDocumentedSet_isOneLineWithItsKeyPath() throws Exception {
    List<String> p = problems(file("mig", "a { workload = cuda-loop, mig-profile = 1g.6gb }, "
        + "b { workload = cuda-loop, mig-profile = 1g.5gb }"), Map.of());
    assertEquals(1, p.size(), p.toString());
    assertTrue(p.get(0).contains("scenario.vms.a.mig-profile") && p.get(0).contains("not one of a100-40gb"), p.get(0));
  }

  @Test
  void mig_needsTheWholeGpusSms() throws Exception {
    List<String> p = problems(file("mig", "a { workload = cuda-loop, mig-profile = 1g.5gb }, "
        + "b { workload = cuda-loop, mig-profile = 1g.5gb }"), Map.of("gpu.sms", "82"));
    assertTrue(p.get(0).contains("scenario.gpu.sms") && p.get(0).contains("108"), p.toString());
  }

  @Test
  void mps_uncapped_isOneConcurrentGroup_andAFatalExceptionTakesEveryClientDown() throws Exception {
    Settings.Scenario s = ScenarioLoader.load(file("mps", "a { workload = cuda-loop }, b { workload = cuda-loop }"),
        Overrides.none());
    assertEquals(1, s.host().gpus());
    assertEquals(32, s.host().gpuOf(0).maxConcurrentKernels());
    assertEquals(0, s.host().gpuOf(0).contextSwitchNanos(), "one shared context: no switch between clients");
    assertEquals(List.of("b", "a"), s.faults().faults().stream().map(FaultPlan.Fault::target).toList(),
        "Volta MPS: the fatal exception reaches every client on the GPU");
  }

  @Test
  void mps_percentages_capEachClientsSms_andOversubscribedCapsAreRefused() throws Exception {
    Settings.Scenario s = ScenarioLoader.load(file("mps", "a { workload = cuda-loop, mps-active-thread-percentage = 30 },"
        + " b { workload = cuda-loop, mps-active-thread-percentage = 70 }"), Overrides.none());
    assertEquals(33, s.host().gpuOf(0).sms(), "30 % of 108 = 32.4, rounded up");
    assertEquals(76, s.host().gpuOf(1).sms(), "70 % of 108 = 75.6, rounded up");
    List<String> p = problems(file("mps", "a { workload = cuda-loop, mps-active-thread-percentage = 60 }, "
        + "b { workload = cuda-loop, mps-active-thread-percentage = 60 }"), Map.of());
    assertTrue(p.get(0).contains("scenario.vms") && p.get(0).contains("120"), p.toString());
  }

  @Test
  void timeSliced_keepsOneGpu_andTheVendorsSchedulersValidateTheirRanges() throws Exception {
    Settings.Scenario s = ScenarioLoader.load(file("time-sliced", "a { workload = cuda-loop }, b { workload = cuda-loop }"),
        Map.of("scheduler.gpu.policy", "vgpu-fixed-share").isEmpty() ? Overrides.none()
            : new Overrides(null, null, null, Map.of("scheduler.gpu.policy", "vgpu-fixed-share")));
    assertEquals("vgpu-fixed-share", s.gpuPolicy().name());
    assertEquals(1, s.host().gpus());
    List<String> p = problems(file("time-sliced", "a { workload = cuda-loop }, b { workload = cuda-loop }"),
        Map.of("scheduler.gpu.policy", "vgpu-equal-share", "scheduler.gpu.frequency", "1000"));
    assertTrue(p.get(0).contains("scenario.scheduler.gpu") && p.get(0).contains("63-960"), p.toString());
    p = problems(file("time-sliced", "a { workload = cuda-loop }, b { workload = cuda-loop }, c { workload = cuda-loop }"),
        Map.of("scheduler.gpu.policy", "vgpu-fixed-share", "scheduler.gpu.vgpu-type", "A100-20C"));
    assertTrue(p.get(0).contains("at most 2 A100-20C"), p.toString());
  }
}
