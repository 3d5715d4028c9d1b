package org.gpuemu.emulator.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.config.FaultPlan.Fault;
import org.gpuemu.emulator.config.FaultPlan.Kind;
import org.gpuemu.emulator.config.ScenarioLoader.Overrides;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The three ways to declare faults, and how each is validated: scenario list, command line, seeded random draw. */
class FaultPlanTest {
  private static final long S = 1_000_000_000L;
  private static final long MS = 1_000_000L;
  private static final FaultPlan.Defaults DEFAULTS = new FaultPlan.Defaults(2 * S, S, 2 * S, S / 5, S, S, 10 * S);
  private static final List<String> VMS = List.of("vm1", "vm2");

  @TempDir Path dir;

  private Path scenario(String faults) throws IOException {
    return Files.writeString(dir.resolve("f.conf"), "scenario { duration = 5s, vms { vm1 {}, vm2 {} }\n"
        + "faults = " + faults + " }\n");
  }

  private static Overrides cli(String... faults) {
    return new Overrides(null, null, null, Map.of(), new FaultPlan.Cli(List.of(faults), null, null));
  }

  private static Overrides random(String rate, long seed) {
    return new Overrides(null, null, seed, Map.of(), new FaultPlan.Cli(List.of(), "random", rate));
  }

  private List<String> problems(Path file, Overrides o) {
    return assertThrows(ConfigProblems.class, () -> ScenarioLoader.load(file, o)).problems();
  }

  @Test
  void scenarioList_readsEachFault_withItsHeal_orTheKindsDefault() throws Exception {
    Settings.Scenario s = ScenarioLoader.load(scenario("[ { at = 2s, kind = gpu-hang, target = vm2, heal-after = 1s },"
        + " { at = 500ms, kind = vcpu-stall, target = vm1 }, { at = 3s, kind = vgpu-crash, target = vm1 } ]"),
        Overrides.none());
    assertEquals(List.of(new Fault(0, Kind.GPU_HANG, 2 * S, "vm2", S),
        // reference.conf's fault-defaults: a stall lasts 1 s, a crash restarts at once
        new Fault(1, Kind.VCPU_STALL, 500 * MS, "vm1", S), new Fault(2, Kind.VGPU_CRASH, 3 * S, "vm1", 0)),
        s.faults().faults());
  }

  @Test
  void messageAndCoreFaults_takeTheirDefaults_andOnlyAMessageFaultsTargetGetsAChannel() throws Exception {
    Settings.Scenario s = ScenarioLoader.load(scenario("[ { at = 1s, kind = message-loss, target = vm1 },"
        + " { at = 2s, kind = core-offline, target = vm2 } ]"), Overrides.none());
    // reference.conf's fault-defaults: each lasts 1 s
    assertEquals(List.of(new Fault(0, Kind.MESSAGE_LOSS, S, "vm1", S), new Fault(1, Kind.CORE_OFFLINE, 2 * S, "vm2", S)),
        s.faults().faults());
    assertTrue(s.faults().channelFaulted("vm1"));
    assertFalse(s.faults().channelFaulted("vm2"), "a core-offline is not on the channel");
    // 200 ms doubled over 3 sends: the guest gives up 200 + 400 + 800 ms after the first
    assertEquals(new FaultPlan.Channel(200 * MS, 3, 300 * MS), s.faults().channel());
    assertEquals(1_400 * MS, s.faults().channel().giveUpNanos());
  }

  @Test
  void channelSettings_outOfRange_areOneLineEachAtTheirPath() throws Exception {
    Path file = Files.writeString(dir.resolve("c.conf"), "scenario { duration = 5s, vms { vm1 {} }\n"
        + "fault-defaults { guest-attempts = 0, guest-timeout = 0ms } }\n");
    List<String> p = problems(file, Overrides.none());
    assertTrue(p.contains(file + ": scenario.fault-defaults.guest-attempts: expected 1 to 16, got 0"), p.toString());
    assertTrue(p.contains(file + ": scenario.fault-defaults.guest-timeout: expected > 0, e.g. 200ms"), p.toString());
  }

  @Test
  void noFaults_isTheEmptyPlan() throws Exception {
    assertTrue(ScenarioLoader.load(scenario("[]"), Overrides.none()).faults().isEmpty());
  }

  @Test
  void scenarioList_badKindTargetKeyAndTime_eachOneLineAtItsPath() throws Exception {
    Path file = scenario("[ { at = 2s, kind = gpu-melt, target = vm9 }, { at = 9s, kind = gpu-hang, target = vm1 },"
        + " { at = 1s, kind = gpu-hang, target = vm1, colour = red } ]");
    List<String> p = problems(file, Overrides.none());
    assertEquals(4, p.size(), p.toString());
    assertTrue(p.get(0).startsWith(file + ": scenario.faults[0].kind: unknown fault kind 'gpu-melt'; expected one of "
        + "[agent-crash, core-offline, cpu-scheduler-crash, emulator-stall, gpu-hang, gpu-scheduler-crash, "
        + "memory-crash, memory-pressure, message-delay, message-duplicate, message-loss, metrics-crash, node-crash, smgroup-crash, "
        + "vcpu-crash, "
        + "vcpu-stall, vgpu-crash, vm-crash, vm-reboot]"), p.get(0));
    assertTrue(p.get(1).startsWith(file + ": scenario.faults[0].target: unknown VM 'vm9'; expected one of [vm1, vm2]"),
        p.get(1));
    // 9 s is after the run's 5 s: it would never fire
    assertTrue(p.get(2).startsWith(file + ": scenario.faults[1].at: expected an emulated time"), p.get(2));
    assertTrue(p.get(3).startsWith(file + ": scenario.faults[2].colour: unknown key"), p.get(3));
    p.forEach(line -> assertTrue(!line.contains("\n"), line));
  }

  @Test
  void commandLine_kindAtTimeTargetDuration_andNoTargetMeansTheFirstVm() throws Exception {
    Settings.Scenario s = ScenarioLoader.load(scenario("[ { at = 1s, kind = vgpu-crash, target = vm2 } ]"),
        cli("gpu-hang@2s:vm2:1500ms", "vcpu-stall@250ms"));
    assertEquals(List.of(new Fault(0, Kind.VGPU_CRASH, S, "vm2", 0), new Fault(1, Kind.GPU_HANG, 2 * S, "vm2",
        1500 * MS), new Fault(2, Kind.VCPU_STALL, 250 * MS, "vm1", S)), s.faults().faults());
  }

  @Test
  void commandLine_badFault_isOneLineNamingTheOption() throws Exception {
    Path file = scenario("[]");
    assertEquals(List.of("--fault gpu-hang@2s:nba: unknown VM 'nba'; expected one of [vm1, vm2]"),
        problems(file, cli("gpu-hang@2s:nba")));
    assertEquals(List.of("--fault crash: expected KIND@TIME[:TARGET[:DURATION]], e.g. gpu-hang@2s:vm2:1s"),
        problems(file, cli("crash")));
    assertTrue(problems(file, cli("vcpu-stall@1s:vm1:0s")).get(0).startsWith("--fault vcpu-stall@1s:vm1:0s: "
        + "expected a duration"));
  }

  @Test
  void random_sameSeed_drawsTheSameFaults_anotherSeedOthers() throws Exception {
    Path file = scenario("[]");
    List<Fault> a = ScenarioLoader.load(file, random("1/1s", 7)).faults().faults();
    assertEquals(a, ScenarioLoader.load(file, random("1/1s", 7)).faults().faults());
    assertNotEquals(a, ScenarioLoader.load(file, random("1/1s", 8)).faults().faults());
    // a Poisson process of one per second over 5 s: at least one fault for this seed, all inside the run
    assertTrue(!a.isEmpty() && a.stream().allMatch(f -> f.atNanos() > 0 && f.atNanos() < 5 * S), a.toString());
  }

  @Test
  void random_meanInterval_isTheRate() {
    List<Fault> drawn = FaultPlan.random(3, 10 * S, 100_000 * S, VMS, DEFAULTS);
    // 10,000 expected; a Poisson count's standard deviation is 100, so 9,600..10,400 is four of them
    assertTrue(drawn.size() > 9_600 && drawn.size() < 10_400, "drew " + drawn.size());
    List<Kind> kinds = new ArrayList<>();
    for (Fault f : drawn) if (!kinds.contains(f.kind())) kinds.add(f.kind());
    assertEquals(Kind.drawn().size(), kinds.size(), "every kind of the model is drawn");
    assertTrue(!kinds.contains(Kind.EMULATOR_STALL), "a stall of the emulator is not the model's fault");
    assertTrue(!kinds.contains(Kind.NODE_CRASH), "a node's crash is not the model's fault");
  }

  @Test
  void random_badRate_orRateWithoutRandom_areBadInput() throws Exception {
    Path file = scenario("[]");
    assertEquals(List.of("--fault-rate 0/1s: expected N/DURATION with N > 0, e.g. 1/10s"),
        problems(file, random("0/1s", 1)));
    assertEquals(List.of("--faults random: needs --fault-rate N/DURATION, e.g. 1/10s"), problems(file, random(null, 1)));
  }

  @Test
  void memoryPressure_needsASlotMemoryPolicy_oneLineNamingTheKey() throws Exception {
    Path file = scenario("[ { at = 1s, kind = memory-pressure, target = vm1 } ]");
    assertEquals(List.of(file + ": scenario.memory.policy: a memory-pressure fault needs a slot memory policy "
        + "(static-384, static-512, static-1024, static-2048 or gballoon: the guests' shared global graphics memory), "
        + "got static"), problems(file, Overrides.none()));
    Path slots = Files.writeString(dir.resolve("g.conf"), "scenario { duration = 5s, memory.policy = gballoon, "
        + "vms { vm1 {}, vm2 {} }\nfaults = [ { at = 1s, kind = memory-pressure, target = vm1 } ] }\n");
    Settings.Scenario s = ScenarioLoader.load(slots, Overrides.none());
    assertEquals(List.of(new Fault(0, Kind.MEMORY_PRESSURE, S, "vm1", 10 * S)), s.faults().faults(),
        "heal-after: fault-defaults.memory-pressure");
    assertEquals(384L << 20, s.faults().pressureBytes(), "fault-defaults.memory-pressure-size");
  }

  @Test
  void random_drawsMemoryPressure_onlyUnderASlotMemoryPolicy() throws Exception {
    Path file = scenario("[]");
    assertTrue(ScenarioLoader.load(file, random("1/10ms", 7)).faults().faults().stream()
        .noneMatch(f -> f.kind() == Kind.MEMORY_PRESSURE), "memory.policy = static has no shared capacity");
    Path slots = Files.writeString(dir.resolve("g.conf"), "scenario { duration = 5s, memory.policy = static-384, "
        + "vms { vm1 {}, vm2 {} } }\n");
    assertTrue(ScenarioLoader.load(slots, random("1/10ms", 7)).faults().faults().stream()
        .anyMatch(f -> f.kind() == Kind.MEMORY_PRESSURE), "500 faults drawn from 18 kinds");
  }

  @Test
  void interval_ofRate() {
    assertEquals(10 * S, FaultPlan.interval("1/10s").orElseThrow());
    assertEquals(500 * MS, FaultPlan.interval("2/1s").orElseThrow());
    assertTrue(FaultPlan.interval("1/10").isEmpty(), "a duration needs its unit");
  }
}
