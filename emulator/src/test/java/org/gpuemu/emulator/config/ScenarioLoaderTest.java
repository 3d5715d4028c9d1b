package org.gpuemu.emulator.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.config.ScenarioLoader.Overrides;
import org.gpuemu.emulator.config.Settings.SyncWait;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Good scenario files: what a loaded scenario holds, defaults from reference.conf, command-line overrides. */
class ScenarioLoaderTest {
  private static final long MS = 1_000_000L;
  private static final long US = 1_000L;
  private static final long S = 1_000_000_000L;

  @TempDir Path dir;

  private Path write(String name, String content) throws IOException {
    return Files.writeString(dir.resolve(name), content);
  }

  private static Settings.Vm vm(Settings.Scenario s, String name) {
    return s.vms().stream().filter(v -> v.name().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no VM " + name + " in " + s.vms()));
  }

  @Test
  void validFile_loadsNamesWorkloadsAndWeights_withDenseVmIndexes() throws Exception {
    Path file = write("mix.conf", """
        scenario {
          name = "my-mix"
          description = "three games"
          vms {
            zeta { workload = dirt3, weight = 3 }
            alpha { workload = portal2 }
            mid { workload = cuda-loop, weight = 2 }
          }
        }
        """);
    Settings.Scenario s = ScenarioLoader.load(file, Overrides.none());

    assertEquals("my-mix", s.name());
    assertEquals("three games", s.description());
    assertEquals(file.toString(), s.file());
    assertEquals(3, s.vms().size());
    assertEquals(List.of(0, 1, 2), s.vms().stream().map(Settings.Vm::index).toList());
    assertEquals("dirt3", vm(s, "zeta").workload());
    assertEquals(3, vm(s, "zeta").weight());
    assertEquals("portal2", vm(s, "alpha").workload());
    assertEquals(1, vm(s, "alpha").weight());
    assertEquals("cuda-loop", vm(s, "mid").workload());
    assertEquals(2, vm(s, "mid").weight());
  }

  // Settings.Vm documents 'index: dense index in file order', but ScenarioLoader walks the VMs in the order of
  // Typesafe Config's ConfigObject (a HashMap), so these three come out as [3dmark05, nba2012, dirt3].
  @Test
  void vms_keepTheFilesOrder_notHashOrder() throws Exception {
    Path file = write("order.conf", """
        scenario.vms {
          dirt3 { workload = dirt3 }
          3dmark05 { workload = 3dmark05-gt2 }
          nba2012 { workload = nba2012 }
        }
        """);
    Settings.Scenario s = ScenarioLoader.load(file, Overrides.none());
    assertEquals(List.of("dirt3", "3dmark05", "nba2012"), s.vms().stream().map(Settings.Vm::name).toList());
    assertEquals(List.of(0, 1, 2), s.vms().stream().map(Settings.Vm::index).toList());
  }

  @Test
  void nameNotSet_defaultsToFileNameWithoutConf() throws Exception {
    Path file = write("quiet-night.conf", "scenario.vms.a.workload = dirt3\n");
    assertEquals("quiet-night", ScenarioLoader.load(file, Overrides.none()).name());
  }

  @Test
  void unsetKeys_takeTheScenarioAndVmDefaultsOfReferenceConf() throws Exception {
    Path file = write("defaults.conf", "scenario.vms.a {}\n");
    Settings.Scenario s = ScenarioLoader.load(file, Overrides.none());

    assertEquals(1.0, s.timeScale());
    assertEquals(10 * S, s.durationNanos());
    assertEquals(1L, s.seed());
    assertEquals(4, s.host().cores());
    assertEquals(new Settings.Gpu(82, 4L << 30, 50 * US, 1), s.gpu());
    assertEquals(Settings.Fidelity.defaults(5 * S), s.fidelity());
    assertEquals(1 * S, s.metricsPeriodNanos());
    Settings.Vm a = vm(s, "a");
    assertEquals("dirt3", a.workload());
    assertEquals(1, a.weight());
    assertEquals(2, a.vcpus());
    assertEquals(1L << 30, a.memoryCapBytes());
    assertEquals(SyncWait.HYBRID, a.syncWait());
    assertEquals(Settings.PresentWait.BLOCK, a.presentWait());
    assertEquals(100 * US, a.spinLimitNanos());
    assertEquals(2, a.commandBuffer());
    assertEquals(0L, a.startDelayNanos());
    assertEquals(30.0, a.slaFps());
  }

  @Test
  void vmSettings_inFileOverrideVmDefaults() throws Exception {
    Path file = write("vm.conf", """
        scenario.vms.a {
          workload = nba2012
          vcpus = 1
          memory-cap = 512MiB
          sync-wait = poll
          spin-limit = 20us
          command-buffer = 3
          driver-queue = 4
          start-delay = 2s
          stop-after = 5s
          sla.fps = 60
          share = 0.3
          present-sleep { initial = 300ms, decrease = 1ms }
        }
        """);
    Settings.Vm a = vm(ScenarioLoader.load(file, Overrides.none()), "a");
    assertEquals(Settings.Vm.builder(0, "a", "nba2012", List.of(0)).memoryCap(512L << 20)
        .syncWait(SyncWait.POLL, 20 * US).buffers(3, 4).window(2 * S, 5 * S).slaFps(60.0).share(0.3)
        .presentSleep(new Settings.PresentSleep(300 * MS, MS, S)).build(), a);
  }

  @Test
  void unpinnedVcpus_areSpreadOverHostCoresInTurn_acrossVms() throws Exception {
    Path file = write("spread.conf", """
        scenario {
          host.cores = 4
          vms {
            a { vcpus = 2 }
            b { vcpus = 2 }
            c { vcpus = 3 }
          }
        }
        """);
    Settings.Scenario s = ScenarioLoader.load(file, Overrides.none());
    assertEquals(List.of(0, 1), vm(s, "a").cores());
    assertEquals(List.of(2, 3), vm(s, "b").cores());
    assertEquals(List.of(0, 1, 2), vm(s, "c").cores(), "placement wraps around the host's cores");
  }

  @Test
  void pinnedVcpus_useTheListedCoresCyclically() throws Exception {
    Path file = write("pinned.conf", """
        scenario {
          host.cores = 4
          vms {
            a { vcpus = 3, cores = [1, 3] }
            b { vcpus = 1 }
          }
        }
        """);
    Settings.Scenario s = ScenarioLoader.load(file, Overrides.none());
    assertEquals(List.of(1, 3, 1), vm(s, "a").cores());
    assertEquals(List.of(0), vm(s, "b").cores(), "pinned VMs do not use up the spread placement");
  }

  @Test
  void defaultPolicies_areFcfsWeightedFairAndStatic_withReferenceParams() throws Exception {
    Path file = write("default-policies.conf", "scenario.vms.a {}\n");
    Settings.Scenario s = ScenarioLoader.load(file, Overrides.none());

    assertEquals("fcfs", s.gpuPolicy().name());
    assertEquals(Map.of("max-inflight", 2L), s.gpuPolicy().params().values());
    assertEquals("weighted-fair", s.cpuPolicy().name());
    assertEquals(6 * MS, s.cpuPolicy().params().nanos("period"));
    assertEquals(750 * US, s.cpuPolicy().params().nanos("min-granularity"));
    assertEquals("static", s.memoryPolicy().name());
    assertTrue(s.memoryPolicy().params().values().isEmpty());
  }

  @Test
  void roundRobinChosen_getsItsParamsMergedFromReference_sliceIs16msInNanos() throws Exception {
    Path file = write("rr.conf", """
        scenario {
          scheduler.gpu.policy = round-robin
          vms.a {}
        }
        """);
    Settings.PolicyChoice gpu = ScenarioLoader.load(file, Overrides.none()).gpuPolicy();
    assertEquals("round-robin", gpu.name());
    assertEquals(16 * MS, gpu.params().nanos("slice"));
    assertEquals(64L, gpu.params().count("max-kernels-per-slice"));
    assertEquals(2L, gpu.params().count("max-inflight"));
    assertEquals(3, gpu.params().values().size());
  }

  @Test
  void policyParamInFile_overridesOnlyThatParam() throws Exception {
    Path file = write("rr4.conf", """
        scenario {
          scheduler.gpu { policy = round-robin, slice = 4ms }
          scheduler.cpu { min-granularity = 1ms }
          vms.a {}
        }
        """);
    Settings.Scenario s = ScenarioLoader.load(file, Overrides.none());
    assertEquals(4 * MS, s.gpuPolicy().params().nanos("slice"));
    assertEquals(64L, s.gpuPolicy().params().count("max-kernels-per-slice"));
    assertEquals(1 * MS, s.cpuPolicy().params().nanos("min-granularity"));
    assertEquals(6 * MS, s.cpuPolicy().params().nanos("period"));
  }

  @Test
  void setOverride_shortPath_changesGpuPolicy() throws Exception {
    Path file = write("set.conf", "scenario { scheduler.gpu.policy = fcfs, vms.a {} }\n");
    Settings.Scenario s = ScenarioLoader.load(file,
        new Overrides(null, null, null, Map.of("scheduler.gpu.policy", "round-robin")));
    assertEquals("round-robin", s.gpuPolicy().name());
    assertEquals(16 * MS, s.gpuPolicy().params().nanos("slice"));
  }

  @Test
  void setOverride_fullScenarioPath_changesGpuPolicy() throws Exception {
    Path file = write("set-full.conf", "scenario { scheduler.gpu.policy = fcfs, vms.a {} }\n");
    Settings.Scenario s = ScenarioLoader.load(file,
        new Overrides(null, null, null, Map.of("scenario.scheduler.gpu.policy", "round-robin")));
    assertEquals("round-robin", s.gpuPolicy().name());
  }

  @Test
  void setOverrides_changeVmValuesAndPolicyParams_andKeepTheRest() throws Exception {
    Path file = write("set-many.conf", """
        scenario {
          duration = 3s
          vms { a { weight = 1 }, b { weight = 1 } }
        }
        """);
    Map<String, String> sets = new LinkedHashMap<>();
    sets.put("vms.a.weight", "5");
    sets.put("scheduler.gpu.policy", "round-robin");
    sets.put("scheduler.gpu.slice", "8ms");
    sets.put("scenario.host.cores", "2");
    Settings.Scenario s = ScenarioLoader.load(file, new Overrides(null, null, null, sets));

    assertEquals(5, vm(s, "a").weight());
    assertEquals(1, vm(s, "b").weight());
    assertEquals(8 * MS, s.gpuPolicy().params().nanos("slice"));
    assertEquals(2, s.host().cores());
    assertEquals(3 * S, s.durationNanos());
  }

  @Test
  void scaleDurationAndSeedOverrides_replaceTheFilesValues() throws Exception {
    Path file = write("ov.conf", """
        scenario {
          time-scale = 2.0
          duration = 30s
          seed = 7
          vms.a {}
        }
        """);
    Settings.Scenario s = ScenarioLoader.load(file, new Overrides(0.25, 1500 * MS, 42L, Map.of()));
    assertEquals(0.25, s.timeScale());
    assertEquals(1500 * MS, s.durationNanos());
    assertEquals(42L, s.seed());
  }

  @Test
  void noOverrides_keepTheFilesScaleDurationAndSeed() throws Exception {
    Path file = write("keep.conf", """
        scenario {
          time-scale = 2.0
          duration = 30s
          seed = 7
          vms.a {}
        }
        """);
    Settings.Scenario s = ScenarioLoader.load(file, Overrides.none());
    assertEquals(2.0, s.timeScale());
    assertEquals(30 * S, s.durationNanos());
    assertEquals(7L, s.seed());
  }

  @Test
  void shippedDefaultContentionScenario_loads() throws Exception {
    Path conf = Paths.get(System.getProperty("conf.dir", "../conf"));
    Path file = conf.resolve("scenarios/baseline/default-contention.conf");
    assertTrue(Files.isRegularFile(file), "missing " + file.toAbsolutePath());
    Settings.Scenario s = ScenarioLoader.load(file, Overrides.none());

    assertEquals("default-contention", s.name());
    assertEquals(30 * S, s.durationNanos());
    assertEquals("fcfs", s.gpuPolicy().name());
    assertEquals(3, s.vms().size());
    assertEquals("dirt3", vm(s, "dirt3").workload());
    assertEquals("3dmark05-gt2", vm(s, "3dmark05").workload());
    assertEquals("nba2012", vm(s, "nba2012").workload());
    assertFalse(s.description().isBlank());
  }
}
