package org.gpuemu.emulator.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.gpuemu.emulator.config.ScenarioLoader.Overrides;
import org.gpuemu.workloads.FrameReplay;
import org.gpuemu.workloads.GamePhase;
import org.gpuemu.workloads.GameWorkload;
import org.gpuemu.workloads.KernelType;
import org.gpuemu.workloads.PhaseSequence;
import org.gpuemu.workloads.Scene;
import org.gpuemu.workloads.Step;
import org.gpuemu.workloads.StepLoop;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Workloads a scenario defines in HOCON (scenario.workloads): what they become, and every bad input reported as one
 * line {@code FILE: key.path: what is expected}.
 */
class ScenarioWorkloadsTest {
  private static final long MS = 1_000_000L;
  private static final long US = 1_000L;
  private static final String NSYS_HEADER = "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,"
      + "StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name";

  @TempDir Path dir;
  private Path file;

  private Settings.Scenario load(String content) throws Exception {
    file = Files.writeString(dir.resolve("w.conf"), content);
    return ScenarioLoader.load(file, Overrides.none());
  }

  private List<String> problems(String content) throws IOException {
    file = Files.writeString(dir.resolve("bad.conf"), content);
    ConfigProblems e = assertThrows(ConfigProblems.class, () -> ScenarioLoader.load(file, Overrides.none()));
    for (String p : e.problems()) assertFalse(p.contains("\n"), "a problem must be one line: " + p);
    return e.problems();
  }

  /** The only problem of a file: it names the file and the key and says what is expected. */
  private void onlyProblemAt(List<String> problems, String key, String... expectation) {
    assertEquals(1, problems.size(), "expected only the problem at " + key + ", got " + problems);
    String line = problems.get(0);
    assertTrue(line.startsWith(file + ": " + key + ": "), "expected the problem at " + key + ": " + line);
    for (String e : expectation) assertTrue(line.contains(e), "problem '" + line + "' should say '" + e + "'");
  }

  private static String vmRunning(String workload) {
    return ", vms { a { workload = " + workload + " } }";
  }

  // ------------------------------------------------------------------ good workloads

  @Test
  void frameLoop_becomesAGameWorkload_pacedToItsFps_withPhasesInheritingItsKeys() throws Exception {
    Settings.Scenario s = load("scenario { workloads.g { kind = frame-loop, fps = 50.0, cpu = 4ms, gpu = 6ms, "
        + "phases = [{ name = a, duration = 2s }, { duration = 1s, gpu = 9ms, fps = 0.0, batches = 3 }], loop = true }"
        + vmRunning("g") + " }");
    GameWorkload g = assertInstanceOf(GameWorkload.class, s.workload("g"));
    List<GamePhase> phases = g.phases();
    // 1/50 s = 20 ms: 4 ms of CPU and 16 ms of pacing; 6 ms of GPU is 3 batches of 2 ms (the catalog's rule)
    assertEquals(new GamePhase("a", 2_000 * MS, new Scene(4 * MS, 6 * MS, 16 * MS), phases.get(0).variation(), 3),
        phases.get(0));
    // the second phase keeps the workload's 4 ms of CPU, is unpaced (fps 0) and sets its batches
    assertEquals(new Scene(4 * MS, 9 * MS, 0), phases.get(1).scene());
    assertEquals("phase2", phases.get(1).name());
    assertEquals(3, phases.get(1).batches());
    assertEquals(0.02, phases.get(0).variation().frameJitter(), 1e-12, "reference.conf's default");
  }

  @Test
  void frameLoop_withoutPhases_isOneEndlessPhase_withItsVariation() throws Exception {
    Settings.Scenario s = load("scenario { workloads.g { kind = frame-loop, variation { frame = 0.1, scene-low = 0.9,"
        + " scene-high = 1.2 } }" + vmRunning("g") + " }");
    GamePhase only = ((GameWorkload) s.workload("g")).phases().get(0);
    assertEquals(Long.MAX_VALUE, only.durationNanos());
    assertEquals(0.1, only.variation().frameJitter(), 1e-12);
    assertEquals(1.2, only.variation().sceneHigh(), 1e-12);
    assertEquals(20_000 * MS, only.variation().sceneMinNanos(), "reference.conf's default");
  }

  @Test
  void computeLoop_becomesAStepLoop_ofItsStepsInOrder_countsExpanded() throws Exception {
    Settings.Scenario s = load("scenario { workloads.c { kind = compute-loop, kernels { k { type = TC, blocks = 64,"
        + " duration = 200us } }, steps = [{ cpu = 50us }, { launch = k, count = 2 }, { copy-async = 10us },"
        + " { sync = k }, { copy = 30us }, { sleep = 1ms }] }" + vmRunning("c") + " }");
    StepLoop loop = assertInstanceOf(StepLoop.class, s.workload("c"));
    List<Step> it = loop.iteration();
    assertEquals(7, it.size());
    assertEquals(new Step.CpuBurst(50 * US), it.get(0));
    Step.LaunchKernel launch = assertInstanceOf(Step.LaunchKernel.class, it.get(1));
    assertEquals(KernelType.TC, launch.kernel().type());
    assertEquals(64, launch.kernel().threadBlocks());
    assertEquals(200 * US, launch.kernel().soloNanos());
    assertEquals(it.get(1), it.get(2));
    assertEquals(10 * US, assertInstanceOf(Step.LaunchKernel.class, it.get(3)).kernel().soloNanos());
    assertEquals(launch.kernel(), assertInstanceOf(Step.SyncCall.class, it.get(4)).kernel());
    assertEquals(30 * US, assertInstanceOf(Step.SyncCall.class, it.get(5)).kernel().soloNanos());
    assertEquals(new Step.Sleep(MS), it.get(6));
  }

  @Test
  void traces_areReadRelativeToTheScenario_andScaledByTheirSms() throws Exception {
    Files.createDirectories(dir.resolve("traces"));
    Files.writeString(dir.resolve("traces/k.csv"), NSYS_HEADER + "\n"
        + "1000,400,1,2,1,1,32,1,1,16,0.000,0.000,,,,,GPU (0),1,,7,sgemm\n");
    Files.writeString(dir.resolve("traces/f.csv"), "start_ms,cpu_ms,gpu_ms\n0,4,8\n20,4,8\n");
    Settings.Scenario s = load("scenario { gpu.sms = 40, workloads { k { kind = trace, file = \"traces/k.csv\","
        + " sms = 20, tensor-match = gemm }, f { kind = trace, format = frames, file = \"traces/f.csv\", sms = 20 } }"
        + ", vms { a { workload = k }, b { workload = f } } }");
    StepLoop k = assertInstanceOf(StepLoop.class, s.workload("k"));
    Step.SyncCall only = assertInstanceOf(Step.SyncCall.class, k.iteration().get(0));
    // recorded on 20 SMs, emulated on 40: 400 x 20 / 40 = 200 ns
    assertEquals(200, only.kernel().soloNanos());
    assertEquals(KernelType.TC, only.kernel().type());
    FrameReplay f = assertInstanceOf(FrameReplay.class, s.workload("f"));
    assertEquals(4 * MS, f.scenes().get(0).gpuNanos());
  }

  @Test
  void sequence_runsCatalogAndScenarioWorkloads() throws Exception {
    Settings.Scenario s = load("scenario { workloads { seq { kind = sequence, phases = [{ workload = g, duration = 1s },"
        + " { workload = cuda-loop, duration = 2s }] }, g { kind = frame-loop } }" + vmRunning("seq") + " }");
    PhaseSequence seq = assertInstanceOf(PhaseSequence.class, s.workload("seq"));
    assertEquals(s.workload("g"), seq.phases().get(0).workload());
    assertEquals("cuda-loop", seq.phases().get(1).workload().name());
  }

  @Test
  void catalogWorkloads_stillResolve_besideTheScenariosOwn() throws Exception {
    Settings.Scenario s = load("scenario { workloads.g { kind = frame-loop }, vms { a { workload = g }, "
        + "b { workload = dirt3 } } }");
    assertEquals("dirt3", s.workload("dirt3").name());
    assertEquals(1, s.workloads().size());
  }

  // ------------------------------------------------------------------ bad workloads

  @Test
  void nameOfACatalogWorkload_isAnError() throws IOException {
    onlyProblemAt(problems("scenario { workloads.dirt3 { kind = frame-loop }" + vmRunning("dirt3") + " }"),
        "scenario.workloads.dirt3", "catalog workload's name");
  }

  @Test
  void unknownKind_isAnError_listingTheKinds() throws IOException {
    onlyProblemAt(problems("scenario { workloads.g { kind = shooter }" + vmRunning("g") + " }"),
        "scenario.workloads.g.kind", "[compute-loop, frame-loop, sequence, trace]", "shooter");
  }

  @Test
  void unknownKey_isAnError_listingTheKindsKeys() throws IOException {
    onlyProblemAt(problems("scenario { workloads.g { kind = frame-loop, fsp = 30.0 }" + vmRunning("g") + " }"),
        "scenario.workloads.g.fsp", "unknown key", "fps");
  }

  @Test
  void durationWithoutUnit_isAnError() throws IOException {
    onlyProblemAt(problems("scenario { workloads.g { kind = frame-loop, cpu = 5 }" + vmRunning("g") + " }"),
        "scenario.workloads.g.cpu", "a duration with a unit");
  }

  @Test
  void badKeyOfTheWorkload_isReportedOnceAtItsPath_notAtEveryPhaseInheritingIt() throws IOException {
    onlyProblemAt(problems("scenario { workloads.g { kind = frame-loop, cpu = 6, phases = [{ duration = 1s }, "
        + "{ duration = 1s }] }" + vmRunning("g") + " }"), "scenario.workloads.g.cpu", "a duration with a unit");
  }

  @Test
  void phaseWithoutDuration_isAnError_withItsIndex() throws IOException {
    onlyProblemAt(problems("scenario { workloads.g { kind = frame-loop, phases = [{ duration = 1s }, { gpu = 9ms }] }"
        + vmRunning("g") + " }"), "scenario.workloads.g.phases[1].duration", "every listed phase needs one");
  }

  @Test
  void unknownKeyInAPhasesVariation_isAnError_withItsFullPath() throws IOException {
    onlyProblemAt(problems("scenario { workloads.g { kind = frame-loop, phases = [{ duration = 1s, variation { "
        + "jitter = 0.1 } }] }" + vmRunning("g") + " }"), "scenario.workloads.g.phases[0].variation.jitter",
        "unknown key", "frame");
  }

  @Test
  void sceneHighBelowLow_isAnError() throws IOException {
    onlyProblemAt(problems("scenario { workloads.g { kind = frame-loop, variation { scene-low = 1.2, scene-high = 0.8 "
        + "} }" + vmRunning("g") + " }"), "scenario.workloads.g.variation.scene-high", ">= scene-low");
  }

  @Test
  void launchOfAnUndeclaredKernel_isAnError_namingTheKernels() throws IOException {
    onlyProblemAt(problems("scenario { workloads.c { kind = compute-loop, kernels { k { duration = 1ms } }, "
        + "steps = [{ launch = q }, { copy = 1us }] }" + vmRunning("c") + " }"),
        "scenario.workloads.c.steps[0].launch", "[k]", "'q'");
  }

  @Test
  void kernelWithoutDuration_isAnError() throws IOException {
    onlyProblemAt(problems("scenario { workloads.c { kind = compute-loop, kernels { k { type = TC } }, "
        + "steps = [{ sync = k }] }" + vmRunning("c") + " }"), "scenario.workloads.c.kernels.k.duration",
        "a duration > 0");
  }

  @Test
  void kernelOfUnknownType_isAnError() throws IOException {
    onlyProblemAt(problems("scenario { workloads.c { kind = compute-loop, kernels { k { type = XY, duration = 1ms } },"
        + " steps = [{ sync = k }] }" + vmRunning("c") + " }"), "scenario.workloads.c.kernels.k.type",
        "RT, CD or TC");
  }

  @Test
  void stepWithTwoActions_isAnError() throws IOException {
    onlyProblemAt(problems("scenario { workloads.c { kind = compute-loop, steps = [{ cpu = 1ms, sleep = 1ms }] }"
        + vmRunning("c") + " }"), "scenario.workloads.c.steps[0]", "exactly one of", "[cpu, sleep]");
  }

  @Test
  void loopThatLaunchesButNeverWaits_isAnError() throws IOException {
    onlyProblemAt(problems("scenario { workloads.c { kind = compute-loop, kernels { k { duration = 1ms } }, "
        + "steps = [{ cpu = 1ms }, { launch = k }] }" + vmRunning("c") + " }"), "scenario.workloads.c.steps",
        "a sync or copy step");
  }

  @Test
  void missingTraceFile_isAnError_sayingWhereItWasLooked() throws IOException {
    onlyProblemAt(problems("scenario { workloads.t { kind = trace, file = \"none.csv\" }" + vmRunning("t") + " }"),
        "scenario.workloads.t.file", "cannot read", dir.toAbsolutePath().resolve("none.csv").toString(),
        "scenario's folder");
  }

  @Test
  void badTraceRows_areErrors_namingTheTraceFileAndLine() throws IOException {
    Files.writeString(dir.resolve("t.csv"), NSYS_HEADER + "\n1000,400,1,2,1,1,32,1,1,16,0.000,0.000,,,,,GPU (0),1,,7,k\n"
        + "2000,0,1,2,1,1,32,1,1,16,0.000,0.000,,,,,GPU (0),1,,7,k\n");
    onlyProblemAt(problems("scenario { workloads.t { kind = trace, file = t.csv }" + vmRunning("t") + " }"),
        "scenario.workloads.t.file", dir.toAbsolutePath().resolve("t.csv") + ":3: expected a Duration > 0 ns, got 0");
  }

  @Test
  void keyOfTheOtherFormat_isAnError() throws IOException {
    Files.writeString(dir.resolve("f.csv"), "start_ms,cpu_ms,gpu_ms\n0,4,8\n");
    onlyProblemAt(problems("scenario { workloads.t { kind = trace, format = frames, file = f.csv, min-gap = 5us }"
        + vmRunning("t") + " }"), "scenario.workloads.t.min-gap", "format = nsys only");
  }

  @Test
  void sequenceOfASequence_isAnError() throws IOException {
    onlyProblemAt(problems("scenario { workloads { a { kind = sequence, phases = [{ workload = dirt3, duration = 1s }] },"
        + " b { kind = sequence, phases = [{ workload = a, duration = 1s }] } }" + vmRunning("b") + " }"),
        "scenario.workloads.b.phases[0].workload", "is a sequence");
  }

  @Test
  void vmNamingABrokenWorkload_isNotReportedTwice() throws IOException {
    onlyProblemAt(problems("scenario { workloads.g { kind = frame-loop, gpu = 0ms }" + vmRunning("g") + " }"),
        "scenario.workloads.g.gpu", "a duration > 0");
  }

  @Test
  void unknownWorkloadOfAVm_pointsToScenarioWorkloads() throws IOException {
    onlyProblemAt(problems("scenario { vms { a { workload = mine } } }"), "scenario.vms.a.workload",
        "unknown workload 'mine'", "scenario.workloads");
  }

  @Test
  void workloadsNotAnObject_isAnError() throws IOException {
    onlyProblemAt(problems("scenario { workloads = [1]" + vmRunning("dirt3") + " }"), "scenario.workloads",
        "an object keyed by workload name");
  }
}
