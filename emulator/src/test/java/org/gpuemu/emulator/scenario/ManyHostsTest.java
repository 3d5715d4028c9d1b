package org.gpuemu.emulator.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.emulator.run.Runner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Scenarios of many hosts in one JVM: placement, each host's own schedulers, summary per host. */
class ManyHostsTest {
  private static final Path CONF = Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios", "cluster");

  private static Settings.Scenario load(Path file, long durationNanos) throws ConfigProblems {
    return ScenarioLoader.load(file, new ScenarioLoader.Overrides(FastForward.SCALE, durationNanos, null, Map.of()));
  }

  private static String where(Settings.Scenario s, String vm) {
    Settings.Vm v = s.vms().stream().filter(x -> x.name().equals(vm)).findFirst().orElseThrow();
    return s.hosts().get(v.host()).name() + "/" + v.gpu();
  }

  @Test
  void bestFit_packsShares_respectsCoresAndPins() throws Exception {
    Settings.Scenario s = load(CONF.resolve("three-hosts.conf"), 5_000_000_000L);
    // game1 (0.6) and train1 (0.4) fill a/0; their 2 + 2 vCPUs fill a's 4 cores, so game2 goes to b; train2 (0.5,
    // at 1 s) fits b/0 beside game2 exactly (best fit: nothing left); game3 is pinned to c; infer1 (0.3, at 2 s)
    // finds a and b without a free core and fits c/0 beside game3's 0.7
    assertEquals("a/0", where(s, "game1"));
    assertEquals("a/0", where(s, "train1"));
    assertEquals("b/0", where(s, "game2"));
    assertEquals("b/0", where(s, "train2"));
    assertEquals("c/0", where(s, "game3"));
    assertEquals("c/0", where(s, "infer1"));
    assertTrue(s.rejected().isEmpty());
  }

  @Test
  @SuppressWarnings("unchecked")
  void run_eachHostHasItsOwnSchedulers_andTheSummaryCoversEveryHost(@TempDir Path out) throws Exception {
    Summary sum = new Summary(Runner.run(load(CONF.resolve("three-hosts.conf"), 3_000_000_000L), out, Runner.Options.every(500)));
    assertTrue(sum.brokenInvariants().isEmpty(), sum.brokenInvariants().toString());
    Map<String, Object> hosts = (Map<String, Object>) sum.document().get("hosts");
    assertEquals(List.of("a", "b", "c"), List.copyOf(hosts.keySet()));
    Map<String, Object> vms = (Map<String, Object>) sum.document().get("vms");
    // shares are over the VMs of one GPU: the two VMs of a/0 split its vGPU busy time between them
    double a0 = share(vms, "game1") + share(vms, "train1");
    assertEquals(1.0, a0, 0.0002, "game1 and train1 share a/0");
    for (String vm : vms.keySet()) {
      assertTrue(((Number) ((Map<String, Object>) vms.get(vm)).get("requests_completed")).longValue() > 0, vm);
    }
    Map<String, Object> a = (Map<String, Object>) hosts.get("a");
    List<Map<String, Object>> gpus = (List<Map<String, Object>>) a.get("gpus");
    assertEquals(List.of("game1", "train1"), gpus.get(0).get("vms"));
    assertEquals(List.of(), gpus.get(1).get("vms"), "a/1 had no VM: a's cores were full");
    assertEquals(0.0, ((Number) gpus.get(1).get("busy_ms")).doubleValue());
    Map<String, Object> cpu = (Map<String, Object>) sum.document().get("cpu");
    assertEquals(12, ((Number) cpu.get("cores")).intValue(), "the totals count every host's cores");
    Map<String, Object> placement = (Map<String, Object>) sum.document().get("placement");
    assertEquals("best-fit", placement.get("policy"));
  }

  private static double share(Map<String, Object> vms, String vm) {
    return ((Number) ((Map<?, ?>) vms.get(vm)).get("gpu_share")).doubleValue();
  }

  @Test
  void aVmWithNoRoom_isRejected_andDoesNotRun(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("full.conf");
    Files.writeString(file, """
        scenario {
          hosts { only { cores = 2, gpus = 1 } }
          vms {
            big   { workload = cuda-loop, share = 0.8, vcpus = 1, stop-after = 1s }
            small { workload = cuda-loop, share = 0.3, vcpus = 1 }
            later { workload = cuda-loop, share = 0.3, vcpus = 1, start-delay = 2s }
          }
        }
        """);
    Settings.Scenario s = load(file, 3_000_000_000L);
    // small asks 0.3 while big holds 0.8; later asks 0.3 after big left at 1 s
    assertEquals(List.of("big", "later"), s.vms().stream().map(Settings.Vm::name).toList());
    assertEquals(1, s.rejected().size());
    assertEquals("small", s.rejected().get(0).vm());
    assertTrue(s.rejected().get(0).reason().contains("GPU share"), s.rejected().get(0).reason());
  }

  @Test
  void aPinToAHostThatDoesNotExist_isOneProblemWithItsPath(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("pin.conf");
    Files.writeString(file, """
        scenario {
          hosts { a { cores = 2 } }
          vms { v { workload = cuda-loop, host = zz } }
        }
        """);
    ConfigProblems p = assertThrows(ConfigProblems.class, () -> load(file, 1_000_000_000L));
    assertEquals(1, p.problems().size(), p.problems().toString());
    assertTrue(p.problems().get(0).contains("scenario.vms.v.host: no host 'zz'"), p.problems().get(0));
  }
}
