package org.gpuemu.emulator.cluster;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.typed.Cluster;

/**
 * One node of a cluster run: an actor system named {@code gpuemu} on 127.0.0.1 (or the given host) that joins the
 * seed, starts the VM entities' shard region and the node's agent. Its configuration ({@link #config}) is the
 * cluster's: Artery TCP, the split-brain resolver, Jackson CBOR for every message between nodes, Java serialisation
 * off, sharding without rebalancing or passivation.
 */
public final class ClusterNode implements AutoCloseable {
  /** The actor system's name: every node's is the same, or they form no cluster. */
  public static final String SYSTEM = "gpuemu";

  /**
   * How a lost node is found and taken out: the failure detector suspects a node whose heartbeats stopped for
   * {@code heartbeatPause} (phi accrual, Pekko's {@code acceptable-heartbeat-pause}); the split-brain resolver downs
   * it once the membership has been stable for {@code stableAfter}, and its shards may then be allocated elsewhere.
   * Every node of a run has the same.
   */
  public record Downing(Duration heartbeatPause, Duration stableAfter) {
    /** The run's: 3 s (Pekko's default) and 7 s (Pekko's 20 s is for clusters of hundreds of nodes). */
    public static final Downing DEFAULT = new Downing(Duration.ofSeconds(3), Duration.ofSeconds(7));
  }

  /**
   * What a node is started with besides its address: how lost nodes are found, Artery over TLS (null: plain TCP, on
   * loopback only), and the policies it runs (its {@code --plugins}).
   */
  public record Options(Downing downing, Tls tls, PolicySet policies, boolean quietJoin) {
    /** {@code quietJoin}: Pekko logs errors only until {@link #joined} (the node command's join). */
    public Options(Downing downing, Tls tls, PolicySet policies) {
      this(downing, tls, policies, false);
    }

    /** The run's downing, plain TCP, the built-in policies. */
    public static Options loopback(Downing downing) {
      return new Options(downing, null, PolicySet.builtIn());
    }
  }

  private final ActorSystem<Void> system;
  private final NodeAgent.Local local;

  private ClusterNode(ActorSystem<Void> system, NodeAgent.Local local) {
    this.system = system;
    this.local = local;
  }

  /**
   * The node's Pekko configuration: listening on {@code host:port} (0: any free port), joining the seed at
   * {@code seed} ({@code host:port}). The failure detector and split-brain resolver settings are documented in the
   * docs/guides/cluster.md: keep-oldest (the oldest node is the run's coordinator; a run cannot outlive it), a node
   * unreachable for {@code acceptable-heartbeat-pause} is suspected and downed after {@code stable-after}
   * ({@link Downing}).
   */
  public static Config config(String host, int port, String seed, Downing downing, Tls tls) {
    Config transport = tls == null ? ConfigFactory.empty() : tls.config();
    return transport.withFallback(ConfigFactory.parseString(String.join("\n",
        "pekko.loglevel = WARNING",
        "pekko.actor.provider = cluster",
        "pekko.actor.allow-java-serialization = off",
        "pekko.actor.serialization-bindings { \"" + CborSerializable.class.getName() + "\" = jackson-cbor }",
        "pekko.remote.artery.canonical.hostname = \"" + host + "\"",
        "pekko.remote.artery.canonical.port = " + port,
        // a node's summary at the end is one message; its rows come with the progress reports
        "pekko.remote.artery.advanced.maximum-frame-size = 16MiB",
        "pekko.remote.artery.advanced.maximum-large-frame-size = 16MiB",
        "pekko.cluster.seed-nodes = [\"pekko://" + SYSTEM + "@" + seed + "\"]",
        "pekko.cluster.downing-provider-class = \"org.apache.pekko.cluster.sbr.SplitBrainResolverProvider\"",
        "pekko.cluster.split-brain-resolver.active-strategy = keep-oldest",
        // the oldest node is the coordinator: it survives any partition (down-if-alone off), the run ends with it
        "pekko.cluster.split-brain-resolver.keep-oldest.down-if-alone = off",
        "pekko.cluster.split-brain-resolver.stable-after = " + downing.stableAfter().toMillis() + "ms",
        "pekko.cluster.failure-detector.acceptable-heartbeat-pause = " + downing.heartbeatPause().toMillis() + "ms",
        // terminating the actor system is a crash (no leaving); a node leaves by running coordinated shutdown
        "pekko.coordinated-shutdown.run-by-actor-system-terminate = off",
        "pekko.cluster.jmx.multi-mbeans-in-same-jvm = on",
        "pekko.cluster.sharding.passivation.strategy = none",
        "pekko.coordinated-shutdown.exit-jvm = off")))
        .withFallback(ConfigFactory.load());
  }

  /**
   * Starts a node on {@code host:port} joining {@code seed}; {@code nodes}: how many nodes the run has (the host
   * allocation waits for their shard regions; 1 on nodes other than the coordinator's, whose allocation is unused).
   */
  public static ClusterNode start(String host, int port, String seed, int nodes, Downing downing,
      NodeAgent.Crash.How crash) {
    return start(host, port, seed, nodes, Options.loopback(downing), crash);
  }

  /** As {@link #start(String, int, String, int, Downing, NodeAgent.Crash.How)}, with TLS and plugins as {@code options}. */
  public static ClusterNode start(String host, int port, String seed, int nodes, Options options,
      NodeAgent.Crash.How crash) {
    NodeAgent.Local[] local = new NodeAgent.Local[1];
    ActorSystem<Void> system = ActorSystem.create(Behaviors.setup(ctx -> {
      Address self = Cluster.get(ctx.getSystem()).selfMember().address();
      local[0] = new NodeAgent.Local(self.toString(), options.policies());
      ClusterSharding.get(ctx.getSystem()).init(Entity.of(VmEntity.KEY, e -> VmEntity.create(local[0]))
          .withMessageExtractor(new VmEntity.Extractor())
          .withAllocationStrategy(new HostAllocation(nodes, self)));
      ActorSystem<Void> sys = ctx.getSystem();
      ctx.spawn(NodeAgent.create(local[0], () -> leave(sys), crash == null ? () -> sys.terminate() : crash), "node");
      return Behaviors.<Void>empty();
    }), SYSTEM, options.quietJoin()
        ? ConfigFactory.parseString("pekko.loglevel = ERROR").withFallback(config(host, port, seed,
            options.downing(), options.tls()))
        : config(host, port, seed, options.downing(), options.tls()));
    // the guardian's setup runs on the system's thread: wait for it
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (local[0] == null && System.nanoTime() < deadline) Thread.onSpinWait();
    return new ClusterNode(system, local[0]);
  }

  public ActorSystem<Void> system() {
    return system;
  }

  /** The node's address, as its entities report it. */
  public String address() {
    return local.address();
  }

  /** Leaves the cluster and ends the actor system (coordinated shutdown); nothing of a crashed node is left either. */
  @Override public void close() throws Exception {
    leave(system);
    system.getWhenTerminated().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  /** Leaves the cluster, then terminates the actor system. */
  static void leave(ActorSystem<?> system) {
    org.apache.pekko.actor.CoordinatedShutdown.get(system).run(
        org.apache.pekko.actor.CoordinatedShutdown.clusterLeavingReason());
  }

  /** Ends the actor system without leaving the cluster: the others see the node stop answering (a crash). */
  public void crash() {
    system.terminate();
  }

  /**
   * Waits up to {@code timeout} for this node to be a member of the cluster (its join accepted by the seed: Joining,
   * WeaklyUp or Up); false when it is not by then (the seed unreachable, or the TLS handshake refused on one side).
   * Not Up: the leader moves a member to Up only once every member has seen it and none is unreachable, which a
   * loaded machine's late heartbeats can hold off for long after the node has joined and is already placed on.
   */
  public boolean awaitUp(Duration timeout) throws InterruptedException {
    org.apache.pekko.cluster.Cluster cluster = org.apache.pekko.cluster.Cluster.get(
        org.apache.pekko.actor.typed.javadsl.Adapter.toClassic(system));
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      for (org.apache.pekko.cluster.Member m : cluster.state().getMembers()) {
        if (!m.uniqueAddress().equals(cluster.selfUniqueAddress())) continue;
        org.apache.pekko.cluster.MemberStatus s = m.status();
        if (s == org.apache.pekko.cluster.MemberStatus.joining() || s == org.apache.pekko.cluster.MemberStatus.weaklyUp()
            || s == org.apache.pekko.cluster.MemberStatus.up()) {
          return true;
        }
      }
      if (system.whenTerminated().isCompleted()) return false;
      Thread.sleep(100);
    }
    return false;
  }

  /** The node has joined: Pekko's warnings are logged again (after a quiet join). */
  public void joined() {
    org.apache.pekko.actor.typed.javadsl.Adapter.toClassic(system).eventStream()
        .setLogLevel(org.apache.pekko.event.Logging.WarningLevel());
  }

  /** Whether {@code host:port} can be listened on now (port 0: any free one). */
  public static boolean portFree(String host, int port) {
    if (port == 0) return true;
    try (java.net.ServerSocket s = new java.net.ServerSocket()) {
      s.bind(new java.net.InetSocketAddress(host, port));
      return true;
    } catch (java.io.IOException e) {
      return false;
    }
  }

  /** Blocks until the node's actor system has terminated (the {@code node} command). */
  public void awaitTermination() throws Exception {
    system.getWhenTerminated().toCompletableFuture().get();
  }
}
