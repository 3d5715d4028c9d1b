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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input to the cluster commands is one line naming the argument, exit 2, before any node starts: {@code node}'s
 * seed, port and downing durations, {@code run --cluster}'s node count, a key store that cannot be read (a node's
 * and a waiting coordinator's), a seed nobody answers, a run no node joins, and a node-crash fault outside a cluster.
 */
@Tag("slow")
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

  @Test
  void node_unreachableSeed_wrongStore_noTlsBeyondLoopback_eachOneLine_exit2() throws Exception {
    int nobody;
    try (ServerSocket s = new ServerSocket(0)) {
      nobody = s.getLocalPort(); // free again once closed: no seed listens there
    }
    assertOneLine(MainTest.execute("node", "--seed", "127.0.0.1:" + nobody, "--join-timeout", "3s"),
        "--seed 127.0.0.1:" + nobody + ": not a member of its cluster within 3s");
    Path conf = Files.writeString(dir.resolve("tls.conf"), "key-store = none.p12\nkey-store-password = x\n"
        + "trust-store = none.p12\ntrust-store-password = x\n");
    assertOneLine(MainTest.execute("node", "--seed", "127.0.0.1:2552", "--tls-config", conf.toString()),
        "TLS key store " + dir.resolve("none.p12") + ": no such file");
    assertOneLine(MainTest.execute("node", "--seed", "10.200.0.1:2552", "--host", "10.200.0.2"),
        "--host 10.200.0.2: beyond loopback the nodes talk over TLS only");
  }

  @Test
  void wrongKeyStore_forANodeAndForAWaitingCoordinator_oneLine_exit2_nothingRun() throws Exception {
    Path bogus = Files.writeString(dir.resolve("node.p12"), "not a key store\n");
    Path conf = Files.writeString(dir.resolve("tls.conf"), "key-store = node.p12\nkey-store-password = x\n"
        + "trust-store = node.p12\ntrust-store-password = x\n");
    String line = "TLS key store " + bogus + ": cannot be read";
    assertOneLine(MainTest.execute("node", "--seed", "127.0.0.1:2552", "--tls-config", conf.toString()), line);
    Path out = dir.resolve("out");
    assertOneLine(MainTest.execute("run", THREE_HOSTS, "--cluster-port", "25999", "--nodes", "2", "--tls-config",
        conf.toString(), "--out", out.toString()), line);
    assertFalse(Files.exists(out.resolve("summary.json")), "nothing ran");
  }

  @Test
  void run_clusterPort_badCombinations_andNoNodeJoining_oneLine_exit2() {
    Path out = dir.resolve("out");
    assertOneLine(MainTest.execute("run", THREE_HOSTS, "--cluster-port", "25999", "--out", out.toString()),
        "--cluster-port 25999: give --nodes N");
    assertOneLine(MainTest.execute("run", THREE_HOSTS, "--nodes", "2", "--out", out.toString()),
        "--nodes, --cluster-host and --join-timeout go with --cluster-port");
    assertOneLine(MainTest.execute("run", THREE_HOSTS, "--cluster", "2", "--cluster-port", "25999", "--out",
        out.toString()), "--cluster N starts its nodes on this machine");
    assertOneLine(MainTest.execute("run", THREE_HOSTS, "--cluster-port", "25999", "--nodes", "2", "--cluster-host",
        "10.200.0.1", "--out", out.toString()), "--cluster-host 10.200.0.1: beyond loopback the nodes talk over TLS");
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    // the coordinator's own node counts once its agent has registered, which a loaded machine may not see in 2 s
    MainTest.Result none = MainTest.execute("run", THREE_HOSTS, "--cluster-port", String.valueOf(port), "--nodes",
        "2", "--join-timeout", "2s", "--duration", "1s", "--out", out.toString());
    assertOneLine(none, "only ");
    assertTrue(none.errLines().get(0).matches("only [01] of 2 nodes joined within 2 s: start each other node with "
        + "node --seed 127\\.0\\.0\\.1:" + port + " .*"), none.err());
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
