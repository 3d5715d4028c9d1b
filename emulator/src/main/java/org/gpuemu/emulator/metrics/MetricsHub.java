package org.gpuemu.emulator.metrics;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.clock.Frontier;
import org.gpuemu.emulator.clock.Timed;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.stream.QueueOfferResult;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.faults.Crashed;
import org.gpuemu.emulator.faults.FaultInjector;
import org.gpuemu.policies.vgris.SlaPacer;

/**
 * Collects what the guests and the GPU report (frames, GPU time, memory held), keeps the run's per-VM
 * distributions, and every metrics period emits one timeline row per VM into a bounded Pekko Streams queue whose
 * file sink runs on the stream's own I/O dispatcher, so no actor blocks on file I/O. A row the queue cannot take
 * is counted, never silently dropped. The frequent reports (frames, kernels' GPU time, Presents' costs) are not
 * messages: their actors write them into {@link MetricsPorts}, which the hub drains as it closes a period, crashes
 * or finishes; the rare ones (memory held, mode, weights, slots, memory profile, fault windows) are messages.
 *
 * <p>{@code metrics-crash} ({@link Crash}). Effect: the actor fails and supervision restarts it; what it
 * counted for the period in progress is lost (that period's timeline rows count only what came after the crash), as
 * a collector loses what it had not yet written. Recovery: the run's totals and distributions, the timeline's stream
 * and the period's timer live outside the actor ({@link Held}), as a metrics store outlives its collector; the new
 * incarnation arms the period's end as it was due. Nothing in the model depends on the hub, so no guest notices.
 */
public final class MetricsHub extends AbstractBehavior<MetricsHub.Command> {

  public sealed interface Command {}

  public record MemoryHeld(int vm, long bytes) implements Command {}

  /** VM {@code vm}'s weight from now on (a control during the run), for λ's weight shares. */
  public record Weight(int vm, int weight) implements Command {}

  /** The GPU policy's current mode, recorded in the timeline (hybrid policies switch modes). */
  public record Mode(String mode) implements Command {}

  /** A VM's high-memory slots now (slot memory policies). */
  public record Slots(int vm, int slots) implements Command {}

  /** gBalloon's last profiling period: W, Rcopy (percent) and f(W, Rcopy). */
  public record MemoryProfile(double w, double rcopy, double f) implements Command {}

  public record Live(ActorRef<LiveView> replyTo) implements Command {}

  /** Emulated time zero has come: start the periods. */
  public enum Begin implements Command { INSTANCE }

  /** End of run: flush the timeline and reply with the final metrics once the file is written. */
  public record Finish(ActorRef<FinalMetrics> replyTo) implements Command {}

  private record Tick(long due) implements Command, Timed {}

  /** Fault {@code fault} (metrics-crash) at {@code atNanos}: see the class. */
  public record Crash(int fault, long atNanos, ActorRef<FaultInjector.Outcome> outcomes) implements Command {}

  private record SinkDone(ActorRef<FinalMetrics> replyTo, Throwable failure) implements Command {}

  /**
   * Sees each timeline row, as the JSON line written to timeline.jsonl, on the row stream's own thread (a wire tap
   * on the file's stream: no message to any actor, and a slow tap never holds the file back). {@link #NONE} adds
   * no stage at all, so a run without an observer is the run it always was.
   */
  @FunctionalInterface
  public interface TimelineTap {
    TimelineTap NONE = json -> { };

    void row(String json);
  }

  /**
   * What the hub must know of a VM; {@code gpu} numbers the GPU it runs on (host and GPU), whose VMs its timeline's
   * GPU share and λ are over.
   */
  public record VmInfo(int index, String name, double slaFps, int weight, int gpu) {
    /** A VM of a run of one GPU. */
    public VmInfo(int index, String name, double slaFps, int weight) {
      this(index, name, slaFps, weight, 0);
    }
  }

  /**
   * Last period's per-VM FPS and GPU share, for the progress line, and the run's live fidelity: the real-time
   * factor (emulated seconds the timers advanced per wall second; NaN when unknown) and the p99 timer lateness in
   * emulated µs since the previous view (-1 when unknown or no timer fired), and the run's verdict so far. The hub
   * fills in the first four; the runner, which owns the lateness and causal-order records, adds the fidelity figures
   * with {@link #withFidelity}.
   */
  public record LiveView(long emulatedNanos, List<String> names, double[] fps, double[] gpuShare,
      double realTimeFactor, long latenessP99Us, String verdict) {
    /** A view without fidelity figures. */
    public LiveView(long emulatedNanos, List<String> names, double[] fps, double[] gpuShare) {
      this(emulatedNanos, names, fps, gpuShare, Double.NaN, -1, null);
    }

    /** This view with the given fidelity figures; {@code verdict}: "faithful" or what broke it, null unknown. */
    public LiveView withFidelity(double realTimeFactor, long latenessP99Us, String verdict) {
      return new LiveView(emulatedNanos, names, fps, gpuShare, realTimeFactor, latenessP99Us, verdict);
    }
  }

  /**
   * Final per-VM figures. Latencies in microseconds; {@code latencyCdfUs} the latency at 0, 1, ..., 100 % of the
   * frames (101 values, the first the shortest and the last the longest; empty without frames); {@code fpsMin},
   * {@code fpsMax} the lowest and highest FPS of the timeline's whole periods (NaN: none passed).
   */
  public record VmMetrics(long frames, long framesOverSla, long latencyP50Us, long latencyP99Us, long latencyMaxUs,
      long gpuBusyNanos, long maxMemoryBytes, List<Long> latencyCdfUs, double fpsMin, double fpsMax,
      PresentFigures present, Double gpuUsageRangePct) {
    public VmMetrics {
      latencyCdfUs = List.copyOf(latencyCdfUs);
    }

  }

  /** {@code recoveries}: each fault's time to recover on the timeline's measure, by fault, ns ({@link FaultPeriods}). */
  public record FinalMetrics(List<VmMetrics> vms, long medianFrameNanos, long timelineRows, long timelineDropped,
      String sinkFailure, Map<Integer, Long> recoveries) {
    public FinalMetrics(List<VmMetrics> vms, long medianFrameNanos, long timelineRows, long timelineDropped,
        String sinkFailure) {
      this(vms, medianFrameNanos, timelineRows, timelineDropped, sinkFailure, Map.of());
    }
  }

  /** Fault {@code fault} ({@code label}) began or ended at {@code atNanos}: the timeline marks its window. */
  public record FaultWindow(int fault, String label, long atNanos, boolean began) implements Command {}

  private static final Object TICK = "tick";
  private static final int QUEUE_SIZE = 4096;

  private final List<VmInfo> vms;
  private final long period;
  private final RunContext run;
  private final TimerScheduler<Command> timers;
  private final ObjectMapper json = new ObjectMapper();
  /** What outlives a crash of the actor: the run's totals, the timeline's stream, where the period stands. */
  private final MetricsStore h;
  /** Where the frequent reports wait to be drained (outlives a crash too). */
  private final MetricsPorts ports;

  /** The hub of a run of {@code vms}, whose reporting actors write into {@code ports}. */
  public static Behavior<Command> create(List<VmInfo> vms, long periodNanos, Path timeline, RunContext run,
      MetricsPorts ports) {
    return create(vms, periodNanos, new Sink(timeline, TimelineTap.NONE), run, ports, false);
  }

  /**
   * As above, the timeline's rows going to {@code sink}; {@code marksFaults}: the run injects faults, and every
   * timeline row names those active in it.
   */
  public static Behavior<Command> create(List<VmInfo> vms, long periodNanos, Sink sink, RunContext run,
      MetricsPorts ports, boolean marksFaults) {
    MetricsStore held = new MetricsStore(vms.size(), periodNanos, marksFaults,
        vms.stream().mapToInt(VmInfo::weight).toArray(), vms.stream().mapToLong(MetricsHub::slaLatency).toArray(),
        ports);
    return Behaviors.setup(ctx -> Behaviors.withTimers(t -> run.observer(Crashed.restarting(Behaviors.setup(
        c -> new MetricsHub(c, vms, run, t, sink, held))))));
  }

  /**
   * A frame of {@code vm} longer than this is over its SLA, as VGRIS measures it: 1 s / SLA FPS in whole milliseconds
   * (30 FPS: 33 ms; vgris.txt §2, §4.1: frames "beyond 33 ms"), the same rule as the SLA-aware pacer's target;
   * Long.MAX_VALUE for a VM without a frame rate SLA.
   */
  private static long slaLatency(VmInfo vm) {
    double fps = vm.slaFps();
    return fps > 0 && !Double.isInfinite(fps) ? SlaPacer.targetLatencyNanos(fps) : Long.MAX_VALUE;
  }

  /** Where the timeline's rows go: its file, and the tap that sees each row. */
  public record Sink(Path timeline, TimelineTap tap) {}

  /** {@code held}: what outlives a crash, the timeline's period with it. */
  private MetricsHub(ActorContext<Command> ctx, List<VmInfo> vms, RunContext run, TimerScheduler<Command> timers,
      Sink sink, MetricsStore held) {
    super(ctx);
    this.vms = List.copyOf(vms);
    this.period = held.periodNanos;
    this.run = run;
    this.timers = timers;
    this.h = held;
    this.ports = held.ports;
    if (held.queue == null) held.open(ctx.getSystem(), sink.timeline(), sink.tap(), QUEUE_SIZE);
    if (held.tickDue >= 0) run.arm(timers, TICK, new Tick(held.tickDue), held.tickDue);
  }

  @Override public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(MemoryHeld.class, this::onMemoryHeld)
        .onMessage(Mode.class, m -> {
          h.mode = m.mode();
          return Behaviors.same();
        })
        .onMessage(Begin.class, m -> {
          h.tickDue = period;
          run.arm(timers, TICK, new Tick(period), period);
          return Behaviors.same();
        })
        .onMessage(Tick.class, this::onTick)
        .onMessage(Weight.class, m -> {
          h.weights[m.vm()] = m.weight();
          return Behaviors.same();
        })
        .onMessage(Slots.class, m -> {
          h.slots.put(m.vm(), m.slots());
          return Behaviors.same();
        })
        .onMessage(MemoryProfile.class, m -> {
          h.profile = m;
          return Behaviors.same();
        })
        .onMessage(Live.class, this::onLive)
        .onMessage(Finish.class, this::onFinish)
        .onMessage(SinkDone.class, this::onSinkDone)
        .onMessage(Crash.class, this::onCrash)
        .onMessage(FaultWindow.class, this::onFaultWindow)
        .onSignal(PreRestart.class, sig -> {
          run.disarmAll(timers); // the restart cancels them; the order must not count them any more
          return Behaviors.same();
        })
        .build();
  }

  private Behavior<Command> onMemoryHeld(MemoryHeld msg) {
    h.memory[msg.vm()] = msg.bytes();
    h.maxMemory[msg.vm()] = Math.max(h.maxMemory[msg.vm()], msg.bytes());
    return Behaviors.same();
  }

  private Behavior<Command> onTick(Tick msg) {
    long due = run.fired(msg.due());
    ports.drain(h, due, 0, false); // the period's reports: those below the timer's level (due, 0) (MetricsPorts)
    emitRows(due);
    h.tickDue = due + period;
    run.arm(timers, TICK, new Tick(h.tickDue), h.tickDue);
    return Behaviors.same();
  }

  private Behavior<Command> onFaultWindow(FaultWindow msg) {
    if (h.faults == null) return Behaviors.same(); // a fault injected from outside a run that planned none: the timeline marks none
    if (msg.began()) {
      h.faults.began(msg.fault(), msg.label(), msg.atNanos());
    } else {
      h.faults.ended(msg.fault(), msg.atNanos());
    }
    return Behaviors.same();
  }

  /** metrics-crash: the period's counts so far are lost (see the class). */
  private Behavior<Command> onCrash(Crash msg) {
    long at = Math.max(run.now(), msg.atNanos());
    ports.drain(h, run.now(), run.causality().generation(), false); // what came before the crash: then lost with it
    h.losePeriod();
    msg.outcomes().tell(new FaultInjector.Healed(msg.fault(), at)); // restarted at once
    getContext().getLog().warn("metrics hub crashes at {} s (fault {}); supervision restarts it", at / 1e9,
        msg.fault());
    throw new Crashed("metrics hub", msg.fault());
  }

  private Behavior<Command> onLive(Live msg) {
    List<String> names = new ArrayList<>();
    for (VmInfo vm : vms) names.add(vm.name());
    msg.replyTo().tell(new LiveView(run.now(), names, h.liveFps.clone(), h.liveShare.clone()));
    return Behaviors.same();
  }

  private Behavior<Command> onFinish(Finish msg) {
    run.disarm(timers, TICK);
    h.tickDue = -1;
    // every report up to the run's end, the level it was frozen at (none: all), as the messages up to it were handled
    Frontier.Level end = run.causality().frontier() == null ? Frontier.Level.TOP : run.causality().frontier().cap();
    ports.drain(h, end.stamp(), end.generation(), true);
    long now = run.now();
    if (now > h.periodStart) emitRows(now);
    h.queue.complete();
    getContext().pipeToSelf(h.written, (ok, failure) -> new SinkDone(msg.replyTo(), failure));
    return Behaviors.same();
  }

  private Behavior<Command> onSinkDone(SinkDone msg) {
    List<VmMetrics> out = new ArrayList<>();
    for (int v = 0; v < vms.size(); v++) out.add(h.vmMetrics(v));
    long median = h.latency.medianNanos();
    String failure = msg.failure() == null ? null : String.valueOf(msg.failure().getMessage());
    msg.replyTo().tell(new FinalMetrics(out, median, h.rows, h.dropped, failure,
        h.faults == null ? Map.of() : h.faults.recoveries()));
    return Behaviors.stopped();
  }

  /** One row per VM for the period that ends at {@code end}. */
  private void emitRows(long end) {
    for (Map<String, Object> row : TimelineRows.period(h, vms, end)) offer(row);
  }

  private void offer(Map<String, Object> row) {
    try {
      QueueOfferResult r = h.queue.offer(json.writeValueAsString(row));
      if (r == QueueOfferResult.enqueued()) h.rows++; else h.dropped++;
    } catch (JsonProcessingException e) {
      h.dropped++;
    }
  }

}
