package org.gpuemu.emulator.cluster;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;

/**
 * The coordinator of a cluster run ({@code run SCENARIO --cluster N}): starts its own node as the seed, has the other
 * N - 1 nodes started ({@link Launcher}: JVMs on loopback, or actor systems in this JVM for tests), waits for every
 * node's agent, provisions every VM as a sharded entity (its host's shard lands on a node by
 * {@link HostAllocation}), hands each node its hosts with a common time zero, collects every node's part and
 * merges them into one summary and timeline ({@link ClusterSummary}), then stops the nodes.
 */
public final class ClusterRun {
  private static final Duration ASK = Duration.ofSeconds(30);

  private ClusterRun() {}

  /** Starts the other nodes of a run and ends them. */
  public interface Launcher extends AutoCloseable {
    /** Starts {@code count} nodes that join the seed at {@code seed} ({@code host:port}). */
    void launch(int count, String seed) throws Exception;
  }

  /** The scenario as the command line gave it: each node loads it again with the same overrides. */
  public record Source(Path file, ScenarioLoader.Overrides overrides) {}

  /** The merged summary document, its timeline rows, where each host ran, and what broke. */
  public record Outcome(Map<String, Object> summary, List<String> timeline, Map<String, String> hostNodes,
      List<String> broken, boolean faithful) {}

  /** Runs {@code scenario} (loaded from {@code source}) on {@code nodes} nodes and writes the merged files to {@code out}. */
  public static Outcome run(Source source, Settings.Scenario scenario, int nodes, Path out, Launcher launcher)
      throws Exception {
    long wallStart = System.nanoTime();
    int port = freePort();
    String seed = "127.0.0.1:" + port;
    try (ClusterNode coordinator = ClusterNode.start("127.0.0.1", port, seed, nodes); launcher) {
      ActorSystem<Void> system = coordinator.system();
      launcher.launch(nodes - 1, seed);
      Map<String, ActorRef<NodeAgent.Command>> agents = awaitAgents(system, nodes, coordinator.address());
      Map<Integer, String> hostNode = provision(system, scenario);
      Map<String, List<Integer>> parts = new TreeMap<>();
      hostNode.forEach((h, node) -> parts.computeIfAbsent(node, n -> new ArrayList<>()).add(h));
      long zero = System.currentTimeMillis() + 2_000; // every node's time zero: time for the parts to reach them
      long wait = Math.round(scenario.durationNanos() / scenario.timeScale() / 1e6) + 20_000 + 120_000;
      List<CompletableFuture<NodeAgent.PartDone>> done = new ArrayList<>();
      for (Map.Entry<String, List<Integer>> p : parts.entrySet()) {
        ActorRef<NodeAgent.Command> agent = agents.get(p.getKey());
        if (agent == null) throw new IllegalStateException("no agent at " + p.getKey() + " among " + agents.keySet());
        ScenarioLoader.Overrides o = source.overrides();
        done.add(AskPattern.<NodeAgent.Command, NodeAgent.PartDone>ask(agent, r -> new NodeAgent.RunPart(
            source.file().toAbsolutePath().toString(), o.timeScale(), o.durationNanos(), o.seed(), o.sets(),
            o.faults().faults(), o.faults().mode(), o.faults().rate(), List.copyOf(p.getValue()), zero, r),
            Duration.ofMillis(wait), system.scheduler()).toCompletableFuture());
      }
      List<NodeAgent.PartDone> results = new ArrayList<>();
      for (CompletableFuture<NodeAgent.PartDone> d : done) results.add(d.get(wait, TimeUnit.MILLISECONDS));
      for (ActorRef<NodeAgent.Command> a : agents.values()) {
        if (!a.path().address().equals(system.address()) && a.path().address().host().isDefined()) {
          a.tell(new NodeAgent.Stop());
        }
      }
      ClusterSummary merged = ClusterSummary.merge(scenario, results, (System.nanoTime() - wallStart) / 1e9);
      Files.createDirectories(out);
      merged.write(out);
      Map<String, String> where = new LinkedHashMap<>();
      hostNode.forEach((h, n) -> where.put(scenario.hosts().get(h).name(), n));
      return new Outcome(merged.document(), merged.timeline(), where, merged.broken(), merged.faithful());
    }
  }

  /** The agents of {@code nodes} nodes, by node address (the coordinator's under its own address). */
  private static Map<String, ActorRef<NodeAgent.Command>> awaitAgents(ActorSystem<Void> system, int nodes,
      String selfAddress) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (true) {
      Receptionist.Listing listing = AskPattern.<Receptionist.Command, Receptionist.Listing>ask(system.receptionist(),
          r -> Receptionist.find(NodeAgent.KEY, r), ASK, system.scheduler()).toCompletableFuture()
          .get(ASK.toSeconds(), TimeUnit.SECONDS);
      Set<ActorRef<NodeAgent.Command>> found = listing.getServiceInstances(NodeAgent.KEY);
      if (found.size() >= nodes) {
        Map<String, ActorRef<NodeAgent.Command>> byNode = new TreeMap<>();
        for (ActorRef<NodeAgent.Command> a : found) {
          byNode.put(a.path().address().host().isDefined() ? a.path().address().toString() : selfAddress, a);
        }
        return byNode;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("only " + found.size() + " of " + nodes + " nodes joined within 90 s");
      }
      Thread.sleep(200);
    }
  }

  /**
   * Provisions every host (an entity with no VM, so that a host without VMs runs too) and every VM through Cluster
   * Sharding, and returns each host's node as its entities reported it. Every VM of a host must be on its host's
   * node (one shard), which this checks.
   */
  private static Map<Integer, String> provision(ActorSystem<Void> system, Settings.Scenario scenario)
      throws Exception {
    ClusterSharding sharding = ClusterSharding.get(system);
    List<CompletableFuture<VmEntity.Provisioned>> asks = new ArrayList<>();
    Duration patient = Duration.ofSeconds(60); // the allocation waits until every node's region registered
    for (int h = 0; h < scenario.hosts().size(); h++) {
      int host = h;
      asks.add(sharding.entityRefFor(VmEntity.KEY, VmEntity.id(h, "")).<VmEntity.Provisioned>ask(
          r -> new VmEntity.Provision(host, -1, r), patient).toCompletableFuture());
    }
    for (Settings.Vm vm : scenario.vms()) {
      asks.add(sharding.entityRefFor(VmEntity.KEY, VmEntity.id(vm.host(), vm.name())).<VmEntity.Provisioned>ask(
          r -> new VmEntity.Provision(vm.host(), vm.index(), r), patient).toCompletableFuture());
    }
    Map<Integer, String> hostNode = new TreeMap<>();
    for (CompletableFuture<VmEntity.Provisioned> a : asks) {
      VmEntity.Provisioned p = a.get(patient.toSeconds() + 5, TimeUnit.SECONDS);
      String before = hostNode.putIfAbsent(p.host(), p.node());
      if (before != null && !before.equals(p.node())) {
        throw new IllegalStateException("host " + p.host() + "'s entities are on two nodes: " + before + ", "
            + p.node());
      }
    }
    return hostNode;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
