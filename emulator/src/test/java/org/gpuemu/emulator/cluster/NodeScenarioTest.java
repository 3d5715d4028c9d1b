package org.gpuemu.emulator.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.junit.jupiter.api.Test;

/**
 * A node's share of a scenario and its restart after a node's loss, to the nanosecond: which VMs boot again and when,
 * which faults are kept, and a restarted part's timeline rows moved back to the run's clock. The overrides set keys of
 * host c and of two VMs: hosts and VMs keep their order in the file all the same (an override used to move them
 * first, changing their indexes and seeds).
 */
class NodeScenarioTest {
  private static final long S = 1_000_000_000L;
  private static final Path FILE = Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios", "cluster",
      "three-hosts.conf");

  private static Settings.Scenario load(List<String> faults) throws Exception {
    return ScenarioLoader.load(FILE, new ScenarioLoader.Overrides(null, 6 * S, null,
        Map.of("placement.policy", "spread", "vms.train1.host", "c", "vms.infer1.host", "c", "hosts.c.cores", "8"),
        new FaultPlan.Cli(faults, null, null)));
  }

  @Test
  void part_ofHostC_hasItsVmsRenumbered_keepsTheirSeeds_andOnlyTheirFaults_butNoNodeCrash() throws Exception {
    Settings.Scenario s = load(List.of("vgpu-crash@1s:game3", "gpu-hang@2s:game1", "node-crash@3s:train1"));
    Settings.Scenario c = NodeScenario.of(s, List.of(2));
    assertEquals(List.of("c"), c.hosts().stream().map(Settings.Host::name).toList());
    assertEquals(List.of("train1", "game3", "infer1"), c.vms().stream().map(Settings.Vm::name).toList());
    for (Settings.Vm vm : c.vms()) {
      Settings.Vm whole = s.vms().stream().filter(v -> v.name().equals(vm.name())).findFirst().orElseThrow();
      assertEquals(whole.seedIndex(), vm.seedIndex(), vm.name() + " runs its program with the whole scenario's seed");
      assertEquals(0, vm.host(), "the part's only host");
    }
    // game1 is on another host; the node crash is the coordinator's to carry out
    assertEquals(List.of("vgpu-crash on game3 at 1000000000"), c.faults().faults().stream()
        .map(f -> f.kind().label() + " on " + f.target() + " at " + f.atNanos()).toList());
  }

  @Test
  void restartAt_3s_dropsWhatLeft_bootsTheRestAtTheRestartOrItsArrival_andMovesTheFaults() throws Exception {
    Settings.Scenario c = NodeScenario.of(load(List.of("vgpu-crash@1s:game3", "vgpu-crash@5s:train1")), List.of(2));
    // infer1 arrives at 2 s and stays 2 s: still there at 3 s, 1 s left
    Settings.Scenario r = NodeScenario.restartAt(c, 3 * S);
    assertEquals(3 * S, r.durationNanos(), "the part's own clock runs from the restart to the run's end");
    assertEquals(List.of("train1", "game3", "infer1"), r.vms().stream().map(Settings.Vm::name).toList());
    Settings.Vm infer = r.vms().get(2);
    assertEquals(0, infer.startDelayNanos(), "boots at once");
    assertEquals(S, infer.stopAfterNanos(), "and leaves when it would have: 4 s of the run");
    assertEquals(Long.MAX_VALUE, r.vms().get(0).stopAfterNanos(), "train1 stays to the end");
    assertEquals(List.of("train1 at 2000000000"), r.faults().faults().stream()
        .map(f -> f.target() + " at " + f.atNanos()).toList(), "the fault at 1 s was before the restart");

    // at 4.5 s infer1 has left: it does not boot again
    Settings.Scenario later = NodeScenario.restartAt(c, 4_500_000_000L);
    assertEquals(List.of("train1", "game3"), later.vms().stream().map(Settings.Vm::name).toList());
    assertEquals(List.of(0, 1), later.vms().stream().map(Settings.Vm::index).toList());
  }

  @Test
  void restartAt_beforeAnArrival_keepsTheArrivalOnTheRunsClock() throws Exception {
    Settings.Scenario c = NodeScenario.of(load(List.of()), List.of(2));
    Settings.Scenario r = NodeScenario.restartAt(c, S);
    Settings.Vm infer = r.vms().stream().filter(v -> v.name().equals("infer1")).findFirst().orElseThrow();
    assertEquals(S, infer.startDelayNanos(), "arrives at 2 s of the run: 1 s after the restart");
    assertEquals(2 * S, infer.stopAfterNanos(), "and stays its 2 s");
  }

  @Test
  void shifted_movesARowToTheRunsClock_keepingTheRestOfTheRow() {
    String row = "{\"t_s\":1.5,\"vm\":\"game3\",\"fps\":60.0}";
    assertEquals(row, NodeAgent.shifted(row, 0));
    assertEquals("{\"t_s\":19.5,\"vm\":\"game3\",\"fps\":60.0}", NodeAgent.shifted(row, 18 * S));
    assertEquals("{\"t_s\":3.001,\"vm\":\"game3\",\"fps\":60.0}",
        NodeAgent.shifted("{\"t_s\":1.0005,\"vm\":\"game3\",\"fps\":60.0}", 2_000_500_000L), "to the ms, as rows are");
  }
}
