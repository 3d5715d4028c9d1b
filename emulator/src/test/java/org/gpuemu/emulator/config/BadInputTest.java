package org.gpuemu.emulator.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

/**
 * Bad scenario files: every problem is one line {@code FILE: key.path: what is expected, got X}, and all problems
 * of a file are reported together.
 */
class BadInputTest {
  @TempDir Path dir;

  private Path file;

  private List<String> problems(String content) throws IOException {
    return problems(content, Overrides.none());
  }

  private List<String> problems(String content, Overrides overrides) throws IOException {
    file = Files.writeString(dir.resolve("bad.conf"), content);
    ConfigProblems e = assertThrows(ConfigProblems.class, () -> ScenarioLoader.load(file, overrides));
    assertFalse(e.problems().isEmpty(), "ConfigProblems without problems");
    for (String p : e.problems()) {
      assertFalse(p.contains("\n") || p.contains("\r"), "a problem must be one line: " + p);
    }
    return e.problems();
  }

  /** The one problem about {@code key}: it names the file and the key and says what is expected. */
  private String problemAt(List<String> problems, String key, String... expectation) {
    String prefix = file + ": " + key + ": ";
    List<String> at = problems.stream().filter(p -> p.startsWith(prefix)).toList();
    assertEquals(1, at.size(), "expected one problem starting with '" + prefix + "' in " + problems);
    String line = at.get(0);
    for (String e : expectation) {
      assertTrue(line.contains(e), "problem '" + line + "' should say '" + e + "'");
    }
    return line;
  }

  private void onlyProblemAt(List<String> problems, String key, String... expectation) {
    problemAt(problems, key, expectation);
    assertEquals(1, problems.size(), "expected only the problem at " + key + ", got " + problems);
  }

  // ------------------------------------------------------------------ space sharing (COMBO)

  @Test
  void spacePolicy_needsExactlyOneGameVm() throws IOException {
    onlyProblemAt(problems("scenario { scheduler.gpu.policy = combo, vms { a { workload = combo-resnet50 } } }"),
        "scenario.vms", "exactly one VM running a COMBO game", "got 0");
  }

  @Test
  void spacePolicy_rejectsABeVmWhoseKernelsAreNotCdOrTc() throws IOException {
    onlyProblemAt(problems("scenario { scheduler.gpu.policy = pilotfish, vms { g { workload = combo-quake2 }, "
        + "b { workload = dirt3 } } }"), "scenario.vms.b.workload", "CD or TC", "dirt3");
  }

  @Test
  void spacePolicy_parametersAreItsOwn_andValidated() throws IOException {
    onlyProblemAt(problems("scenario { scheduler.gpu { policy = combo-exact, merge-headrooms = false }, "
        + "vms { g { workload = combo-quake2 } } }"), "scenario.scheduler.gpu.merge-headrooms",
        "not a parameter of policy 'combo-exact'");
    onlyProblemAt(problems("scenario { scheduler.gpu { policy = combo, merge-headrooms = maybe }, "
        + "vms { g { workload = combo-quake2 } } }"), "scenario.scheduler.gpu.merge-headrooms", "true or false");
  }

  // ------------------------------------------------------------------ unknown keys

  @Test
  void vgrisSharesAboveOne_areRejected_namingTheVms() throws IOException {
    onlyProblemAt(problems("scenario { scheduler.gpu.policy = vgris-share\n"
        + "vms { a { share = 0.6 }, b { share = 0.5 } } }\n"), "scenario.scheduler.gpu", "vgris-share", "a 0.6",
        "b 0.5");
  }

  @Test
  void hybridWindowNotWholeSeconds_isRejected() throws IOException {
    onlyProblemAt(problems("scenario { scheduler.gpu { policy = vgris-hybrid, window = 2500ms }, vms.a {} }\n"),
        "scenario.scheduler.gpu", "window");
  }

  @Test
  void absurdVcpuCount_isRejected() throws IOException {
    onlyProblemAt(problems("scenario.vms.a { vcpus = 2000000000 }\n"), "scenario.vms.a.vcpus", "at most 1024");
  }

  @Test
  void shareOutOfRange_isRejected() throws IOException {
    onlyProblemAt(problems("scenario.vms.a { share = 1.5 }\n"), "scenario.vms.a.share", "(0, 1]");
  }

  @Test
  void fractionalCount_isRejected_butFractionalRealIsNot() throws IOException {
    onlyProblemAt(problems("scenario.vms.a { vcpus = 1.5, sla.fps = 29.97 }\n"), "scenario.vms.a.vcpus",
        "an integer");
  }

  @Test
  void unknownKeyInScenario_isRejected_withPathAndValidKeys() throws IOException {
    List<String> p = problems("scenario { colour = red, vms.a {} }\n");
    String line = problemAt(p, "scenario.colour", "unknown key", "expected one of [");
    assertTrue(line.contains("duration") && line.contains("scheduler"), line);
    assertEquals(1, p.size(), p.toString());
  }

  @Test
  void unknownKeyInVm_isRejected_withPathAndValidKeys() throws IOException {
    List<String> p = problems("scenario.vms.a { workload = dirt3, colour = red }\n");
    String line = problemAt(p, "scenario.vms.a.colour", "unknown key", "expected one of [");
    assertTrue(line.contains("weight") && line.contains("workload"), line);
    assertEquals(1, p.size(), p.toString());
  }

  @Test
  void unknownNestedKey_isRejected_withFullPath() throws IOException {
    onlyProblemAt(problems("scenario { gpu.colour = 1, vms.a {} }\n"), "scenario.gpu.colour", "unknown key",
        "context-switch");
  }

  @Test
  void unknownKeyInAFault_anExploreBlockOrProperty_orAnAxis_namesTheKeysReferenceConfDeclares() throws IOException {
    onlyProblemAt(problems("scenario { vms.a {}, faults = [{ at = 1s, kind = gpu-hang, target = a, colour = red }] "
        + "}\n"), "scenario.faults[0].colour", "unknown key; expected one of [at, heal-after, kind, target]");
    onlyProblemAt(problems("scenario { vms.a {}, explore { colour = red } }\n"), "scenario.explore.colour",
        "unknown key; expected one of [keep-vms, properties, recovery]");
    onlyProblemAt(problems("scenario { vms.a {}, explore.properties = [{ metric = fairness.mmr, at-least = 0.5, "
        + "colour = red }] }\n"), "scenario.explore.properties[0].colour", "unknown key; expected one of [at-least, "
        + "at-most, metric, name, outside-faults, paper, relative-tolerance, source, tolerance]");
    List<String> p = problems("scenario { vms.a {}, expect.groups.axes = [{ name = game, path = vms.a.workload, "
        + "values = [dirt3], colour = red }] }\n");
    problemAt(p, "scenario.expect.groups.axes[0].colour", "unknown key; expected one of [labels, name, path, values]");
  }

  @Test
  void unknownKeyInAnUnmeasuredRow_aPhase_aStep_orATraceOfTheOtherFormat_namesTheKeysReferenceConfDeclares()
      throws IOException {
    List<String> p = problems("scenario { vms.a {}, expect.rows = [{ figure = \"Table 1\", unmeasured = input, "
        + "source = s, metric = fairness.mmr }] }\n");
    onlyProblemAt(p, "scenario.expect.rows[0].metric", "a row with unmeasured reads no run: it takes figure, "
        + "unmeasured, source and headline only");
    onlyProblemAt(problems("scenario { workloads { g { kind = frame-loop, phases = [{ duration = 1s, colour = red }] "
        + "} }, vms.a.workload = g }\n"), "scenario.workloads.g.phases[0].colour",
        "unknown key; expected one of [batches, cpu, duration, fps, gpu, name, variation]");
    onlyProblemAt(problems("scenario { workloads { s { kind = sequence, phases = [{ workload = dirt3, duration = 1s, "
        + "colour = red }] } }, vms.a.workload = s }\n"), "scenario.workloads.s.phases[0].colour",
        "unknown key; expected one of [duration, workload]");
    onlyProblemAt(problems("scenario { workloads { c { kind = compute-loop, kernels { k { duration = 1ms } }, "
        + "steps = [{ launch = k, colour = red }, { sync = k }] } }, vms.a.workload = c }\n"),
        "scenario.workloads.c.steps[0].colour",
        "unknown key; expected one of [copy, copy-async, count, cpu, launch, sleep, sync]");
    onlyProblemAt(problems("scenario { workloads { c { kind = compute-loop, kernels { k { duration = 1ms } }, "
        + "steps = [{ count = 2 }, { sync = k }] } }, vms.a.workload = c }\n"), "scenario.workloads.c.steps[0]",
        "expected exactly one of [copy, copy-async, cpu, launch, sleep, sync], got none");
    Files.writeString(dir.resolve("frames.csv"), "start_ms,cpu_ms,gpu_ms\n0,1,2\n16,1,2\n");
    onlyProblemAt(problems("scenario { workloads { t { kind = trace, format = frames, file = frames.csv, "
        + "tensor-match = x } }, vms.a.workload = t }\n"), "scenario.workloads.t.tensor-match",
        "applies to format = nsys only; this trace's format is frames");
  }

  @Test
  void unknownTopLevelKey_outsideScenario_isRejected() throws IOException {
    onlyProblemAt(problems("colour = red\nscenario.vms.a {}\n"), "colour", "unknown top-level key",
        "under 'scenario'");
  }

  @Test
  void vmDefaultsInScenario_isRejected_pointingToVms() throws IOException {
    onlyProblemAt(problems("scenario { vm-defaults.weight = 2, vms.a {} }\n"), "scenario.vm-defaults",
        "scenario.vms.<name>");
  }

  @Test
  void scenarioMissing_isRejected() throws IOException {
    problemAt(problems("vms.a {}\n"), "scenario", "expected an object");
  }

  @Test
  void scenarioNotAnObject_isRejected() throws IOException {
    onlyProblemAt(problems("scenario = 5\n"), "scenario", "expected an object");
  }

  // ------------------------------------------------------------------ wrong types

  @Test
  void weightAsText_isRejected_expectingAnInteger() throws IOException {
    onlyProblemAt(problems("scenario.vms.a { weight = \"heavy\" }\n"), "scenario.vms.a.weight",
        "expected an integer", "got \"heavy\"");
  }

  @Test
  void weightAsFraction_isRejected_expectingAnInteger() throws IOException {
    onlyProblemAt(problems("scenario.vms.a { weight = 1.5 }\n"), "scenario.vms.a.weight", "expected an integer",
        "got 1.5");
  }

  @Test
  void durationWithoutUnit_isRejected_expectingAUnit() throws IOException {
    onlyProblemAt(problems("scenario { duration = 5, vms.a {} }\n"), "scenario.duration",
        "expected a duration with a unit", "got 5");
  }

  @Test
  void durationWithUnknownUnit_isRejected() throws IOException {
    onlyProblemAt(problems("scenario { duration = 5 parsecs, vms.a {} }\n"), "scenario.duration",
        "expected a duration with a unit", "parsecs");
  }

  @Test
  void hostCoresAsText_isRejected_expectingAnInteger() throws IOException {
    onlyProblemAt(problems("scenario { host.cores = \"zero\", vms.a {} }\n"), "scenario.host.cores",
        "expected an integer", "got \"zero\"");
  }

  @Test
  void vmCoresAsText_isRejected_expectingAListOfIntegers() throws IOException {
    onlyProblemAt(problems("scenario.vms.a { cores = \"zero\" }\n"), "scenario.vms.a.cores",
        "expected a list of integers", "got \"zero\"");
  }

  @Test
  void vmCoresListOfText_isRejected_expectingAListOfIntegers() throws IOException {
    onlyProblemAt(problems("scenario.vms.a { cores = [zero, one] }\n"), "scenario.vms.a.cores",
        "expected a list of integers");
  }

  @Test
  void memoryCapNotASize_isRejected_expectingASize() throws IOException {
    onlyProblemAt(problems("scenario.vms.a { memory-cap = lots }\n"), "scenario.vms.a.memory-cap",
        "expected a size", "got \"lots\"");
  }

  @Test
  void blockGivenAsScalar_isRejected_expectingAnObject() throws IOException {
    onlyProblemAt(problems("scenario { host = 4, vms.a {} }\n"), "scenario.host", "expected an object", "cores");
  }

  @Test
  void vmGivenAsScalar_isRejected_expectingAnObject() throws IOException {
    onlyProblemAt(problems("scenario.vms.a = dirt3\n"), "scenario.vms.a", "expected an object");
  }

  @Test
  void policyParamOfWrongType_isRejected() throws IOException {
    onlyProblemAt(problems("scenario { scheduler.gpu { policy = round-robin, slice = fast }, vms.a {} }\n"),
        "scenario.scheduler.gpu.slice", "expected a duration with a unit", "got \"fast\"");
  }

  // ------------------------------------------------------------------ ranges

  @Test
  void negativeDuration_isRejected_expectingAPositiveDuration() throws IOException {
    onlyProblemAt(problems("scenario { duration = -1s, vms.a {} }\n"), "scenario.duration",
        "expected a duration > 0", "-1s");
  }

  @Test
  void zeroDuration_isRejected_expectingAPositiveDuration() throws IOException {
    onlyProblemAt(problems("scenario { duration = 0s, vms.a {} }\n"), "scenario.duration",
        "expected a duration > 0", "0s");
  }

  @Test
  void weightZero_isRejected_withPathAndExpectation() throws IOException {
    onlyProblemAt(problems("scenario.vms.a { weight = 0 }\n"), "scenario.vms.a.weight",
        "expected an integer > 0", "got 0");
  }

  @Test
  void vcpusZero_isRejected() throws IOException {
    onlyProblemAt(problems("scenario.vms.a { vcpus = 0 }\n"), "scenario.vms.a.vcpus", "expected an integer > 0",
        "got 0");
  }

  @Test
  void timeScaleZero_isRejected() throws IOException {
    onlyProblemAt(problems("scenario { time-scale = 0, vms.a {} }\n"), "scenario.time-scale",
        "expected a number > 0", "got 0");
  }

  @Test
  void zeroPolicyParam_isRejected() throws IOException {
    onlyProblemAt(problems("scenario { scheduler.gpu { policy = round-robin, slice = 0ms }, vms.a {} }\n"),
        "scenario.scheduler.gpu.slice", "expected a duration > 0");
  }

  @Test
  void syncWaitUnknown_isRejected_listingPollAndHybrid() throws IOException {
    onlyProblemAt(problems("scenario.vms.a { sync-wait = sleep }\n"), "scenario.vms.a.sync-wait",
        "expected poll, hybrid or yield", "got 'sleep'");
  }

  @Test
  void presentWaitUnknown_isRejected_listingBlockAndPoll() throws IOException {
    onlyProblemAt(problems("scenario.vms.a { present-wait = spin }\n"), "scenario.vms.a.present-wait",
        "expected block or poll", "got 'spin'");
  }

  @Test
  void hostCoresZero_isRejected_withoutCrashing() throws IOException {
    problemAt(problems("scenario { host.cores = 0, vms.a {} }\n"), "scenario.host.cores",
        "expected an integer > 0", "got 0");
  }

  @Test
  void integerBeyondItsRange_isRejected_withoutCrashing() throws IOException {
    List<String> p = problems("scenario { host.cores = 99999999999, vms.a { weight = 99999999999 } }\n");
    problemAt(p, "scenario.host.cores", "expected an integer", "99999999999");
    problemAt(p, "scenario.vms.a.weight", "expected an integer", "99999999999");
  }

  // ------------------------------------------------------------------ names

  @Test
  void unknownGpuPolicy_isRejected_listingTheValidNames() throws IOException {
    onlyProblemAt(problems("scenario { scheduler.gpu.policy = lottery, vms.a {} }\n"),
        "scenario.scheduler.gpu.policy", "unknown policy 'lottery'", "fcfs", "round-robin");
  }

  @Test
  void unknownCpuPolicy_isRejected_listingTheValidNames() throws IOException {
    onlyProblemAt(problems("scenario { scheduler.cpu.policy = credit, vms.a {} }\n"),
        "scenario.scheduler.cpu.policy", "unknown policy 'credit'", "weighted-fair");
  }

  @Test
  void unknownMemoryPolicy_isRejected_listingTheValidNames() throws IOException {
    onlyProblemAt(problems("scenario { memory.policy = balloon, vms.a {} }\n"), "scenario.memory.policy",
        "unknown policy 'balloon'", "static");
  }

  @Test
  void unknownSchedulerKind_isRejected() throws IOException {
    onlyProblemAt(problems("scenario { scheduler.disk.policy = fcfs, vms.a {} }\n"), "scenario.scheduler.disk",
        "unknown key", "[cpu, gpu]");
  }

  @Test
  void paramOfAnotherPolicy_isRejected_listingTheSelectedPolicysParams() throws IOException {
    onlyProblemAt(problems("scenario { scheduler.gpu { policy = fcfs, slice = 16ms }, vms.a {} }\n"),
        "scenario.scheduler.gpu.slice", "not a parameter of policy 'fcfs'", "[max-inflight]");
  }

  @Test
  void paramOfNonDefaultPolicy_withoutPolicyNamed_isCheckedAgainstTheDefaultPolicy() throws IOException {
    onlyProblemAt(problems("scenario { scheduler.gpu.slice = 16ms, vms.a {} }\n"),
        "scenario.scheduler.gpu.slice", "not a parameter of policy 'fcfs'");
  }

  @Test
  void unknownWorkload_isRejected_pointingToList() throws IOException {
    onlyProblemAt(problems("scenario.vms.a { workload = quake3 }\n"), "scenario.vms.a.workload",
        "unknown workload 'quake3'", "list");
  }

  @Test
  void vmPinnedToMissingCore_isRejected_namingTheHostsCores() throws IOException {
    onlyProblemAt(problems("scenario { host.cores = 4, vms.a { cores = [7] } }\n"), "scenario.vms.a.cores",
        "core 7 does not exist", "0..3", "scenario.host.cores = 4");
  }

  @Test
  void vmPinnedToNegativeCore_isRejected() throws IOException {
    onlyProblemAt(problems("scenario.vms.a { cores = [-1] }\n"), "scenario.vms.a.cores", "core -1 does not exist");
  }

  // ------------------------------------------------------------------ the file itself

  @Test
  void missingFile_isRejected_namingTheFile() {
    Path missing = dir.resolve("nowhere.conf");
    ConfigProblems e = assertThrows(ConfigProblems.class, () -> ScenarioLoader.load(missing, Overrides.none()));
    assertEquals(1, e.problems().size(), e.problems().toString());
    String line = e.problems().get(0);
    assertTrue(line.startsWith(missing + ": "), line);
    assertTrue(line.contains("cannot read"), line);
  }

  @Test
  void folderInsteadOfFile_isRejected() {
    ConfigProblems e = assertThrows(ConfigProblems.class, () -> ScenarioLoader.load(dir, Overrides.none()));
    assertTrue(e.problems().get(0).startsWith(dir + ": "), e.problems().toString());
  }

  @Test
  void syntaxError_isRejected_asNotValidHocon_onOneLine() throws IOException {
    List<String> p = problems("scenario { vms { a { workload = dirt3 }\n");
    assertEquals(1, p.size(), p.toString());
    assertTrue(p.get(0).startsWith(file + ": not valid HOCON"), p.get(0));
  }

  @Test
  void unresolvedSubstitution_isRejected_withoutCrashing() throws IOException {
    List<String> p = problems("scenario { duration = ${nope}, vms.a {} }\n");
    assertEquals(1, p.size(), p.toString());
    assertTrue(p.get(0).startsWith(file + ": "), p.get(0));
    assertTrue(p.get(0).contains("nope"), p.get(0));
  }

  @Test
  void vmsEmpty_isRejected_expectingAtLeastOneVm() throws IOException {
    onlyProblemAt(problems("scenario { vms {} }\n"), "scenario.vms", "expected at least one VM");
  }

  @Test
  void vmsMissing_isRejected_expectingAtLeastOneVm() throws IOException {
    onlyProblemAt(problems("scenario { duration = 1s }\n"), "scenario.vms", "at least one VM");
  }

  // ------------------------------------------------------------------ --set overrides

  @Test
  void setOverride_withUnknownPolicy_isRejectedAtTheScenarioPath() throws IOException {
    onlyProblemAt(problems("scenario.vms.a {}\n", new Overrides(null, null, null,
        Map.of("scheduler.gpu.policy", "lottery"))), "scenario.scheduler.gpu.policy", "unknown policy 'lottery'");
  }

  @Test
  void setOverride_withUnknownKey_isRejectedAtTheScenarioPath() throws IOException {
    onlyProblemAt(problems("scenario.vms.a {}\n", new Overrides(null, null, null, Map.of("colour", "red"))),
        "scenario.colour", "unknown key");
  }

  @Test
  void setOverride_thatDoesNotParse_isReportedNamingTheSet() throws IOException {
    List<String> p = problems("scenario.vms.a {}\n", new Overrides(null, null, null, Map.of("gpu.sms", "{")));
    assertEquals(1, p.size(), p.toString());
    assertTrue(p.get(0).startsWith("--set gpu.sms={: cannot parse"), p.get(0));
  }

  // ------------------------------------------------------------------ many at once

  @Test
  void severalStructureProblems_areAllReportedAtOnce() throws IOException {
    List<String> p = problems("""
        colour = red
        scenario {
          colour = blue
          duration = 5
          scheduler.gpu.policy = lottery
          vms.a { weight = "heavy", colour = green }
        }
        """);
    problemAt(p, "colour", "unknown top-level key");
    problemAt(p, "scenario.colour", "unknown key");
    problemAt(p, "scenario.duration", "expected a duration with a unit");
    problemAt(p, "scenario.scheduler.gpu.policy", "unknown policy 'lottery'");
    problemAt(p, "scenario.vms.a.weight", "expected an integer");
    problemAt(p, "scenario.vms.a.colour", "unknown key");
    assertEquals(6, p.size(), p.toString());
  }

  @Test
  void severalValueProblems_areAllReportedAtOnce() throws IOException {
    List<String> p = problems("""
        scenario {
          duration = 0s
          host.cores = 2
          vms {
            a { weight = 0, workload = quake3 }
            b { cores = [5] }
          }
        }
        """);
    problemAt(p, "scenario.duration", "expected a duration > 0");
    problemAt(p, "scenario.vms.a.weight", "expected an integer > 0");
    problemAt(p, "scenario.vms.a.workload", "unknown workload");
    problemAt(p, "scenario.vms.b.cores", "core 5 does not exist", "0..1");
    assertEquals(4, p.size(), p.toString());
  }
}
