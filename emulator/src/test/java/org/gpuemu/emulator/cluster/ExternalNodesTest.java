package org.gpuemu.emulator.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A coordinator that starts no node ({@link ClusterRun.Elsewhere}) and waits on a port it was given: a node started
 * on its own over TLS joins and the run goes on both; a node whose policies differ is refused by name before
 * anything is placed; no node joining is bad input at the timeout; a wrong store is one line before any node starts.
 */
@Tag("slow")
class ExternalNodesTest {
  private static final Path FILE = Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios", "cluster",
      "three-hosts.conf");
  private static final ScenarioLoader.Overrides FAST = new ScenarioLoader.Overrides(1000.0, 1_000_000_000L, null,
      Map.of());

  @TempDir Path dir;
  /** Made once for the class (four keytool JVMs): the tests only read them. */
  @TempDir static Path storesDir;
  private static TestStores stores;

  @BeforeAll
  static void makeStores() throws Exception {
    stores = TestStores.make(storesDir);
  }

  private CompletableFuture<ClusterRun.Outcome> coordinator(Settings.Scenario s, int nodes, ClusterRun.Network net,
      Path out) {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return ClusterRun.run(new ClusterRun.Source(FILE, FAST), s, nodes, out,
            ClusterRun.Plan.of(new ClusterRun.Elsewhere()).withNetwork(net));
      } catch (Exception e) {
        throw new java.util.concurrent.CompletionException(e);
      }
    });
  }

  @Test
  @SuppressWarnings("unchecked")
  void nodeStartedOnItsOwn_overTls_joinsAndRuns() throws Exception {
    Settings.Scenario s = ScenarioLoader.load(FILE, FAST);
    int port = ClusterRun.freePort();
    ConcurrentLinkedQueue<String> told = new ConcurrentLinkedQueue<>();
    ClusterRun.Network net = new ClusterRun.Network("127.0.0.1", port, stores.tls().checked(), PolicySet.builtIn(),
        Duration.ofSeconds(120), told::add);
    CompletableFuture<ClusterRun.Outcome> run = coordinator(s, 2, net, dir.resolve("out"));
    ClusterNode node = ClusterNode.start("127.0.0.1", 0, "127.0.0.1:" + port, 1,
        new ClusterNode.Options(ClusterNode.Downing.DEFAULT, stores.tls(), PolicySet.builtIn()), null);
    try {
      assertTrue(node.awaitUp(Duration.ofSeconds(120)), "the node joined over TLS");
      ClusterRun.Outcome o = run.get(300, TimeUnit.SECONDS);
      assertTrue(o.broken().isEmpty(), o.broken().toString());
      assertEquals(2, new java.util.HashSet<>(o.hostNodes().values()).size(), "hosts on both nodes: " + o.hostNodes());
      assertTrue(o.hostNodes().containsValue(node.address()), o.hostNodes() + " has " + node.address());
      // the last count is always told; "1 of 2" only when the coordinator looked before the node had joined
      assertTrue(told.contains("nodes: 2 of 2 joined (the coordinator is one), seed 127.0.0.1:" + port), told.toString());
      List<String> rows = Files.readAllLines(dir.resolve("out/timeline.jsonl"));
      assertEquals(o.timelineRows(), rows.size());
      assertEquals(0, o.lateRows(), "every row in order");
      Map<String, Object> streamed = (Map<String, Object>) ((Map<String, Object>) o.summary().get("cluster"))
          .get("timeline");
      assertEquals(rows.size(), ((Number) streamed.get("rows")).intValue());
    } finally {
      node.close();
    }
  }

  @Test
  void nodeWithOtherPolicies_isRefusedByName_beforeAnythingIsPlaced() throws Exception {
    Settings.Scenario s = ScenarioLoader.load(FILE, FAST);
    int port = ClusterRun.freePort();
    ClusterRun.Network net = new ClusterRun.Network("127.0.0.1", port, null, PolicySet.builtIn(),
        Duration.ofSeconds(120), line -> { });
    CompletableFuture<ClusterRun.Outcome> run = coordinator(s, 2, net, dir.resolve("out"));
    TreeMap<String, String> theirs = new TreeMap<>(PolicySet.builtIn().described());
    theirs.put("my-fair", "my-fair.jar sha256:" + "ab".repeat(32)); // a plugin only this node has
    PolicySet other = new PolicySet(PolicySet.builtIn().catalog(), theirs);
    ClusterNode node = ClusterNode.start("127.0.0.1", 0, "127.0.0.1:" + port, 1,
        new ClusterNode.Options(ClusterNode.Downing.DEFAULT, null, other), null);
    try {
      Throwable t = assertThrows(java.util.concurrent.ExecutionException.class, () -> run.get(300, TimeUnit.SECONDS))
          .getCause();
      assertTrue(t instanceof ConfigProblems, String.valueOf(t));
      List<String> lines = ((ConfigProblems) t).problems();
      assertEquals(List.of("node " + node.address() + ": has policy 'my-fair' (my-fair.jar sha256:" + "ab".repeat(32)
          + ") that the coordinator has not; start the coordinator with the same --plugins as its nodes"), lines);
      assertTrue(Files.notExists(dir.resolve("out/summary.json")), "nothing ran");
      // the coordinator told the node to stop: it leaves and ends
      node.system().getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
    } finally {
      node.crash();
    }
  }

  @Test
  void noNodeJoins_isBadInputAtTheTimeout() throws Exception {
    Settings.Scenario s = ScenarioLoader.load(FILE, FAST);
    ClusterRun.Network net = new ClusterRun.Network("127.0.0.1", ClusterRun.freePort(), null, PolicySet.builtIn(),
        Duration.ofSeconds(2), line -> { });
    Throwable t = assertThrows(java.util.concurrent.ExecutionException.class,
        () -> coordinator(s, 3, net, dir.resolve("out")).get(120, TimeUnit.SECONDS)).getCause();
    assertTrue(t instanceof ConfigProblems, String.valueOf(t));
    // the coordinator's own node counts once its agent has registered, which a loaded machine may not see in 2 s
    assertTrue(t.getMessage().matches("only [01] of 3 nodes joined within 2 s: start each other node with node "
        + "--seed 127\\.0\\.0\\.1:\\d+ .*"), t.getMessage());
  }

  @Test
  void wrongStores_andNoTlsBeyondLoopback_areOneLineEach() throws Exception {
    ConfigProblems wrong = assertThrows(ConfigProblems.class,
        () -> new Tls(stores.key(), "not-the-password", stores.trust(), stores.password()).checked());
    assertEquals(1, wrong.problems().size());
    assertTrue(wrong.getMessage().startsWith("TLS key store " + stores.key() + ": cannot be read"), wrong.getMessage());
    ConfigProblems missing = assertThrows(ConfigProblems.class,
        () -> new Tls(dir.resolve("none.p12"), "x", stores.trust(), stores.password()).checked());
    assertEquals("TLS key store " + dir.resolve("none.p12") + ": no such file", missing.getMessage());
    ConfigProblems noKey = assertThrows(ConfigProblems.class,
        () -> new Tls(stores.trust(), stores.password(), stores.trust(), stores.password()).checked());
    assertEquals("TLS key store " + stores.trust() + ": holds no private key", noKey.getMessage());
    ConfigProblems plain = assertThrows(ConfigProblems.class,
        () -> Tls.requireBeyondLoopback("--host", "10.200.0.2", null));
    assertTrue(plain.getMessage().startsWith("--host 10.200.0.2: beyond loopback the nodes talk over TLS only"),
        plain.getMessage());
    Tls.requireBeyondLoopback("--host", "127.0.0.1", null); // loopback may stay plain
    Tls.requireBeyondLoopback("--host", "10.200.0.2", stores.tls());
    Path conf = Files.writeString(storesDir.resolve("tls.conf"), "key-store = node.p12\nkey-store-password = \""
        + stores.password() + "\"\ntrust-store = trust.p12\ntrust-store-password = ${?NO_SUCH_VARIABLE_HERE}\n");
    ConfigProblems unset = assertThrows(ConfigProblems.class, () -> Tls.fromConfig(conf));
    assertTrue(unset.getMessage().startsWith("--tls-config " + conf + ": trust-store-password: expected a string"),
        unset.getMessage());
  }
}
