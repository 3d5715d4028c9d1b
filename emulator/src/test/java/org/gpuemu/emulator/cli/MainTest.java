package org.gpuemu.emulator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line's exit statuses and what it prints: 0 ok, 2 bad input, one line per problem, no stack trace. */
@Tag("slow")
class MainTest {
  @TempDir Path dir;

  record Result(int status, String out, String err) {
    List<String> errLines() {
      return err.lines().filter(l -> !l.isBlank()).toList();
    }

    void assertNoStackTrace() {
      for (String text : List.of(out, err)) {
        assertFalse(text.contains("\tat ") || text.contains("Exception") || text.contains("internal error"),
            "stack trace or internal error printed:\n" + text);
      }
    }
  }

  /** Runs the command line capturing both streams (BenchCommandTest uses it too). */
  static Result execute(String... args) {
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status;
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      status = Main.execute(args);
      System.out.flush();
      System.err.flush();
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
    return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private Path good() throws IOException {
    return tinyScenario(dir);
  }

  /** A valid one-VM scenario, {@code dir/tiny.conf}: a CUDA loop for 1 s (ReportCommandTest runs it too). */
  static Path tinyScenario(Path dir) throws IOException {
    return Files.writeString(dir.resolve("tiny.conf"), """
        scenario {
          duration = 1s
          vms { loop { workload = cuda-loop, vcpus = 1 } }
        }
        """);
  }

  @Test
  void validate_goodFile_exits0_andSaysOk() throws IOException {
    Path file = good();
    Result r = execute("validate", file.toString());
    assertEquals(0, r.status(), r.toString());
    assertTrue(r.out().contains(file + ": ok (1 VMs, gpu policy fcfs"), r.out());
    assertEquals("", r.err());
  }

  @Test
  void validate_withSetOverride_reportsTheOverriddenPolicy() throws IOException {
    Result r = execute("validate", good().toString(), "--set", "scheduler.gpu.policy=round-robin");
    assertEquals(0, r.status(), r.toString());
    assertTrue(r.out().contains("gpu policy round-robin"), r.out());
  }

  @Test
  void validate_missingFile_exits2_withOneLineNamingTheFile_andNoStackTrace() {
    String missing = dir.resolve("missing.conf").toString();
    Result r = execute("validate", missing);
    assertEquals(2, r.status(), r.toString());
    assertEquals(1, r.errLines().size(), r.err());
    assertTrue(r.errLines().get(0).startsWith(missing + ": "), r.err());
    r.assertNoStackTrace();
  }

  @Test
  void validate_fileWithThreeProblems_exits2_printingExactlyOneLinePerProblem() throws IOException {
    Path file = Files.writeString(dir.resolve("three.conf"), """
        scenario {
          colour = blue
          scheduler.gpu.policy = lottery
          vms.a { weight = "heavy" }
        }
        """);
    Result r = execute("validate", file.toString());
    assertEquals(2, r.status(), r.toString());
    List<String> lines = r.errLines();
    assertEquals(3, lines.size(), r.err());
    for (String l : lines) assertTrue(l.startsWith(file + ": scenario."), l);
    assertTrue(r.err().contains(file + ": scenario.vms.a.weight: expected an integer"), r.err());
    r.assertNoStackTrace();
  }

  @Test
  void validate_unknownKeyInAnUnmeasuredRow_orAPhase_exits2_withOneLineNamingTheFileAndKeyPath() throws IOException {
    Path row = Files.writeString(dir.resolve("row.conf"), "scenario { vms.a {}, expect.rows = [{ figure = \"Table 1\", "
        + "unmeasured = input, source = s, metric = fairness.mmr }] }\n");
    Path phase = Files.writeString(dir.resolve("phase.conf"), "scenario { workloads { g { kind = frame-loop, "
        + "phases = [{ duration = 1s, colour = red }] } }, vms.a.workload = g }\n");
    Map<Path, String> expected = Map.of(
        row, "scenario.expect.rows[0].metric: a row with unmeasured reads no run: it takes figure, unmeasured, source "
            + "and headline only",
        phase, "scenario.workloads.g.phases[0].colour: unknown key; expected one of [batches, cpu, duration, fps, gpu, "
            + "name, variation]");
    for (Map.Entry<Path, String> e : expected.entrySet()) {
      Result r = execute("validate", e.getKey().toString());
      assertEquals(2, r.status(), r.toString());
      assertEquals(List.of(e.getKey() + ": " + e.getValue()), r.errLines());
      r.assertNoStackTrace();
    }
  }

  @Test
  void validate_unresolvedSubstitution_exits2_notAnInternalError() throws IOException {
    Path file = Files.writeString(dir.resolve("subst.conf"), "scenario { duration = ${nope}, vms.a {} }\n");
    Result r = execute("validate", file.toString());
    assertEquals(2, r.status(), r.toString());
    assertEquals(1, r.errLines().size(), r.err());
    r.assertNoStackTrace();
  }

  @Test
  void validate_hostWithZeroCores_exits2_notAnInternalError() throws IOException {
    Path file = Files.writeString(dir.resolve("nocores.conf"), "scenario { host.cores = 0, vms.a {} }\n");
    Result r = execute("validate", file.toString());
    assertEquals(2, r.status(), r.toString());
    assertTrue(r.err().contains("scenario.host.cores: expected an integer > 0"), r.err());
    r.assertNoStackTrace();
  }

  @Test
  void run_durationNotADuration_exits2_namingTheOption() throws IOException {
    Result r = execute("run", good().toString(), "--duration", "abc", "--out", dir.resolve("out").toString());
    assertEquals(2, r.status(), r.toString());
    assertTrue(r.err().contains("--duration abc"), r.err());
    assertFalse(Files.exists(dir.resolve("out")), "bad input must not start a run");
    r.assertNoStackTrace();
  }

  @Test
  void run_durationWithoutUnit_exits2_likeInTheScenarioFile() throws IOException {
    Result r = execute("run", good().toString(), "--duration", "5", "--out", dir.resolve("out").toString());
    assertEquals(2, r.status(), r.toString());
    assertTrue(r.err().contains("--duration 5: expected a duration with a unit"), r.err());
    assertFalse(Files.exists(dir.resolve("out")), "bad input must not start a run");
    r.assertNoStackTrace();
  }

  @Test
  void validate_durationOption_overridesTheFile() throws IOException {
    Result r = execute("validate", good().toString(), "--duration", "2500ms");
    assertEquals(0, r.status(), r.toString());
    assertTrue(r.out().contains(", 2.5 s at scale"), r.out());
  }

  @Test
  void run_durationZero_exits2() throws IOException {
    Result r = execute("run", good().toString(), "--duration", "0s", "--out", dir.resolve("out").toString());
    assertEquals(2, r.status(), r.toString());
    assertTrue(r.err().contains("--duration 0s: expected a duration > 0"), r.err());
    r.assertNoStackTrace();
  }

  @Test
  void run_warmUpWithoutUnitOrNegative_exits2_namingTheOption_beforeRunningAnything() throws IOException {
    for (String[] bad : new String[][] {{"5", "expected a duration with a unit"}, {"-1s", "expected a duration >= 0"}}) {
      Result r = execute("run", good().toString(), "--warm-up", bad[0], "--out", dir.resolve("out").toString());
      assertEquals(2, r.status(), r.toString());
      assertTrue(r.err().contains("--warm-up " + bad[0] + ": " + bad[1]), r.err());
      assertFalse(Files.exists(dir.resolve("out")), "bad input must not start a run");
      r.assertNoStackTrace();
    }
    Result r = execute("compare", good().toString(), "--policies", "fcfs", "--warm-up", "x", "--out",
        dir.resolve("cmp").toString());
    assertEquals(2, r.status(), r.toString());
    assertTrue(r.err().contains("--warm-up x"), r.err());
    assertFalse(Files.exists(dir.resolve("cmp")), "bad input must not start a run");
  }

  @Test
  void run_warmUp_leavesNoFolderBehind() throws IOException {
    Path tmp = Paths.get(System.getProperty("java.io.tmpdir"));
    List<Path> before = warmUpFolders(tmp);
    Result r = execute("run", good().toString(), "--duration", "300ms", "--warm-up", "200ms", "--out",
        dir.resolve("warm").toString());
    assertEquals(0, r.status(), r.toString());
    // Compared as sets: another process's warm-up folder that vanishes meanwhile is not this run's. One that
    // another process creates during this run and still holds would fail it (the run does not name its folder):
    // each Surefire fork has a temporary folder of its own (emulator/pom.xml), so the other fork's tests never
    // count, and outside Maven the test assumes no other emulator warms up in this folder while it runs.
    List<Path> left = new java.util.ArrayList<>(warmUpFolders(tmp));
    left.removeAll(before);
    assertEquals(List.of(), left, "the warm-up's folder was not deleted");
  }

  private static List<Path> warmUpFolders(Path tmp) throws IOException {
    try (java.util.stream.Stream<Path> files = Files.list(tmp)) {
      return files.filter(f -> f.getFileName().toString().startsWith("gpuemu-warm-up-")).sorted().toList();
    }
  }

  @Test
  void run_scaleZero_exits2_namingTheOption() throws IOException {
    Result r = execute("run", good().toString(), "--scale", "0", "--out", dir.resolve("out").toString());
    assertEquals(2, r.status(), r.toString());
    assertTrue(r.err().contains("--scale"), r.err());
    assertFalse(Files.exists(dir.resolve("out")));
    r.assertNoStackTrace();
  }

  @Test
  void run_scaleNotANumber_exits2() throws IOException {
    Result r = execute("run", good().toString(), "--scale", "fast");
    assertEquals(2, r.status(), r.toString());
    assertTrue(r.err().contains("--scale"), r.err());
    r.assertNoStackTrace();
  }

  @Test
  void run_missingFile_exits2_withoutCreatingTheOutputFolder() {
    Result r = execute("run", dir.resolve("missing.conf").toString(), "--out", dir.resolve("out").toString());
    assertEquals(2, r.status(), r.toString());
    assertEquals(1, r.errLines().size(), r.err());
    assertFalse(Files.exists(dir.resolve("out")));
    r.assertNoStackTrace();
  }

  @Test
  void run_outIsAnExistingFile_exits2() throws IOException {
    Path notAFolder = Files.writeString(dir.resolve("occupied"), "x");
    Result r = execute("run", good().toString(), "--out", notAFolder.toString());
    assertEquals(2, r.status(), r.toString());
    assertTrue(r.err().contains(notAFolder + ": cannot create the output folder"), r.err());
    r.assertNoStackTrace();
  }

  @Test
  void unknownOption_exits2() throws IOException {
    Result r = execute("validate", good().toString(), "--colour", "red");
    assertEquals(2, r.status(), r.toString());
    assertTrue(r.err().contains("--colour"), r.err());
    r.assertNoStackTrace();
  }

  @Test
  void setWithoutEquals_exits2() throws IOException {
    Result r = execute("validate", good().toString(), "--set", "scheduler.gpu.policy");
    assertEquals(2, r.status(), r.toString());
    r.assertNoStackTrace();
  }

  @Test
  void unknownCommand_exits2() {
    Result r = execute("frobnicate");
    assertEquals(2, r.status(), r.toString());
    r.assertNoStackTrace();
  }

  @Test
  void noCommand_exits2_andPrintsUsage() {
    Result r = execute();
    assertEquals(2, r.status(), r.toString());
    assertTrue(r.out().contains("validate") && r.out().contains("run"), r.out());
  }

  @Test
  void validate_withoutFile_exits2() {
    Result r = execute("validate");
    assertEquals(2, r.status(), r.toString());
    r.assertNoStackTrace();
  }

  @Test
  void list_exits0_andNamesPoliciesAndWorkloads() {
    Result r = execute("list");
    assertEquals(0, r.status(), r.toString());
    for (String name : List.of("fcfs", "round-robin", "weighted-fair", "static", "dirt3", "cuda-loop")) {
      assertTrue(r.out().contains("  " + name + " - "), "list should name " + name + ":\n" + r.out());
    }
  }

  @Test
  void list_withConfFolder_namesItsScenarioFiles() throws IOException {
    good();
    Result r = execute("list", "--conf", dir.toString());
    assertEquals(0, r.status(), r.toString());
    assertTrue(r.out().contains(dir.resolve("tiny.conf").toString()), r.out());
  }

  @Test
  void run_shortCudaLoop_exits0_andWritesSummaryAndTimeline() throws IOException {
    Path out = dir.resolve("run-out");
    Result r = execute("run", good().toString(), "--duration", "300ms", "--out", out.toString());
    assertEquals(0, r.status(), r.toString());
    assertTrue(Files.isRegularFile(out.resolve("timeline.jsonl")), "no timeline.jsonl in " + out);
    Path summary = out.resolve("summary.json");
    assertTrue(Files.isRegularFile(summary), "no summary.json in " + out);
    JsonNode doc = new ObjectMapper().readTree(summary.toFile());
    for (String key : List.of("scenario", "policy", "time_scale", "emulated_seconds", "wall_seconds", "seed", "vms",
        "gpu", "fairness", "fidelity", "invariants")) {
      assertTrue(doc.has(key), "summary.json lacks '" + key + "': " + doc);
    }
    assertEquals("tiny", doc.get("scenario").asText());
    assertEquals("fcfs", doc.get("policy").asText());
    assertEquals(0.3, doc.get("emulated_seconds").asDouble(), 0.05);
  }

  @Test
  void compare_runsEachPolicy_printsOneTable_andWritesCompareJson() throws IOException {
    Path out = dir.resolve("cmp");
    Result r = execute("compare", good().toString(), "--policies", "fcfs,round-robin", "--duration", "300ms",
        "--out", out.toString());
    assertEquals(0, r.status(), r.toString());
    String header = r.out().lines().filter(l -> l.contains("fcfs") && l.contains("round-robin")).findFirst()
        .orElseThrow(() -> new AssertionError(r.out()));
    assertTrue(header.indexOf("fcfs") < header.indexOf("round-robin"), header);
    assertTrue(r.out().contains("loop fps"), r.out());
    JsonNode doc = new ObjectMapper().readTree(out.resolve("compare.json").toFile());
    assertTrue(doc.get("rows").get("fairness mmr").has("round-robin"), doc.toString());
    assertTrue(Files.exists(out.resolve("fcfs").resolve("summary.json")));
  }

  @Test
  void compare_unknownPolicy_exits2_namingIt_beforeRunningAnything() throws IOException {
    Path out = dir.resolve("cmp-bad");
    Result r = execute("compare", good().toString(), "--policies", "fcfs,lottery", "--out", out.toString());
    assertEquals(2, r.status(), r.toString());
    assertEquals(1, r.errLines().size(), r.err());
    assertTrue(r.errLines().get(0).startsWith("[lottery] ") && r.err().contains("unknown policy 'lottery'"), r.err());
    assertFalse(Files.exists(out), "nothing ran");
    r.assertNoStackTrace();
  }
}
