package org.gpuemu.emulator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code run --dashboard}'s bad input: a busy or impossible port is one line and exit 2, before anything runs. */
class DashboardOptionTest {
  @TempDir Path dir;

  @Test
  void portInUse_exits2_withOneLine_beforeTheRun() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      MainTest.Result r = MainTest.execute("run", MainTest.tinyScenario(dir).toString(), "--dashboard", "--port",
          String.valueOf(port), "--warm-up", "0s", "--out", dir.resolve("out").toString());
      assertEquals(2, r.status(), r.toString());
      assertEquals(1, r.errLines().size(), r.err());
      assertTrue(r.err().startsWith("--port " + port + " --bind 127.0.0.1: the dashboard cannot listen there"), r.err());
      r.assertNoStackTrace();
      assertFalse(Files.exists(dir.resolve("out")), "nothing ran: no run folder");
    }
  }

  @Test
  void portOutOfRange_exits2_withOneLine() throws Exception {
    MainTest.Result r = MainTest.execute("run", MainTest.tinyScenario(dir).toString(), "--dashboard", "--port",
        "70000", "--warm-up", "0s", "--out", dir.resolve("out").toString());
    assertEquals(2, r.status(), r.toString());
    assertEquals(1, r.errLines().size(), r.err());
    assertTrue(r.err().startsWith("--port 70000: expected a port number from 0 to 65535"), r.err());
  }

  @Test
  void portWithoutDashboard_exits2_withOneLine() throws Exception {
    MainTest.Result r = MainTest.execute("run", MainTest.tinyScenario(dir).toString(), "--port", "0",
        "--warm-up", "0s", "--out", dir.resolve("out").toString());
    assertEquals(2, r.status(), r.toString());
    assertEquals(List.of("--port, --bind and --dashboard-linger go with --dashboard"), r.errLines());
  }

  @Test
  void controlsFile_missingOrBad_exits2_oneLinePerProblem_withItsPath() throws Exception {
    MainTest.Result missing = MainTest.execute("run", MainTest.tinyScenario(dir).toString(), "--controls",
        dir.resolve("nope.json").toString(), "--warm-up", "0s", "--out", dir.resolve("out").toString());
    assertEquals(2, missing.status(), missing.toString());
    assertEquals(List.of("--controls " + dir.resolve("nope.json") + ": no such file"), missing.errLines());
    Path bad = Files.writeString(dir.resolve("bad.json"), """
        {"controls": [
          {"what": "weight", "target": "loop", "value": 2, "at_s": 0.5},
          {"what": "weight", "target": "nobody", "value": 0, "at_s": 3},
          {"what": "pause", "at_s": 0.2, "paused_wall_s": 1}
        ]}""");
    MainTest.Result r = MainTest.execute("run", MainTest.tinyScenario(dir).toString(), "--controls", bad.toString(),
        "--warm-up", "0s", "--out", dir.resolve("out").toString());
    assertEquals(2, r.status(), r.toString());
    assertEquals(List.of(bad + ": controls[1].target: unknown VM 'nobody'; expected one of [loop]",
        bad + ": controls[1].at_s: expected a model time in seconds within the run [0, 1.0), got 3",
        bad + ": controls[1].value: expected a whole weight > 0"), r.errLines());
    r.assertNoStackTrace();
    assertFalse(Files.exists(dir.resolve("out")), "nothing ran");
  }

  @Test
  void controlsFile_replaysTheRecordedControls_intoTheNewRunsSummary() throws Exception {
    Path controls = Files.writeString(dir.resolve("controls.json"), """
        {"controls": [ {"what": "fault", "kind": "vcpu-stall", "target": "loop", "heal_after_s": 0.1, "at_s": 0.25} ]}""");
    MainTest.Result r = MainTest.execute("run", MainTest.tinyScenario(dir).toString(), "--controls",
        controls.toString(), "--warm-up", "0s", "--scale", "4", "--no-report", "--out", dir.resolve("out").toString());
    assertEquals(0, r.status(), r.toString());
    String summary = Files.readString(dir.resolve("out/summary.json"));
    assertTrue(summary.contains("\"controls\" : [ {\n    \"what\" : \"fault\",\n    \"kind\" : \"vcpu-stall\""),
        summary);
    assertTrue(summary.contains("\"at_s\" : 0.25,"), summary);
  }
}
