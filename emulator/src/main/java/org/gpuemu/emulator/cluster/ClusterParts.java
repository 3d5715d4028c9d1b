package org.gpuemu.emulator.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;

/**
 * The parts of a cluster run while they run, on the coordinator: each node's hosts handed to it with the common
 * time zero, the timeline streamed from their progress reports, their answers collected, and a lost node's hosts
 * restarted on a survivor from the next metrics period on ({@link ClusterRun} sets the cluster up around it).
 */
final class ClusterParts {
  /** Wall time from a node's loss being acted on to its hosts' restart: the part reaches a survivor and is built. */
  static final long RESTART_MARGIN_MILLIS = 1_500;

  private final ActorSystem<Void> system;
  private final Map<String, ActorRef<NodeAgent.Command>> agents;
  private final ClusterRun.Source source;
  private final String fileText;
  private final Settings.Scenario scenario;
  private final TimelineStream timeline;
  private final RunWatcher.Ledger ledger;
  private final BlockingQueue<Object> events = new LinkedBlockingQueue<>();
  private final ActorRef<NodeAgent.Progress> watcher;
  private final ClusterSession session;
  private final ClusterObserver observer;
  private final Map<String, Running> running = new LinkedHashMap<>();
  private final List<NodeAgent.PartDone> results = new ArrayList<>();
  private final List<ClusterRun.Loss> losses = new ArrayList<>();
  private final Set<String> lost = new HashSet<>();
  private long zero;
  private long endWall;

  private record Running(String key, String node, List<Integer> hosts, long restartAtNanos) {}

  private record Done(String key, NodeAgent.PartDone done) {}

  /** A node-crash fault: the node to crash and when, in model time. */
  record Crash(String node, long atNanos) {}

  /** The parts of {@code scenario} on the agents' nodes, the merged timeline written into {@code out}. */
  ClusterParts(ActorSystem<Void> system, Map<String, ActorRef<NodeAgent.Command>> agents, ClusterRun.Source source,
      Settings.Scenario scenario, Path out, ClusterObserver observer) throws java.io.IOException {
    this.system = system;
    this.agents = agents;
    this.source = source;
    this.fileText = Files.readString(source.file());
    this.scenario = scenario;
    Map<String, Integer> vmOrder = new HashMap<>();
    for (Settings.Vm vm : scenario.vms()) vmOrder.put(vm.name(), vm.index());
    timeline = new TimelineStream(out.resolve("timeline.jsonl"), vmOrder, TimelineStream.CAPACITY, observer::row);
    ledger = new RunWatcher.Ledger(timeline, scenario.vms().stream().map(Settings.Vm::name).toList(), observer);
    watcher = system.systemActorOf(RunWatcher.create(ledger, events), "run-watcher", Props.empty());
    session = new ClusterSession(system, agents, scenario);
    this.observer = observer;
  }

  /** Every host's part handed to its node ({@code hostNode}), with a common time zero; the session then attached. */
  void startAll(Map<Integer, String> hostNode) {
    Map<String, List<Integer>> parts = new TreeMap<>();
    hostNode.forEach((h, node) -> parts.computeIfAbsent(node, n -> new ArrayList<>()).add(h));
    parts.forEach((node, hosts) -> session.placed(hosts, node));
    // every node's time zero: time for the parts to reach them and for each node to warm up
    zero = System.currentTimeMillis() + 2_000 + 2 * NodeAgent.WARM_UP_MILLIS;
    endWall = zero + Math.round(scenario.durationNanos() / scenario.timeScale() / 1e6);
    for (Map.Entry<String, List<Integer>> p : parts.entrySet()) start(p.getKey(), p.getValue(), 0);
    observer.attach(session);
  }

  /** The node-crash faults, each told to its node's agent at its model time's wall instant. */
  void schedule(List<Crash> crashes) {
    for (Crash c : crashes) {
      ActorRef<NodeAgent.Command> agent = agents.get(c.node());
      long delay = Math.max(0, zero + Math.round(c.atNanos() / scenario.timeScale() / 1e6)
          - System.currentTimeMillis());
      system.scheduler().scheduleOnce(Duration.ofMillis(delay), () -> agent.tell(new NodeAgent.Crash()),
          system.executionContext());
    }
  }

  /** Waits until every part has ended, restarting the parts of lost nodes; then tells the other nodes to stop. */
  void awaitAll(String coordinator) throws Exception {
    long deadline = endWall + 180_000;
    while (!running.isEmpty()) {
      Object e = events.poll(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
      if (e == null) throw new IllegalStateException("parts still running 180 s after the run's end: " + running.keySet());
      if (e instanceof Done d) {
        if (running.remove(d.key()) != null) {
          NodeAgent.PartDone done = withReportedRows(d);
          timeline.close(d.key(), done.timeline());
          results.add(done);
        }
      } else if (e instanceof RunWatcher.Removed r) {
        removed(r);
      }
    }
    for (Map.Entry<String, ActorRef<NodeAgent.Command>> a : agents.entrySet()) {
      if (!a.getKey().equals(coordinator) && !lost.contains(a.getKey())) a.getValue().tell(new NodeAgent.Stop());
    }
    timeline.close();
  }

  /** A node was removed: each of its parts restarts on a survivor at the next metrics period (if before the end). */
  private void removed(RunWatcher.Removed r) throws Exception {
    lost.add(r.node());
    for (Running p : List.copyOf(running.values())) {
      if (!p.node().equals(r.node())) continue;
      running.remove(p.key());
      session.lost(p.hosts());
      timeline.close(p.key(), List.of());
      long nowModel = Math.round((System.currentTimeMillis() - zero + RESTART_MARGIN_MILLIS)
          * scenario.timeScale() * 1e6);
      long period = scenario.metricsPeriodNanos();
      long restartAt = Math.max(p.restartAtNanos(), (nowModel + period - 1) / period * period);
      String to = null;
      if (restartAt < scenario.durationNanos()) {
        Map<Integer, String> again = ClusterRun.provisionAgain(system, scenario, p.hosts());
        to = again.get(p.hosts().get(0));
        if (lost.contains(to)) throw new IllegalStateException("hosts " + p.hosts() + " re-placed on lost " + to);
        start(to, p.hosts(), restartAt);
        session.placed(p.hosts(), to);
      }
      losses.add(new ClusterRun.Loss(r.node(), p.hosts(), ledger.last(p.key()), ledger.rows(p.key()),
          r.unreachableAtMillis() == 0 ? -1 : r.unreachableAtMillis() - zero, r.removedAtMillis() - zero,
          restartAt, to));
    }
  }

  /**
   * A finished part with the rows its progress reports carried: the reports go to the watcher and the answer to the
   * ask, two recipients with no order between them, so this waits (at most 30 s) for the last reports to be in.
   */
  private NodeAgent.PartDone withReportedRows(Done d) throws InterruptedException {
    NodeAgent.PartDone p = d.done();
    if (p.error() != null) return p;
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (ledger.rows(d.key()) < p.reportedRows()) {
      if (System.nanoTime() > deadline) {
        return NodeAgent.PartDone.failed(p.node(), p.hosts(), p.restartAtNanos(), "its last progress reports did not "
            + "arrive: " + ledger.rows(d.key()) + " of " + p.reportedRows() + " rows");
      }
      Thread.sleep(20);
    }
    return p;
  }

  /** Hands {@code hosts} to {@code node}'s agent, from model time {@code restartAt} on (0: the run's start). */
  private void start(String node, List<Integer> hosts, long restartAt) {
    ActorRef<NodeAgent.Command> agent = agents.get(node);
    if (agent == null) throw new IllegalStateException("no agent at " + node + " among " + agents.keySet());
    String key = RunWatcher.Ledger.key(node, hosts, restartAt);
    timeline.open(key, restartAt);
    running.put(key, new Running(key, node, List.copyOf(hosts), restartAt));
    ScenarioLoader.Overrides o = source.overrides();
    long wait = Math.max(1, endWall - System.currentTimeMillis()) + 140_000;
    AskPattern.<NodeAgent.Command, NodeAgent.PartDone>ask(agent, r -> new NodeAgent.RunPart(
        source.file().toAbsolutePath().toString(), fileText, o.timeScale(), o.durationNanos(), o.seed(), o.sets(),
        o.faults().faults(), o.faults().mode(), o.faults().rate(), List.copyOf(hosts), zero, restartAt, watcher, r),
        Duration.ofMillis(wait), system.scheduler())
        .whenComplete((done, failure) -> events.add(new Done(key, done != null ? done
            : NodeAgent.PartDone.failed(node, hosts, restartAt, String.valueOf(failure)))));
  }

  List<NodeAgent.PartDone> results() {
    return results;
  }

  List<ClusterRun.Loss> losses() {
    return losses;
  }

  TimelineStream timeline() {
    return timeline;
  }
}
