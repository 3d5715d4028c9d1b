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

/** The Alibaba trace window as arrivals and departures on hosts drawn from its node list. */
class ClusterTraceTest {
  private static final Path FILE = Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios", "cluster",
      "openb-window.conf");

  private static Settings.Scenario load(long durationNanos) throws ConfigProblems {
    return ScenarioLoader.load(FILE, new ScenarioLoader.Overrides(FastForward.SCALE, durationNanos, null, Map.of()));
  }

  @Test
  void window_becomesHostsAndVms_bythemappingWrittenDown() throws Exception {
    Settings.Scenario s = load(18_000_000_000L);
    assertEquals(List.of("openb-node-0035", "openb-node-0036", "openb-node-0043"),
        s.hosts().stream().map(Settings.Host::name).toList(), "the first three T4 nodes of the node list");
    assertEquals(List.of(96, 104, 104), s.hosts().stream().map(Settings.Host::cores).toList(), "cpu_milli / 1000");
    assertEquals(List.of(4, 2, 2), s.hosts().stream().map(Settings.Host::gpus).toList());
    assertEquals(40, s.vms().size() + s.rejected().size());
    // openb-pod-6237 (line 6239): cpu_milli 11300, gpu_milli 1000, LS, created 12,442,471, deleted 12,446,148
    Settings.Vm v = s.vms().stream().filter(x -> x.name().equals("openb-pod-6237")).findFirst().orElseThrow();
    assertEquals("ls-1000", v.workload());
    assertEquals(1.0, v.share());
    assertEquals(100, v.weight(), "gpu_milli / 10");
    assertEquals(11_300, v.cpuMilli());
    assertEquals(1, v.vcpus());
    assertEquals(871_000_000L, v.startDelayNanos(), "(12,442,471 - 12,441,600) s / 1000");
    assertEquals(3_677_000_000L, v.stopAfterNanos(), "(12,446,148 - 12,442,471) s / 1000");
    assertEquals(16L << 30, v.memoryCapBytes(), "its share of a T4's 16 GiB");
  }

  @Test
  void run_everyTaskRunsOnAGpuWithRoom_andNothingIsLost(@TempDir Path out) throws Exception {
    Summary sum = new Summary(Runner.run(load(6_000_000_000L), out, Runner.Options.every(500)));
    assertTrue(sum.brokenInvariants().isEmpty(), sum.brokenInvariants().toString());
    @SuppressWarnings("unchecked")
    Map<String, Object> inv = (Map<String, Object>) sum.document().get("invariants");
    assertEquals(0L, ((Number) inv.get("requests_lost")).longValue());
    assertTrue(((Number) inv.get("requests_completed")).longValue() > 1000, inv.toString());
  }

  @Test
  void aTraceFileThatIsNotThere_isOneProblemNamingTheKey(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("t.conf");
    Files.writeString(file, "scenario.trace { tasks-file = \"nope.csv\", nodes-file = \"nope.csv\" }\n");
    ConfigProblems p = assertThrows(ConfigProblems.class,
        () -> ScenarioLoader.load(file, ScenarioLoader.Overrides.none()));
    assertTrue(p.problems().get(0).contains("scenario.trace.tasks-file: cannot read"), p.problems().toString());
  }

  @Test
  void aBadRow_isOneProblemWithItsFileAndLine(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("pods.csv"), "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
        + "creation_time,deletion_time,scheduled_time\np1,1000,100,1,500,,LS,Running,10,20,10\n"
        + "p2,1000,100,1,x,,BE,Running,11,30,11\n");
    Files.writeString(dir.resolve("nodes.csv"), "sn,cpu_milli,memory_mib,gpu,model\nn1,8000,1000,1,T4\n");
    Path file = dir.resolve("t.conf");
    Files.writeString(file, "scenario.trace { tasks-file = \"pods.csv\", nodes-file = \"nodes.csv\", hosts = 1 }\n");
    ConfigProblems p = assertThrows(ConfigProblems.class,
        () -> ScenarioLoader.load(file, ScenarioLoader.Overrides.none()));
    assertEquals(1, p.problems().size(), p.problems().toString());
    assertTrue(p.problems().get(0).contains("pods.csv:3: expected gpu_milli to be a whole number"),
        p.problems().get(0));
  }
}
