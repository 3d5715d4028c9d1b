package org.gpuemu.emulator.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
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
import org.gpuemu.emulator.faults.RequestHistory;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.report.FairnessFigures;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.emulator.run.Runner;
import org.gpuemu.emulator.vm.VGpu;

/**
 * A node's agent in the cluster (found through the receptionist by {@link #KEY}): runs the node's part of a run —
 * the hosts whose shards live here — in a model actor system of its own, with its own clock and causal order, from
 * the run's common time zero, and reports its progress and timeline rows as it goes and answers with the part's summary. The model runs on a thread of its
 * own, never on the cluster's dispatcher.
 */
public final class NodeAgent {
  private NodeAgent() {}

  public static final ServiceKey<Command> KEY = ServiceKey.create(Command.class, "gpuemu-node");

  public sealed interface Command extends CborSerializable {}

  /**
   * Runs the hosts {@code hosts} of the scenario in {@code file} with the run's command-line overrides, time zero at
   * the wall instant {@code zeroEpochMillis}; {@code restartAtNanos} > 0: the hosts are restarted there after their
   * node's loss ({@link NodeScenario#restartAt}). The node reports its progress to {@code progressTo} as it goes.
   */
  public record RunPart(String file, String fileText, Double timeScale, Long durationNanos, Long seed, Map<String, String> sets,
      List<String> faults, String faultMode, String faultRate, List<Integer> hosts, long zeroEpochMillis,
      long restartAtNanos, ActorRef<Progress> progressTo, ActorRef<PartDone> replyTo) implements Command {}

  /**
   * A node's part: its summary.json text, its VMs' fairness rates (unrounded, for the coordinator to compute the
   * cluster's fairness block as one JVM does) and the timeline rows its progress reports did not carry (the
   * {@code reportedRows} before them went with the reports), or the error that ended it. No message carries a whole
   * timeline: the rows go to the coordinator as the run goes.
   */
  public record PartDone(String node, List<Integer> hosts, long restartAtNanos, String summaryJson,
      List<FairnessFigures.Row> fairness, List<String> timeline, int reportedRows, String error)
      implements CborSerializable {
    /** A part that ended with {@code error}. */
    static PartDone failed(String node, List<Integer> hosts, long restartAtNanos, String error) {
      return new PartDone(node, hosts, restartAtNanos, null, List.of(), List.of(), 0, error);
    }
  }

  /**
   * Where a node's part is (every {@link #REPORT_MILLIS} of wall time): its model time, each VM's GPU requests so far
   * (read from its vGPU at once, so each VM's three counts agree), and the timeline rows written since the last
   * report. The coordinator keeps the last one; it is all that is left of a part whose node is lost.
   */
  public record Progress(String node, List<Integer> hosts, long restartAtNanos, long atNanos, List<VmCount> vms,
      List<String> rows, List<Steering.Done> controls) implements CborSerializable {}

  /**
   * A VM's GPU requests so far: submitted, completed, failed (the rest are in flight); and its FPS and GPU share of
   * the last metrics period (the live dashboard's figures).
   */
  public record VmCount(String vm, long submitted, long completed, long failed, double fps, double gpuShare)
      implements CborSerializable {}

  /**
   * A control from the coordinator's dashboard for the VM {@code steering.target()} of host {@code host}, whose part
   * runs on this node; answered with the run's model time it will take effect at (a part that has not reached its
   * time zero yet takes it just after).
   */
  public record Steer(Steering steering, int host, ActorRef<Steered> replyTo) implements Command {}

  /** Where a control takes effect: the run's model time (ns), -1 when the part ends first; or why it was refused. */
  public record Steered(long atNanos, String refused) implements CborSerializable {}

  /** Asks the node which policies it runs ({@link PolicySet#described}). */
  public record Describe(ActorRef<Described> replyTo) implements Command {}

  /** A node's policies: name to {@code built-in} or its plugin jar and the jar's SHA-256. */
  public record Described(String node, Map<String, String> policies) implements CborSerializable {}

  /** Ends the node (its JVM, when it was started by {@code node}). */
  public record Stop() implements Command {}

  /** The {@code node-crash} fault: the node dies at once, leaving nothing (its JVM halts, as kill -9 ends it). */
  public record Crash() implements Command {
    /** How a node dies: {@code Runtime.halt} in a JVM of its own, its actor system terminated in a test's JVM. */
    public interface How {
      void crash();
    }
  }

  /** How long a node warms up its part before time zero (the coordinator leaves time for it). */
  public static final long WARM_UP_MILLIS = 1_000;

  /** How often a node reports its progress, in wall milliseconds: what a lost node's record may miss at most. */
  public static final long REPORT_MILLIS = 500;

  private record Finished(PartDone done, ActorRef<PartDone> replyTo) implements Command {}

  /**
   * A part's session, to steer it (completed at the part's time zero; failed if it ends before), and the run's model
   * time its clock starts at.
   */
  record PartSession(CompletableFuture<Runner.Session> session, long shiftNanos) {}

  /** What the node's entities tell the node: the hosts provisioned here; and its running parts' VMs. Thread-safe. */
  public static final class Local {
    private final String address;
    private final PolicySet policies;
    private final Set<Integer> hosts = ConcurrentHashMap.newKeySet();
    private final Map<Integer, PartSession> sessions = new ConcurrentHashMap<>();

    Local(String address, PolicySet policies) {
      this.address = address;
      this.policies = policies;
    }

    /** The policies this node runs. */
    public PolicySet policies() {
      return policies;
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

  static Behavior<Command> create(Local local, Runnable stop, Crash.How crash) {
    return Behaviors.setup(ctx -> {
      ctx.getSystem().receptionist().tell(Receptionist.register(KEY, ctx.getSelf()));
      // a part on a thread of its own: a node may run its own part and, after another node's loss, a restarted one
      ExecutorService model = Executors.newCachedThreadPool(r -> {
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
          .onMessage(Steer.class, m -> {
            steer(local, m);
            return Behaviors.same();
          })
          .onMessage(Describe.class, m -> {
            m.replyTo().tell(new Described(local.address(), local.policies().described()));
            return Behaviors.same();
          })
          .onMessage(Stop.class, m -> {
            model.shutdownNow();
            stop.run();
            return Behaviors.stopped();
          })
          .onMessage(Crash.class, m -> {
            ctx.getLog().warn("node-crash: this node dies now");
            model.shutdownNow();
            crash.crash();
            return Behaviors.stopped();
          })
          .build();
    });
  }

  private static Behavior<Command> onRunPart(ActorContext<Command> ctx, Local local, ExecutorService model,
      RunPart m) {
    // the part's hosts are steerable from now on: a control sent once the coordinator handed out every part waits
    // here for the part's time zero
    PartSession steered = new PartSession(new CompletableFuture<>(), m.restartAtNanos());
    for (int h : m.hosts()) local.sessions.put(h, steered);
    CompletableFuture<PartDone> done = CompletableFuture.supplyAsync(() -> runPart(local, m, steered), model);
    ctx.pipeToSelf(done, (ok, failure) -> new Finished(ok != null ? ok
        : PartDone.failed(local.address(), m.hosts(), m.restartAtNanos(), String.valueOf(failure)),
        m.replyTo()));
    return Behaviors.same();
  }

  /** Hands a control to the part running its VM; the answer in the run's model time. */
  private static void steer(Local local, Steer m) {
    PartSession p = local.sessions.get(m.host());
    if (p == null) {
      m.replyTo().tell(new Steered(-1, "VM " + m.steering().target() + " is not running on node " + local.address()
          + " (its part has ended)"));
      return;
    }
    p.session().thenCompose(s -> s.control(m.steering().control())).whenComplete((at, failure) -> m.replyTo().tell(
        new Steered(failure != null || at < 0 ? -1 : at + p.shiftNanos(), null)));
  }

  /**
   * Loads the scenario as the coordinator did, runs this node's hosts, and returns their summary and timeline; the
   * part's session goes to {@code steered} at its time zero.
   */
  /**
   * A part's progress reports to the coordinator, one per sampling period: each VM's counts and rates, the timeline
   * rows written since the last report and the controls that took effect, all in the whole run's model time (the
   * part's shifted by its restart). Called on the runner's thread only.
   */
  private static final class PartReports implements Runner.Sampler {
    private final String node;
    private final RunPart m;
    private final Settings.Scenario ran;
    private final long shift;
    private final ConcurrentLinkedQueue<String> rows;
    private final ConcurrentLinkedQueue<Steering.Done> controls;
    /** Rows sent with the reports so far. */
    int reported;

    PartReports(String node, RunPart m, Settings.Scenario ran, long shift, ConcurrentLinkedQueue<String> rows,
        ConcurrentLinkedQueue<Steering.Done> controls) {
      this.node = node;
      this.m = m;
      this.ran = ran;
      this.shift = shift;
      this.rows = rows;
      this.controls = controls;
    }

    @Override public boolean due(long emulatedNanos) {
      return true;
    }

    @Override public void sample(MetricsHub.LiveView view, List<VGpu.VgpuReport> vgpus,
        RequestHistory.Totals requests) {
      Map<String, Integer> live = new java.util.HashMap<>();
      for (int i = 0; i < view.names().size(); i++) live.put(view.names().get(i), i);
      List<VmCount> counts = new ArrayList<>();
      for (VGpu.VgpuReport r : vgpus) {
        String vm = ran.vms().get(r.vgpu()).name();
        Integer i = live.get(vm);
        counts.add(new VmCount(vm, r.submitted(), r.completed(), r.failed(), i == null ? 0 : view.fps()[i],
            i == null ? 0 : view.gpuShare()[i]));
      }
      List<Steering.Done> done = new ArrayList<>();
      for (Steering.Done d; (d = controls.poll()) != null; ) done.add(d);
      List<String> since = new ArrayList<>();
      long at = view.emulatedNanos() + shift; // the report covers the rows it carries
      for (String row; (row = rows.poll()) != null; ) {
        since.add(shifted(row, shift));
        at = Math.max(at, rowNanos(row) + shift);
      }
      reported += since.size();
      m.progressTo().tell(new Progress(node, m.hosts(), shift, at, counts, since, done));
    }
  }

  private static PartDone runPart(Local local, RunPart m, PartSession steered) {
    Path dir = null;
    try {
      if (!local.hosts().containsAll(m.hosts())) {
        return PartDone.failed(local.address(), m.hosts(), m.restartAtNanos(), "hosts " + m.hosts()
            + " were not all provisioned on this node (it has " + local.hosts() + ")");
      }
      Settings.Scenario whole = ScenarioLoader.load(scenarioFile(m), new ScenarioLoader.Overrides(m.timeScale(),
          m.durationNanos(), m.seed(), m.sets(), new FaultPlan.Cli(m.faults(), m.faultMode(), m.faultRate())),
          local.policies().catalog());
      Settings.Scenario part = NodeScenario.of(whole, m.hosts());
      long shift = m.restartAtNanos();
      if (shift > 0) part = NodeScenario.restartAt(part, shift);
      // the part's own clock starts at the restart: zero + restartAt in wall time
      long zero = m.zeroEpochMillis() + Math.round(shift / whole.timeScale() / 1e6);
      if (shift == 0 && m.zeroEpochMillis() - System.currentTimeMillis() > 2 * WARM_UP_MILLIS) {
        Runner.warmUp(part, WARM_UP_MILLIS * 1_000_000L); // as run does: a cold JVM's first second is late
      }
      dir = Files.createTempDirectory("gpuemu-node-");
      ConcurrentLinkedQueue<String> rows = new ConcurrentLinkedQueue<>();
      Settings.Scenario ran = part;
      ConcurrentLinkedQueue<Steering.Done> controls = new ConcurrentLinkedQueue<>();
      Runner.Attach attach = new Runner.Attach(steered.session()::complete, r -> {
        if (!r.isPause()) controls.add(new Steering.Done(Steering.of(r.control()), r.atNanos() + shift, r.applied(),
            r.note()));
      }, List.of());
      PartReports reports = new PartReports(local.address(), m, ran, shift, rows, controls);
      Summary summary = new Summary(Runner.run(part, dir, Runner.Options.node(zero, REPORT_MILLIS)
          .withTap(rows::add).withSampler(reports).withAttach(attach)));
      String json = new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(summary.doc());
      List<String> rest = new ArrayList<>(); // the rows since the last report (the drain's among them)
      for (String row; (row = rows.poll()) != null; ) rest.add(shifted(row, shift));
      int total = Files.readAllLines(dir.resolve("timeline.jsonl")).size();
      if (reports.reported + rest.size() != total) {
        return PartDone.failed(local.address(), m.hosts(), shift, "the timeline has " + total + " rows, the node "
            + "sent " + (reports.reported + rest.size()));
      }
      return new PartDone(local.address(), m.hosts(), shift, json, summary.fairnessRows(), rest, reports.reported,
          null);
    } catch (Exception e) {
      return PartDone.failed(local.address(), m.hosts(), m.restartAtNanos(), e.toString());
    } finally {
      local.sessions.values().removeIf(p -> p == steered);
      steered.session().completeExceptionally(new IllegalStateException("the part has ended"));
      if (dir != null) delete(dir);
    }
  }

  /**
   * The scenario file as the coordinator read it: the same path when this machine has it with the same text (a
   * file it names, such as a trace, is then found as on the coordinator), else the coordinator's text in a file of
   * this node's own.
   */
  private static Path scenarioFile(RunPart m) throws java.io.IOException {
    Path same = Path.of(m.file());
    if (Files.isRegularFile(same) && Files.readString(same).equals(m.fileText())) return same;
    Path dir = Files.createTempDirectory("gpuemu-scenario-");
    dir.toFile().deleteOnExit();
    Path copy = dir.resolve(same.getFileName().toString());
    Files.writeString(copy, m.fileText());
    copy.toFile().deleteOnExit();
    return copy;
  }

  /** A timeline row of a restarted part, its time moved from the part's clock to the run's. */
  static String shifted(String row, long shiftNanos) {
    if (shiftNanos == 0) return row;
    java.util.regex.Matcher t = ROW_TIME.matcher(row);
    if (!t.lookingAt()) throw new IllegalStateException("a timeline row without t_s first: " + row);
    double s = Math.round((Double.parseDouble(t.group(1)) + shiftNanos / 1e9) * 1000) / 1000.0;
    return "{\"t_s\":" + s + row.substring(t.end(1));
  }

  private static long rowNanos(String row) {
    java.util.regex.Matcher t = ROW_TIME.matcher(row);
    return t.lookingAt() ? Math.round(Double.parseDouble(t.group(1)) * 1e9) : 0;
  }

  private static final java.util.regex.Pattern ROW_TIME = java.util.regex.Pattern.compile("\\{\"t_s\":([-0-9.Ee]+)");

  private static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (java.io.IOException e) {
      // a temporary folder left behind
    }
  }
}
