package org.gpuemu.emulator.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.emulator.run.Runner;

/**
 * A node's agent in the cluster (found through the receptionist by {@link #KEY}): runs the node's part of a run —
 * the hosts whose shards live here — in a model actor system of its own, with its own clock and causal order, from
 * the run's common time zero, and answers with the part's summary and timeline. The model runs on a thread of its
 * own, never on the cluster's dispatcher.
 */
public final class NodeAgent {
  private NodeAgent() {}

  public static final ServiceKey<Command> KEY = ServiceKey.create(Command.class, "gpuemu-node");

  public sealed interface Command extends CborSerializable {}

  /**
   * Runs the hosts {@code hosts} of the scenario in {@code file} with the run's command-line overrides, time zero at
   * the wall instant {@code zeroEpochMillis}.
   */
  public record RunPart(String file, Double timeScale, Long durationNanos, Long seed, Map<String, String> sets,
      List<String> faults, String faultMode, String faultRate, List<Integer> hosts, long zeroEpochMillis,
      ActorRef<PartDone> replyTo) implements Command {}

  /** A node's part: its summary.json text and timeline rows, or the error that ended it. */
  public record PartDone(String node, List<Integer> hosts, String summaryJson, List<String> timeline, String error)
      implements CborSerializable {}

  /** Ends the node (its JVM, when it was started by {@code node}). */
  public record Stop() implements Command {}

  private record Finished(PartDone done, ActorRef<PartDone> replyTo) implements Command {}

  /** What the node's entities tell the node: the hosts provisioned here. Thread-safe. */
  public static final class Local {
    private final String address;
    private final Set<Integer> hosts = ConcurrentHashMap.newKeySet();

    Local(String address) {
      this.address = address;
    }

    public String address() {
      return address;
    }

    void provisioned(int host, int vm) {
      hosts.add(host);
    }

    /** The hosts whose VMs (or the host alone) were provisioned here. */
    public Set<Integer> hosts() {
      return new TreeSet<>(hosts);
    }
  }

  static Behavior<Command> create(Local local, Runnable stop) {
    return Behaviors.setup(ctx -> {
      ctx.getSystem().receptionist().tell(Receptionist.register(KEY, ctx.getSelf()));
      ExecutorService model = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "gpuemu-node-part");
        t.setDaemon(true);
        return t;
      });
      return Behaviors.receive(Command.class)
          .onMessage(RunPart.class, m -> onRunPart(ctx, local, model, m))
          .onMessage(Finished.class, m -> {
            m.replyTo().tell(m.done());
            return Behaviors.same();
          })
          .onMessage(Stop.class, m -> {
            model.shutdownNow();
            stop.run();
            return Behaviors.stopped();
          })
          .build();
    });
  }

  private static Behavior<Command> onRunPart(ActorContext<Command> ctx, Local local, ExecutorService model,
      RunPart m) {
    CompletableFuture<PartDone> done = CompletableFuture.supplyAsync(() -> runPart(local, m), model);
    ctx.pipeToSelf(done, (ok, failure) -> new Finished(ok != null ? ok
        : new PartDone(local.address(), m.hosts(), null, List.of(), String.valueOf(failure)), m.replyTo()));
    return Behaviors.same();
  }

  /** Loads the scenario as the coordinator did, runs this node's hosts, and returns their summary and timeline. */
  static PartDone runPart(Local local, RunPart m) {
    Path dir = null;
    try {
      if (!local.hosts().containsAll(m.hosts())) {
        return new PartDone(local.address(), m.hosts(), null, List.of(), "hosts " + m.hosts()
            + " were not all provisioned on this node (it has " + local.hosts() + ")");
      }
      Settings.Scenario whole = ScenarioLoader.load(Path.of(m.file()), new ScenarioLoader.Overrides(m.timeScale(),
          m.durationNanos(), m.seed(), m.sets(), new FaultPlan.Cli(m.faults(), m.faultMode(), m.faultRate())));
      Settings.Scenario part = NodeScenario.of(whole, m.hosts());
      dir = Files.createTempDirectory("gpuemu-node-");
      Summary summary = new Summary(Runner.runFrom(part, dir, m.zeroEpochMillis()));
      String json = new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(summary.doc());
      List<String> rows = Files.readAllLines(dir.resolve("timeline.jsonl"));
      return new PartDone(local.address(), m.hosts(), json, rows, null);
    } catch (Exception e) {
      return new PartDone(local.address(), m.hosts(), null, List.of(), e.toString());
    } finally {
      if (dir != null) delete(dir);
    }
  }

  private static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (java.io.IOException e) {
      // a temporary folder left behind
    }
  }
}
