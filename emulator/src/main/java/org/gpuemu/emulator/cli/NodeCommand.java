package org.gpuemu.emulator.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.gpuemu.emulator.cluster.ClusterNode;
import org.gpuemu.emulator.cluster.PolicySet;
import org.gpuemu.emulator.cluster.Tls;
import org.gpuemu.emulator.config.ConfigProblems;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code node --seed HOST:PORT [--port P] [--host H]}: one node of a cluster run, until the run ends it. */
@Command(name = "node", mixinStandardHelpOptions = true,
    description = "Start a node of a cluster run that joins the seed (docs/guides/cluster.md).")
final class NodeCommand implements Callable<Integer> {
  @Option(names = "--seed", required = true, paramLabel = "HOST:PORT", description = "the seed node to join")
  String seed;

  @Option(names = "--port", defaultValue = "0", description = "port to listen on (0: any free port)")
  int port;

  @Option(names = "--host", defaultValue = "127.0.0.1", description = "address to listen on (default: loopback)")
  String host;

  @Option(names = "--heartbeat-pause", defaultValue = "3s", paramLabel = "DURATION",
      description = "failure detector: heartbeats missed this long make a node unreachable (docs/guides/cluster.md)")
  String heartbeatPause;

  @Option(names = "--stable-after", defaultValue = "7s", paramLabel = "DURATION",
      description = "split-brain resolver: an unreachable node is downed once membership was stable this long")
  String stableAfter;

  @Option(names = "--plugins", paramLabel = "DIR", description = "load policy plugins from the jars in this folder; "
      + "the coordinator refuses a node whose policies differ from its own")
  java.nio.file.Path plugins;

  @Option(names = "--join-timeout", defaultValue = "60s", paramLabel = "WALL",
      description = "give up (exit 2) when not a member of the seed's cluster by then (default: ${DEFAULT-VALUE})")
  String joinTimeout;

  @CommandLine.Mixin TlsOptions tls;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    if (!seed.matches("[^:\\s]+:\\d{1,5}") || Integer.parseInt(seed.substring(seed.lastIndexOf(':') + 1)) > 65535) {
      err.println("--seed " + seed + ": expected HOST:PORT, e.g. 127.0.0.1:25520");
      return Main.BAD_INPUT;
    }
    if (port < 0 || port > 65535) {
      err.println("--port " + port + ": expected a port in 0..65535 (0: any free port)");
      return Main.BAD_INPUT;
    }
    java.util.Optional<Long> pause = org.gpuemu.emulator.config.FaultPlan.duration(heartbeatPause);
    java.util.Optional<Long> stable = org.gpuemu.emulator.config.FaultPlan.duration(stableAfter);
    if (pause.isEmpty() || pause.get() <= 0) {
      err.println("--heartbeat-pause " + heartbeatPause + ": expected a duration with a unit, > 0, e.g. 3s");
      return Main.BAD_INPUT;
    }
    if (stable.isEmpty() || stable.get() <= 0) {
      err.println("--stable-after " + stableAfter + ": expected a duration with a unit, > 0, e.g. 7s");
      return Main.BAD_INPUT;
    }
    java.util.Optional<Long> join = org.gpuemu.emulator.config.FaultPlan.duration(joinTimeout);
    if (join.isEmpty() || join.get() <= 0) {
      err.println("--join-timeout " + joinTimeout + ": expected a duration with a unit, > 0, e.g. 60s");
      return Main.BAD_INPUT;
    }
    ClusterNode.Options options;
    try {
      Tls t = tls.tls();
      Tls.requireBeyondLoopback("--host", host, t);
      options = new ClusterNode.Options(new ClusterNode.Downing(java.time.Duration.ofNanos(pause.get()),
          // quiet while it joins: Pekko's warning for each failed attempt would bury the one line saying what failed
          java.time.Duration.ofNanos(stable.get())), t, PolicySet.of(Plugins.catalog(plugins), plugins), true);
    } catch (ConfigProblems p) {
      p.problems().forEach(err::println);
      return Main.BAD_INPUT;
    }
    if (!ClusterNode.portFree(host, port)) {
      err.println("--port " + port + ": " + host + ":" + port + " is in use or cannot be bound");
      return Main.BAD_INPUT;
    }
    ClusterNode node = ClusterNode.start(host, port, seed, 1, options,
        () -> Runtime.getRuntime().halt(137)); // node-crash: as kill -9 ends it
    spec.commandLine().getOut().println("node up at " + node.address() + ", joining " + seed);
    spec.commandLine().getOut().flush();
    if (!node.awaitUp(java.time.Duration.ofNanos(join.get()))) {
      err.println("--seed " + seed + ": not a member of its cluster within " + joinTimeout + " (is the coordinator "
          + "listening there, reachable from " + host + ", and do both sides' trust stores hold the other's "
          + "certificate?)");
      err.flush();
      node.crash();
      return Main.BAD_INPUT;
    }
    node.joined();
    spec.commandLine().getOut().println("node joined " + seed);
    spec.commandLine().getOut().flush();
    node.awaitTermination();
    return Main.OK;
  }
}
