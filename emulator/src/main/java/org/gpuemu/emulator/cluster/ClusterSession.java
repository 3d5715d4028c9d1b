package org.gpuemu.emulator.cluster;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.run.Control;
import org.gpuemu.emulator.run.Runner;

/**
 * A cluster run as the coordinator's dashboard steers it: a control (a fault, a weight, a share) goes to the agent of
 * the node that runs its VM's host now ({@link #placed}; none while the host's node is lost and its restart is not
 * under way), which hands it to that part's own session, so it takes effect just after that node's model present, as
 * in one JVM. A pause is refused: each node keeps a clock of its own, and stopping them all at one model instant
 * would need the distributed order the nodes do without (docs/guides/cluster.md).
 */
final class ClusterSession implements Runner.Session {
  private static final Duration ASK = Duration.ofSeconds(30);
  static final String NO_PAUSE = "a cluster run does not pause: every node keeps a clock of its own (faults, weights "
      + "and shares go to the node of their VM)";

  private final ActorSystem<Void> system;
  private final Map<String, ActorRef<NodeAgent.Command>> agents;
  private final Map<String, Integer> vmHost = new ConcurrentHashMap<>();
  private final Map<Integer, String> owner = new ConcurrentHashMap<>();
  private final Settings.Scenario scenario;

  ClusterSession(ActorSystem<Void> system, Map<String, ActorRef<NodeAgent.Command>> agents,
      Settings.Scenario scenario) {
    this.system = system;
    this.agents = Map.copyOf(agents);
    this.scenario = scenario;
    for (Settings.Vm vm : scenario.vms()) vmHost.put(vm.name(), vm.host());
  }

  /** {@code hosts} run on {@code node} from now on. */
  void placed(List<Integer> hosts, String node) {
    for (int h : hosts) owner.put(h, node);
  }

  /** {@code hosts} were lost with their node: controls for their VMs are refused until they are placed again. */
  void lost(List<Integer> hosts) {
    for (int h : hosts) owner.remove(h);
  }

  @Override public String pauseRefused() {
    return NO_PAUSE;
  }

  @Override public long pause() {
    throw new UnsupportedOperationException(NO_PAUSE);
  }

  @Override public long resume() {
    return 0;
  }

  @Override public boolean paused() {
    return false;
  }

  @Override public CompletionStage<Long> control(Control control) {
    Integer host = vmHost.get(control.target());
    String node = host == null ? null : owner.get(host);
    ActorRef<NodeAgent.Command> agent = node == null ? null : agents.get(node);
    if (agent == null) {
      return CompletableFuture.failedFuture(new Control.Refused("VM " + control.target() + ": its node was lost "
          + (host == null ? "" : "(host " + scenario.hosts().get(host).name() + ") ")
          + "and its host is not restarted yet"));
    }
    Steering steering = Steering.of(control);
    return AskPattern.<NodeAgent.Command, NodeAgent.Steered>ask(agent, r -> new NodeAgent.Steer(steering, host, r), ASK,
        system.scheduler()).thenApply(s -> {
          if (s.refused() != null) throw new Control.Refused(s.refused());
          return s.atNanos();
        });
  }
}
