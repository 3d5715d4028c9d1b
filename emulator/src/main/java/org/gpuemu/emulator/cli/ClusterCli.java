package org.gpuemu.emulator.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.time.Duration;
import org.gpuemu.emulator.cluster.ChildJvms;
import org.gpuemu.emulator.cluster.ClusterObserver;
import org.gpuemu.emulator.dashboard.DashboardOptions;
import org.gpuemu.emulator.cluster.ClusterNode;
import org.gpuemu.emulator.cluster.PolicySet;
import org.gpuemu.emulator.cluster.Tls;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.emulator.cluster.ClusterRun;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import picocli.CommandLine.Option;

/**
 * {@code run SCENARIO --cluster N}: the run on N nodes of this machine (this JVM and N - 1 more); {@code run SCENARIO
 * --cluster-port P --nodes N}: the run on this node and N - 1 nodes started elsewhere ({@code node --seed HOST:P}).
 */
final class ClusterCli {
  private ClusterCli() {}

  /** How long the coordinator waits for nodes started elsewhere, unless {@code --join-timeout} says. */
  static final Duration DEFAULT_JOIN_TIMEOUT = Duration.ofSeconds(120);

  /** A cluster run's nodes: {@code launch} more on this machine, or none (they join), and where the seed listens. */
  record Plan(int nodes, boolean launch, String host, int port, Tls tls, PolicySet policies, Path plugins,
      TlsOptions tlsOptions, Duration joinTimeout, ClusterNode.Downing downing) {}

  /** The options of {@code run} that make it a cluster run. */
  static final class Options {
    @Option(names = "--cluster", paramLabel = "N", description = "run on N nodes of this machine: this JVM and N - 1 "
        + "more on loopback (docs/guides/cluster.md)")
    Integer cluster;

    @Option(names = "--cluster-port", paramLabel = "P", description = "run on nodes started elsewhere: listen as the "
        + "seed on port P of --cluster-host and wait for --nodes N - 1 nodes (docs/guides/many-machines.md)")
    Integer clusterPort;

    @Option(names = "--nodes", paramLabel = "N", description = "with --cluster-port: the run's nodes, this one "
        + "included")
    Integer nodes;

    @Option(names = "--cluster-host", paramLabel = "ADDRESS", description = "with --cluster-port: the address the "
        + "other nodes reach this one at (default: 127.0.0.1; beyond loopback TLS is required)")
    String clusterHost;

    @Option(names = "--join-timeout", paramLabel = "WALL", description = "with --cluster-port: how long to wait for "
        + "the nodes to join (default: 120s)")
    String joinTimeout;

    @Option(names = "--heartbeat-pause", paramLabel = "DURATION", description = "cluster runs: heartbeats missed "
        + "this long make a node unreachable (default: 3s; give every node the same)")
    String heartbeatPause;

    @Option(names = "--stable-after", paramLabel = "DURATION", description = "cluster runs: an unreachable node is "
        + "downed once membership was stable this long (default: 7s; give every node the same)")
    String stableAfter;

    /**
     * The cluster run these options ask for, between nodes over {@code tlsOptions} with the policies of
     * {@code catalog} and {@code plugins}; null: none (a run of one JVM). Bad input for a wrong combination.
     */
    Plan plan(TlsOptions tlsOptions, Path plugins, PolicyCatalog catalog) throws ConfigProblems {
      if (cluster == null && clusterPort == null) {
        if (nodes != null || clusterHost != null || joinTimeout != null) {
          throw ConfigProblems.of("--nodes, --cluster-host and --join-timeout go with --cluster-port");
        }
        if (heartbeatPause != null || stableAfter != null) {
          throw ConfigProblems.of("--heartbeat-pause and --stable-after go with --cluster or --cluster-port");
        }
        if (tlsOptions.tls() != null) throw ConfigProblems.of("--tls-*: TLS is between the nodes of a cluster run");
        return null;
      }
      if (cluster != null && clusterPort != null) {
        throw ConfigProblems.of("--cluster N starts its nodes on this machine, --cluster-port P waits for nodes "
            + "started elsewhere: give one of them");
      }
      PolicySet policies = PolicySet.of(catalog, plugins);
      Tls tls = tlsOptions.tls();
      ClusterNode.Downing downing = new ClusterNode.Downing(
          positive("--heartbeat-pause", heartbeatPause, ClusterNode.Downing.DEFAULT.heartbeatPause()),
          positive("--stable-after", stableAfter, ClusterNode.Downing.DEFAULT.stableAfter()));
      if (cluster != null) {
        if (cluster < 1 || cluster > 64) throw ConfigProblems.of("--cluster " + cluster + ": expected 1 to 64 nodes");
        if (nodes != null || clusterHost != null || joinTimeout != null) {
          throw ConfigProblems.of("--nodes, --cluster-host and --join-timeout go with --cluster-port");
        }
        return new Plan(cluster, true, "127.0.0.1", 0, tls, policies, plugins, tlsOptions, Duration.ofSeconds(90),
            downing);
      }
      return elsewhere(tls, policies, plugins, tlsOptions, downing);
    }

    /** A run on nodes started elsewhere ({@code --cluster-port}): the port, the nodes and how long they may take. */
    private Plan elsewhere(Tls tls, PolicySet policies, Path plugins, TlsOptions tlsOptions,
        ClusterNode.Downing downing) throws ConfigProblems {
      if (nodes == null) throw ConfigProblems.of("--cluster-port " + clusterPort + ": give --nodes N, the run's nodes "
          + "with this one");
      if (nodes < 1 || nodes > 64) throw ConfigProblems.of("--nodes " + nodes + ": expected 1 to 64 nodes");
      if (clusterPort < 1 || clusterPort > 65_535) {
        throw ConfigProblems.of("--cluster-port " + clusterPort + ": expected a port in 1..65535 (the nodes are told "
            + "it)");
      }
      String host = clusterHost == null ? "127.0.0.1" : clusterHost;
      Tls.requireBeyondLoopback("--cluster-host", host, tls);
      if (!ClusterNode.portFree(host, clusterPort)) {
        throw ConfigProblems.of("--cluster-port " + clusterPort + ": " + host + ":" + clusterPort
            + " is in use or cannot be bound");
      }
      long wait = joinTimeout == null ? DEFAULT_JOIN_TIMEOUT.toNanos()
          : Main.durationNanos("--join-timeout", joinTimeout, "120s");
      if (wait <= 0) throw ConfigProblems.of("--join-timeout " + joinTimeout + ": expected a duration > 0");
      return new Plan(nodes, false, host, clusterPort, tls, policies, plugins, tlsOptions, Duration.ofNanos(wait),
          downing);
    }
  }

  private static Duration positive(String option, String value, Duration otherwise) throws ConfigProblems {
    if (value == null) return otherwise;
    long nanos = Main.durationNanos(option, value, otherwise.toSeconds() + "s");
    if (nanos <= 0) throw ConfigProblems.of(option + " " + value + ": expected a duration > 0");
    return Duration.ofNanos(nanos);
  }

  /**
   * Where a cluster run's results go: {@code dir} its files (and its report.html unless {@code noReport}), the
   * coordinator's dashboard, and the console.
   */
  record Output(Path dir, boolean noReport, DashboardOptions dashboard, PrintWriter out, PrintWriter err) {}

  /** Runs {@code scenario} (loaded from {@code source}) as {@code plan} says; returns the exit status. */
  @SuppressWarnings("unchecked")
  static int run(Settings.Scenario scenario, ClusterRun.Source source, Plan plan, Output output) throws Exception {
    PrintWriter out = output.out();
    Path dir = output.dir();
    DashboardOptions dashboard = output.dashboard();
    out.printf("running %s on %d nodes: %d VMs on %d hosts, policy %s, %.1f emulated s at time scale %s -> %s%n",
        scenario.name(), plan.nodes(), scenario.vms().size(), scenario.hosts().size(), scenario.gpuPolicy().name(),
        scenario.durationNanos() / 1e9, scenario.timeScale(), dir);
    String unplaced = RunCommand.placementNote(scenario);
    if (unplaced != null) output.err().println(unplaced);
    out.flush();
    ClusterRun.Plan nodes = clusterPlan(plan, output)
        .withObserver(dashboard.live() == null ? ClusterObserver.NONE : dashboard.live());
    ClusterRun.Outcome o;
    try {
      o = ClusterRun.run(source, scenario, plan.nodes(), dir, nodes);
    } catch (Exception | Error e) {
      dashboard.endCluster(false, null, List.of(), null, out);
      throw e;
    }
    dashboard.endCluster(o.faithful(), (String) ((Map<String, Object>) o.summary().get("fidelity")).get("reason"),
        o.broken(), o.summary(), out);
    printOutcome(scenario, o, out);
    if (!o.faithful()) {
      output.err().println(Main.unfaithfulWarning(String.valueOf(((Map<String, Object>) o.summary().get("fidelity"))
          .get("reason")), true));
    }
    out.println("wrote " + dir.resolve("summary.json") + " and " + dir.resolve("timeline.jsonl"));
    ReportCommand.afterRun(dir, output.noReport(), out, output.err());
    return o.broken().isEmpty() ? Main.OK : Main.BROKEN;
  }

  /** The nodes: launched here as child JVMs, or awaited (told how to start them) from elsewhere. */
  private static ClusterRun.Plan clusterPlan(Plan plan, Output output) {
    PrintWriter out = output.out();
    List<String> childArgs = new java.util.ArrayList<>(plan.tlsOptions().args());
    if (plan.plugins() != null) childArgs.addAll(List.of("--plugins", plan.plugins().toAbsolutePath().toString()));
    ClusterRun.Launcher launcher = plan.launch() ? new ChildJvms(output.dir(), out, childArgs)
        : new ClusterRun.Elsewhere();
    ClusterRun.Network network = new ClusterRun.Network(plan.host(), plan.port(), plan.tls(), plan.policies(),
        plan.joinTimeout(), line -> {
          out.println(line);
          out.flush();
        });
    if (!plan.launch()) {
      out.printf("waiting up to %d s for %d more nodes: on each, node --seed %s:%d%s%n", plan.joinTimeout().toSeconds(),
          plan.nodes() - 1, plan.host(), plan.port(), plan.tls() == null ? ""
          : " with its --tls-key-store and --tls-trust-store");
      out.flush();
    }
    return ClusterRun.Plan.of(launcher).withDowning(plan.downing()).withNetwork(network);
  }

  /** Each node's part, each node lost, the GPU's utilization, the requests and the invariants. */
  @SuppressWarnings("unchecked")
  private static void printOutcome(Settings.Scenario scenario, ClusterRun.Outcome o, PrintWriter out) {
    Map<String, Object> cluster = (Map<String, Object>) o.summary().get("cluster");
    for (Object n : (List<Object>) cluster.get("nodes")) {
      Map<String, Object> node = (Map<String, Object>) n;
      out.printf("node %s: hosts %s, %s VMs, %s events, lag p99 %s ms wall, %s%n", node.get("node"), node.get("hosts"),
          node.get("vms"), node.get("events_ordered"), node.get("lag_wall_ms_p99"),
          Boolean.TRUE.equals(node.get("faithful")) ? "faithful" : "NOT FAITHFUL: " + node.get("reason"));
    }
    for (ClusterRun.Loss l : o.losses()) {
      out.printf("node %s lost (unreachable after %s s, removed after %.1f s of the run, wall): hosts %s restarted on %s "
          + "at %s emulated s, %s requests in flight failed node-lost%n", l.node(),
          l.unreachableAfterMillis() < 0 ? "?" : String.format("%.1f", l.unreachableAfterMillis() / 1e3),
          l.removedAfterMillis() / 1e3, l.hosts().stream().map(h -> scenario.hosts().get(h).name()).toList(),
          l.restartedOn() == null ? "nothing (the run had ended)" : l.restartedOn(), l.restartAtNanos() / 1e9,
          lostRequests(o, l));
    }
    Map<String, Object> inv = (Map<String, Object>) o.summary().get("invariants");
    Map<String, Object> gpu = (Map<String, Object>) o.summary().get("gpu");
    out.printf("gpu utilization %.1f %%, requests %s submitted, %s completed, %s failed (%s node-lost), %s lost%n",
        100 * ((Number) gpu.get("utilization")).doubleValue(), inv.get("requests_submitted"),
        inv.get("requests_completed"), inv.get("requests_failed"), inv.get("requests_node_lost"),
        inv.get("requests_lost"));
    out.println(o.broken().isEmpty() ? "invariants: ok" : "invariants BROKEN: " + String.join("; ", o.broken()));
  }

  @SuppressWarnings("unchecked")
  private static Object lostRequests(ClusterRun.Outcome o, ClusterRun.Loss l) {
    for (Object e : (List<Object>) ((Map<String, Object>) o.summary().get("cluster")).get("node_losses")) {
      Map<String, Object> loss = (Map<String, Object>) e;
      if (loss.get("node").equals(l.node())) return loss.get("requests_failed_node_lost");
    }
    return "?";
  }

  /** The overrides the scenario was loaded with, for each node to load it the same way. */
  static ClusterRun.Source source(Path file, ScenarioLoader.Overrides overrides) {
    return new ClusterRun.Source(file, overrides);
  }
}
