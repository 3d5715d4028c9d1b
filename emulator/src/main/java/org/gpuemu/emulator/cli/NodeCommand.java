package org.gpuemu.emulator.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import org.gpuemu.emulator.cluster.ClusterNode;
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
    if (!portFree(host, port)) {
      err.println("--port " + port + ": " + host + ":" + port + " is in use or cannot be bound");
      return Main.BAD_INPUT;
    }
    ClusterNode node = ClusterNode.start(host, port, seed, 1, new ClusterNode.Downing(
        java.time.Duration.ofNanos(pause.get()), java.time.Duration.ofNanos(stable.get())),
        () -> Runtime.getRuntime().halt(137)); // node-crash: as kill -9 ends it
    spec.commandLine().getOut().println("node up at " + node.address() + ", joining " + seed);
    spec.commandLine().getOut().flush();
    node.awaitTermination();
    return Main.OK;
  }

  private static boolean portFree(String host, int port) {
    if (port == 0) return true;
    try (java.net.ServerSocket s = new java.net.ServerSocket()) {
      s.bind(new java.net.InetSocketAddress(host, port));
      return true;
    } catch (java.io.IOException e) {
      return false;
    }
  }
}
