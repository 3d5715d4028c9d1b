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
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.FaultPlan;
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
    /** Starts {@code count} nodes that join the seed at {@code seed} ({@code host:port}), with the run's downing. */
    void launch(int count, String seed, ClusterNode.Downing downing) throws Exception;
  }

  /** No node started here: they are started by hand, elsewhere, and join the seed ({@code run --cluster-port P}). */
  public static final class Elsewhere implements Launcher {
    @Override public void launch(int count, String seed, ClusterNode.Downing downing) {}

    @Override public void close() {}
  }

  /**
   * Where the coordinator listens as the seed ({@code port} 0: a free one), over TLS or not, the policies every node
   * must have, how long it waits for the nodes to join, and where it tells how many have.
   */
  public record Network(String host, int port, Tls tls, PolicySet policies, Duration joinTimeout,
      java.util.function.Consumer<String> progress) {
    /** Loopback, a free port, plain TCP, the built-in policies, 90 s for the nodes to join. */
    public static Network loopback() {
      return new Network("127.0.0.1", 0, null, PolicySet.builtIn(), Duration.ofSeconds(90), line -> { });
    }
  }

  /** The scenario as the command line gave it: each node loads it again with the same overrides. */
  public record Source(Path file, ScenarioLoader.Overrides overrides) {}

  /**
   * The merged summary document, where each host ran (last), the node losses, what broke, and how the timeline was
   * streamed (its rows, the window's peak, rows out of order).
   */
  public record Outcome(Map<String, Object> summary, Map<String, String> hostNodes, List<Loss> losses,
      List<String> broken, boolean faithful, long timelineRows, int windowPeakRows, long lateRows) {}

  /**
   * A part lost with its node: its hosts, its last progress report (null: none came) and how many rows it reported;
   * the node unreachable (wall ms since time zero; -1 unseen) and removed; the part restarted at the run's model time
   * {@code restartAtNanos} on {@code restartedOn} (null: the run had ended by then).
   */
  public record Loss(String node, List<Integer> hosts, NodeAgent.Progress last, long rows,
      long unreachableAfterMillis, long removedAfterMillis, long restartAtNanos, String restartedOn) {}

  /**
   * How a cluster run is set up around its scenario: {@code launcher} starts the other nodes, {@code downing} finds
   * lost ones, the coordinator listens as {@code network} says, and {@code observer} watches the run live (the
   * coordinator's dashboard, whose controls go to the node of their VM).
   */
  public record Plan(Launcher launcher, ClusterNode.Downing downing, Network network, ClusterObserver observer) {
    /** The nodes {@code launcher} starts, the default downing, on loopback, unwatched. */
    public static Plan of(Launcher launcher) {
      return new Plan(launcher, ClusterNode.Downing.DEFAULT, Network.loopback(), ClusterObserver.NONE);
    }

    public Plan withDowning(ClusterNode.Downing downing) {
      return new Plan(launcher, downing, network, observer);
    }

    public Plan withNetwork(Network network) {
      return new Plan(launcher, downing, network, observer);
    }

    public Plan withObserver(ClusterObserver observer) {
      return new Plan(launcher, downing, network, observer);
    }
  }

  /**
   * Runs {@code scenario} (loaded from {@code source}) on {@code nodes} nodes set up as {@code plan} says and writes
   * the merged files to {@code out}. Bad input ({@link ConfigProblems}, the nodes that joined told to stop): fewer
   * than {@code nodes} nodes joined within the timeout, or a node's policies differ from the coordinator's.
   */
  public static Outcome run(Source source, Settings.Scenario scenario, int nodes, Path out, Plan plan)
      throws Exception {
    long wallStart = System.nanoTime();
    Network network = plan.network();
    int port = network.port() == 0 ? freePort() : network.port();
    String seed = (network.host().contains(":") ? "[" + network.host() + "]" : network.host()) + ":" + port;
    try (ClusterNode coordinator = ClusterNode.start(network.host(), port, seed, nodes,
        new ClusterNode.Options(plan.downing(), network.tls(), network.policies()), null);
        Launcher launcher = plan.launcher()) {
      ActorSystem<Void> system = coordinator.system();
      launcher.launch(nodes - 1, seed, plan.downing());
      Map<String, ActorRef<NodeAgent.Command>> agents = awaitAgents(system, nodes, coordinator.address(), seed,
          network);
      // a node just joined may still be starting on a loaded machine: it has as long to answer as it had to join
      checkPolicies(system, agents, network.policies(), network.joinTimeout().compareTo(ASK) > 0
          ? network.joinTimeout() : ASK);
      awaitRegions(system, nodes);
      Files.createDirectories(out);
      Map<Integer, String> hostNode = provision(system, scenario, allHosts(scenario));
      List<ClusterParts.Crash> crashes = crashes(scenario, hostNode, coordinator.address());
      ClusterParts parts = new ClusterParts(system, agents, source, scenario, out, plan.observer());
      parts.startAll(hostNode);
      parts.schedule(crashes);
      parts.awaitAll(coordinator.address());
      TimelineStream timeline = parts.timeline();
      ClusterSummary merged = ClusterSummary.merge(scenario, parts.results(), parts.losses(),
          (System.nanoTime() - wallStart) / 1e9, new ClusterSummary.Streamed(timeline.rows(), timeline.peak(),
          timeline.late()));
      merged.write(out);
      awaitNodesLeft(system, Duration.ofSeconds(10));
      Map<String, String> where = new LinkedHashMap<>();
      hostNode.forEach((h, n) -> where.put(scenario.hosts().get(h).name(), n));
      for (Loss l : parts.losses()) {
        for (int h : l.hosts()) where.put(scenario.hosts().get(h).name(), l.restartedOn());
      }
      return new Outcome(merged.document(), where, parts.losses(), merged.broken(), merged.faithful(),
          timeline.rows(), timeline.peak(), timeline.late());
    }
  }

  private static List<Integer> allHosts(Settings.Scenario scenario) {
    List<Integer> all = new ArrayList<>();
    for (int h = 0; h < scenario.hosts().size(); h++) all.add(h);
    return all;
  }

  /**
   * The scenario's node-crash faults as the node to crash (the one running the target VM's host) and when; one on
   * the coordinator's own node is bad input: the run cannot outlive it (keep-oldest keeps the oldest node, which is
   * the coordinator).
   */
  private static List<ClusterParts.Crash> crashes(Settings.Scenario scenario, Map<Integer, String> hostNode, String coordinator)
      throws ConfigProblems {
    List<ClusterParts.Crash> out = new ArrayList<>();
    for (FaultPlan.Fault f : scenario.faults().faults()) {
      if (f.kind() != FaultPlan.Kind.NODE_CRASH) continue;
      Settings.Vm vm = scenario.vms().stream().filter(v -> v.name().equals(f.target())).findFirst().orElseThrow();
      String node = hostNode.get(vm.host());
      if (node.equals(coordinator)) {
        throw ConfigProblems.of("fault node-crash on " + f.target() + ": its host "
            + scenario.hosts().get(vm.host()).name() + " runs on the coordinator's node, which a run cannot lose; "
            + "target a VM of a host on another node (host i runs on node i mod N)");
      }
      out.add(new ClusterParts.Crash(node, f.atNanos()));
    }
    return out;
  }

  /**
   * The agents of {@code nodes} nodes, by node address (the coordinator's under its own address); tells how many have
   * joined whenever that changes. Bad input when fewer have joined by the network's timeout (those told to stop).
   */
  static Map<String, ActorRef<NodeAgent.Command>> awaitAgents(ActorSystem<Void> system, int nodes,
      String selfAddress, String seed, Network network) throws Exception {
    long deadline = System.nanoTime() + network.joinTimeout().toNanos();
    int told = 0;
    while (true) {
      Receptionist.Listing listing = AskPattern.<Receptionist.Command, Receptionist.Listing>ask(system.receptionist(),
          r -> Receptionist.find(NodeAgent.KEY, r), ASK, system.scheduler()).toCompletableFuture()
          .get(ASK.toSeconds(), TimeUnit.SECONDS);
      // also the agents of nodes unreachable for the moment: on a loaded machine heartbeats come late and a node
      // flaps, and waiting for all to be reachable at once could miss every chance
      Set<ActorRef<NodeAgent.Command>> found = listing.getAllServiceInstances(NodeAgent.KEY);
      // every change is told, the last count too: a node that joins before the first look is not a silent start
      if (found.size() != told) {
        told = found.size();
        network.progress().accept("nodes: " + told + " of " + nodes + " joined (the coordinator is one), seed "
            + seed);
      }
      if (found.size() >= nodes) {
        Map<String, ActorRef<NodeAgent.Command>> byNode = new TreeMap<>();
        for (ActorRef<NodeAgent.Command> a : found) {
          byNode.put(a.path().address().host().isDefined() ? a.path().address().toString() : selfAddress, a);
        }
        return byNode;
      }
      if (System.nanoTime() > deadline) {
        stopOthers(system, found);
        throw ConfigProblems.of("only " + found.size() + " of " + nodes + " nodes joined within "
            + network.joinTimeout().toSeconds() + " s: start each other node with node --seed " + seed
            + " (and the same TLS trust), or give fewer --nodes");
      }
      Thread.sleep(200);
    }
  }

  /**
   * Bad input when a node's policies (names, plugin jars and their digests) differ from the coordinator's: checked
   * before anything is placed, the nodes told to stop.
   */
  private static void checkPolicies(ActorSystem<Void> system, Map<String, ActorRef<NodeAgent.Command>> agents,
      PolicySet own, Duration patience) throws Exception {
    for (Map.Entry<String, ActorRef<NodeAgent.Command>> a : agents.entrySet()) {
      NodeAgent.Described d = AskPattern.<NodeAgent.Command, NodeAgent.Described>ask(a.getValue(),
          NodeAgent.Describe::new, patience, system.scheduler()).toCompletableFuture().get(patience.toSeconds() + 5,
          TimeUnit.SECONDS);
      String mismatch = own.mismatch(d.node(), d.policies());
      if (mismatch != null) {
        stopOthers(system, agents.values());
        throw ConfigProblems.of(mismatch);
      }
    }
  }

  /**
   * Waits until the shard coordinator knows every node's shard region, so that no host is allocated (and refused)
   * before all nodes can take one.
   */
  static void awaitRegions(ActorSystem<Void> system, int nodes) throws Exception {
    org.apache.pekko.actor.ActorRef region = org.apache.pekko.cluster.sharding.ClusterSharding
        .get(org.apache.pekko.actor.typed.javadsl.Adapter.toClassic(system)).shardRegion(VmEntity.KEY.name());
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      int known = 0;
      try { // a region that does not know its coordinator yet does not answer
        Object answer = org.apache.pekko.pattern.Patterns.ask(region,
            org.apache.pekko.cluster.sharding.ShardRegion.getCurrentRegionsInstance(), Duration.ofSeconds(2))
            .toCompletableFuture().get(3, TimeUnit.SECONDS);
        known = ((org.apache.pekko.cluster.sharding.ShardRegion.CurrentRegions) answer).getRegions().size();
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        known = -1;
      }
      if (known >= nodes) return;
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("only " + Math.max(known, 0) + " of " + nodes
            + " shard regions registered within 60 s");
      }
      Thread.sleep(100);
    }
  }

  /**
   * Provisions every host (an entity with no VM, so that a host without VMs runs too) and every VM through Cluster
   * Sharding, and returns each host's node as its entities reported it. Every VM of a host must be on its host's
   * node (one shard), which this checks.
   */
  private static Map<Integer, String> provision(ActorSystem<Void> system, Settings.Scenario scenario,
      List<Integer> hosts) throws Exception {
    return provision(system, scenario, hosts, Duration.ofSeconds(60)); // until every node's region registered
  }

  private static Map<Integer, String> provision(ActorSystem<Void> system, Settings.Scenario scenario,
      List<Integer> hosts, Duration patient) throws Exception {
    ClusterSharding sharding = ClusterSharding.get(system);
    List<CompletableFuture<VmEntity.Provisioned>> asks = new ArrayList<>();
    for (int host : hosts) {
      asks.add(sharding.entityRefFor(VmEntity.KEY, VmEntity.id(host, "")).<VmEntity.Provisioned>ask(
          r -> new VmEntity.Provision(host, -1, r), patient).toCompletableFuture());
    }
    for (Settings.Vm vm : scenario.vms()) {
      if (!hosts.contains(vm.host())) continue;
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

  /**
   * Provisions a lost node's hosts again, asking until they answer: the first messages may still go to the lost
   * node's region and be dropped, until this node's region has seen it terminated and asks the shard coordinator,
   * which allocates the shards on a survivor once the removal margin has passed.
   */
  static Map<Integer, String> provisionAgain(ActorSystem<Void> system, Settings.Scenario scenario,
      List<Integer> hosts) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (true) {
      try {
        return provision(system, scenario, hosts, Duration.ofSeconds(5));
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        if (System.nanoTime() > deadline) throw e;
      }
    }
  }

  /** Tells every node but this one to stop and waits until they have left. */
  private static void stopOthers(ActorSystem<Void> system, java.util.Collection<ActorRef<NodeAgent.Command>> agents)
      throws InterruptedException {
    for (ActorRef<NodeAgent.Command> a : agents) {
      if (a.path().address().host().isDefined()) a.tell(new NodeAgent.Stop());
    }
    awaitNodesLeft(system, Duration.ofSeconds(10));
  }

  /**
   * Waits (at most {@code patience}) until every node told to stop has left: the coordinator is the cluster's leader,
   * and a node whose leaving it does not see through waits out Pekko's cluster-exiting phase (10 s) before it ends.
   * An unreachable node (crashed, not yet removed) is not waited for.
   */
  private static void awaitNodesLeft(ActorSystem<Void> system, Duration patience) throws InterruptedException {
    org.apache.pekko.cluster.typed.Cluster cluster = org.apache.pekko.cluster.typed.Cluster.get(system);
    long deadline = System.nanoTime() + patience.toNanos();
    while (System.nanoTime() < deadline) {
      org.apache.pekko.cluster.ClusterEvent.CurrentClusterState state = cluster.state();
      boolean left = true;
      for (org.apache.pekko.cluster.Member m : state.getMembers()) {
        if (!m.equals(cluster.selfMember()) && !state.getUnreachable().contains(m)) left = false;
      }
      if (left) return;
      Thread.sleep(50);
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
