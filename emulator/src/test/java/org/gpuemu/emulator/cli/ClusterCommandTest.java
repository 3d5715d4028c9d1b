package org.gpuemu.emulator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input to the cluster commands is one line naming the argument, exit 2, before any node starts: {@code node}'s
 * seed, port and downing durations, {@code run --cluster}'s node count, and a node-crash fault outside a cluster.
 */
class ClusterCommandTest {
  private static final String THREE_HOSTS = Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios",
      "cluster", "three-hosts.conf").toString();

  @TempDir Path dir;

  @Test
  void node_badSeed_badPort_badDurations_eachOneLine_exit2() {
    assertOneLine(MainTest.execute("node", "--seed", "localhost"), "--seed localhost: expected HOST:PORT");
    assertOneLine(MainTest.execute("node", "--seed", "127.0.0.1:70000"), "--seed 127.0.0.1:70000: expected HOST:PORT");
    assertOneLine(MainTest.execute("node", "--seed", "127.0.0.1:2552", "--port", "65536"), "--port 65536: expected");
    assertOneLine(MainTest.execute("node", "--seed", "127.0.0.1:2552", "--stable-after", "7"),
        "--stable-after 7: expected a duration with a unit");
    assertOneLine(MainTest.execute("node", "--seed", "127.0.0.1:2552", "--heartbeat-pause", "0s"),
        "--heartbeat-pause 0s: expected a duration with a unit, > 0");
  }

  @Test
  void node_portInUse_oneLine_exit2() throws Exception {
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress("127.0.0.1", 0));
      int port = taken.getLocalPort();
      assertOneLine(MainTest.execute("node", "--seed", "127.0.0.1:2552", "--port", String.valueOf(port)),
          "--port " + port + ": 127.0.0.1:" + port + " is in use");
    }
  }

  @Test
  void run_clusterOfNoNodes_andNodeCrashWithoutACluster_oneLine_exit2_nothingRun() {
    Path out = dir.resolve("out");
    assertOneLine(MainTest.execute("run", THREE_HOSTS, "--cluster", "0", "--out", out.toString()),
        "--cluster 0: expected 1 to 64 nodes");
    assertOneLine(MainTest.execute("run", THREE_HOSTS, "--fault", "node-crash@1s:game3", "--out", out.toString()),
        "fault node-crash on game3: a fault of cluster runs");
    // compare loads the scenario once per policy: one line for each, prefixed with it
    MainTest.Result compare = MainTest.execute("compare", THREE_HOSTS, "--policies", "fcfs,round-robin", "--fault",
        "node-crash@1s:game3", "--out", out.toString());
    assertEquals(2, compare.status(), compare.toString());
    assertEquals(List.of("[fcfs] fault node-crash on game3: a fault of cluster runs; use run --cluster N (N >= 2)",
        "[round-robin] fault node-crash on game3: a fault of cluster runs; use run --cluster N (N >= 2)"),
        compare.errLines());
    assertFalse(Files.exists(out.resolve("summary.json")), "nothing ran");
  }

  private static void assertOneLine(MainTest.Result r, String start) {
    assertEquals(2, r.status(), r.toString());
    List<String> lines = r.errLines();
    assertEquals(1, lines.size(), r.err());
    assertTrue(lines.get(0).startsWith(start), lines.get(0));
    r.assertNoStackTrace();
  }
}
