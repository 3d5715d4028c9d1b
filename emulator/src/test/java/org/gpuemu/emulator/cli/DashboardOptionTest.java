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
}
