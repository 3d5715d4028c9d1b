package org.gpuemu.emulator.cluster;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;

/**
 * Cross-node request latency against local ({@code java -cp emulator.jar org.gpuemu.emulator.cluster.ClusterProbe
 * [ROUNDS]}): this JVM and one more on loopback form a cluster as a run does; host 0's entity lives on this node,
 * host 1's on the other; one request at a time goes to each through Cluster Sharding and back (a {@code Ping} of
 * the VM entity, Jackson CBOR when it crosses), alternating in blocks, after as many warm-up rounds. Prints the
 * round trip's percentiles in microseconds.
 */
public final class ClusterProbe {
  private ClusterProbe() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    PrintWriter out = new PrintWriter(System.out, true);
    Path logs = Files.createTempDirectory("gpuemu-probe-");
    int port = ClusterRun.freePort();
    String seed = "127.0.0.1:" + port;
    try (ClusterNode self = ClusterNode.start("127.0.0.1", port, seed, 2, ClusterNode.Downing.DEFAULT, null);
         ChildJvms other = new ChildJvms(logs, out)) {
      other.launch(1, seed, ClusterNode.Downing.DEFAULT);
      java.util.Map<String, org.apache.pekko.actor.typed.ActorRef<NodeAgent.Command>> agents =
          ClusterRun.awaitAgents(self.system(), 2, self.address(), seed, ClusterRun.Network.loopback());
      ClusterRun.awaitRegions(self.system(), 2);
      ClusterSharding sharding = ClusterSharding.get(self.system());
      EntityRef<VmEntity.Command> local = sharding.entityRefFor(VmEntity.KEY, VmEntity.id(0, ""));
      EntityRef<VmEntity.Command> remote = sharding.entityRefFor(VmEntity.KEY, VmEntity.id(1, ""));
      for (EntityRef<VmEntity.Command> e : java.util.List.of(local, remote)) { // allocate both shards
        e.<VmEntity.Provisioned>ask(r -> new VmEntity.Provision(e == local ? 0 : 1, -1, r), Duration.ofSeconds(60))
            .toCompletableFuture().get(65, TimeUnit.SECONDS);
      }
      long[] l = new long[rounds];
      long[] r = new long[rounds];
      for (int pass = 0; pass < 2; pass++) { // the first pass warms up
        for (int i = 0; i < rounds; i += 100) {
          for (int j = i; j < Math.min(rounds, i + 100); j++) l[j] = roundTrip(local);
          for (int j = i; j < Math.min(rounds, i + 100); j++) r[j] = roundTrip(remote);
        }
      }
      out.println(line("local (same node)", l));
      out.println(line("cross-node (loopback, CBOR)", r));
      agents.forEach((node, agent) -> {
        if (!node.equals(self.address())) agent.tell(new NodeAgent.Stop());
      });
    }
  }

  private static long roundTrip(EntityRef<VmEntity.Command> e) throws Exception {
    long start = System.nanoTime();
    e.<VmEntity.Pong>ask(r -> new VmEntity.Ping(start, r), Duration.ofSeconds(5)).toCompletableFuture()
        .get(6, TimeUnit.SECONDS);
    return System.nanoTime() - start;
  }

  private static String line(String what, long[] nanos) {
    long[] s = nanos.clone();
    Arrays.sort(s);
    return String.format(Locale.ROOT, "%-28s %d round trips: p50 %.1f us, p99 %.1f us, max %.1f us", what, s.length,
        s[s.length / 2] / 1e3, s[(int) (s.length * 0.99)] / 1e3, s[s.length - 1] / 1e3);
  }
}
