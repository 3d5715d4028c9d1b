package org.gpuemu.emulator.metrics;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.gpuemu.emulator.clock.Timed;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.BoundedSourceQueue;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.QueueOfferResult;
import org.apache.pekko.stream.javadsl.FileIO;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.policies.vgris.SlaPacer;

/**
 * Collects what the guests and the GPU report (frames, GPU time, memory held), keeps the run's per-VM
 * distributions, and every metrics period emits one timeline row per VM into a bounded Pekko Streams queue whose
 * file sink runs on the stream's own I/O dispatcher, so no actor blocks on file I/O. A row the queue cannot take
 * is counted, never silently dropped.
 */
public final class MetricsHub extends AbstractBehavior<MetricsHub.Command> {

  public sealed interface Command {}

  public record Frame(int vm, long latencyNanos) implements Command {}

  public record GpuUsed(int vm, long gpuNanos) implements Command {}

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
   * frames (101 values, the first the shortest and the last the longest; empty without frames).
   */
  public record VmMetrics(long frames, long framesOverSla, long latencyP50Us, long latencyP99Us, long latencyMaxUs,
      long gpuBusyNanos, long maxMemoryBytes, List<Long> latencyCdfUs) {
    public VmMetrics {
      latencyCdfUs = List.copyOf(latencyCdfUs);
    }

    /** Without the distribution (hand-made figures). */
    public VmMetrics(long frames, long framesOverSla, long latencyP50Us, long latencyP99Us, long latencyMaxUs,
        long gpuBusyNanos, long maxMemoryBytes) {
      this(frames, framesOverSla, latencyP50Us, latencyP99Us, latencyMaxUs, gpuBusyNanos, maxMemoryBytes, List.of());
    }
  }

  public record FinalMetrics(List<VmMetrics> vms, long medianFrameNanos, long timelineRows, long timelineDropped,
      String sinkFailure) {}

  private static final Object TICK = "tick";
  private static final int QUEUE_SIZE = 4096;

  private final List<VmInfo> vms;
  private final long period;
  private final RunContext run;
  private final TimerScheduler<Command> timers;
  private final BoundedSourceQueue<String> queue;
  private final CompletionStage<?> written;
  private final ObjectMapper json = new ObjectMapper();
  private final FrameLatencies latency;
  private final long[] frames;
  private final long[] overSla;
  private final long[] busy;
  private final long[] memory;
  private final long[] maxMemory;
  private final long[] periodFrames;
  private final long[] periodBusy;
  private final long[] periodKernels;
  private final Map<Integer, Integer> slots = new java.util.HashMap<>();
  private final int[] weights;
  private MemoryProfile profile;
  private final double[] liveFps;
  private final double[] liveShare;
  private String mode = "";
  private long periodStart;
  private long rows;
  private long dropped;

  public static Behavior<Command> create(List<VmInfo> vms, long periodNanos, Path timeline, RunContext run) {
    return create(vms, periodNanos, timeline, run, TimelineTap.NONE);
  }

  /** As {@link #create(List, long, Path, RunContext)}, with {@code tap} seeing every timeline row. */
  public static Behavior<Command> create(List<VmInfo> vms, long periodNanos, Path timeline, RunContext run,
      TimelineTap tap) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(
        t -> run.observer(new MetricsHub(ctx, vms, periodNanos, timeline, run, t, tap))));
  }

  private MetricsHub(ActorContext<Command> ctx, List<VmInfo> vms, long period, Path timeline, RunContext run,
      TimerScheduler<Command> timers, TimelineTap tap) {
    super(ctx);
    this.vms = List.copyOf(vms);
    this.period = period;
    this.run = run;
    this.timers = timers;
    int n = vms.size();
    latency = new FrameLatencies(n);
    frames = new long[n];
    overSla = new long[n];
    busy = new long[n];
    memory = new long[n];
    maxMemory = new long[n];
    periodFrames = new long[n];
    periodBusy = new long[n];
    periodKernels = new long[n];
    liveFps = new double[n];
    liveShare = new double[n];
    weights = vms.stream().mapToInt(VmInfo::weight).toArray();
    Source<String, BoundedSourceQueue<String>> rowSource = Source.queue(QUEUE_SIZE);
    if (tap != TimelineTap.NONE) rowSource = rowSource.wireTap(tap::row);
    Pair<BoundedSourceQueue<String>, CompletionStage<Done>> mat = rowSource
        .map(line -> ByteString.fromString(line + "\n"))
        .toMat(FileIO.toPath(timeline), Keep.both())
        .mapMaterializedValue(p -> Pair.create(p.first(), p.second().thenApply(io -> Done.getInstance())))
        .run(Materializer.matFromSystem(ctx.getSystem()));
    queue = mat.first();
    written = mat.second();
  }

  @Override public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Frame.class, this::onFrame)
        .onMessage(GpuUsed.class, this::onGpuUsed)
        .onMessage(MemoryHeld.class, this::onMemoryHeld)
        .onMessage(Mode.class, m -> {
          mode = m.mode();
          return this;
        })
        .onMessage(Begin.class, m -> {
          run.arm(timers, TICK, new Tick(period), period);
          return this;
        })
        .onMessage(Tick.class, this::onTick)
        .onMessage(Weight.class, m -> {
          weights[m.vm()] = m.weight();
          return this;
        })
        .onMessage(Slots.class, m -> {
          slots.put(m.vm(), m.slots());
          return this;
        })
        .onMessage(MemoryProfile.class, m -> {
          profile = m;
          return this;
        })
        .onMessage(Live.class, this::onLive)
        .onMessage(Finish.class, this::onFinish)
        .onMessage(SinkDone.class, this::onSinkDone)
        .build();
  }

  private Behavior<Command> onFrame(Frame msg) {
    int v = msg.vm();
    latency.record(v, msg.latencyNanos());
    frames[v]++;
    periodFrames[v]++;
    // over the SLA's latency as VGRIS measures it: 1 s / SLA FPS in whole milliseconds (30 FPS: 33 ms; vgris.txt
    // §2, §4.1: frames "beyond 33 ms"), the same rule as the SLA-aware pacer's target
    double fps = vms.get(v).slaFps();
    if (fps > 0 && !Double.isInfinite(fps) && msg.latencyNanos() > SlaPacer.targetLatencyNanos(fps)) overSla[v]++;
    return this;
  }

  private Behavior<Command> onGpuUsed(GpuUsed msg) {
    busy[msg.vm()] += msg.gpuNanos();
    periodBusy[msg.vm()] += msg.gpuNanos();
    periodKernels[msg.vm()]++;
    return this;
  }

  private Behavior<Command> onMemoryHeld(MemoryHeld msg) {
    memory[msg.vm()] = msg.bytes();
    maxMemory[msg.vm()] = Math.max(maxMemory[msg.vm()], msg.bytes());
    return this;
  }

  private Behavior<Command> onTick(Tick msg) {
    long due = run.fired(msg.due());
    emitRows(due);
    run.arm(timers, TICK, new Tick(due + period), due + period);
    return this;
  }

  private Behavior<Command> onLive(Live msg) {
    List<String> names = new ArrayList<>();
    for (VmInfo vm : vms) names.add(vm.name());
    msg.replyTo().tell(new LiveView(run.now(), names, liveFps.clone(), liveShare.clone()));
    return this;
  }

  private Behavior<Command> onFinish(Finish msg) {
    run.disarm(timers, TICK);
    long now = run.now();
    if (now > periodStart) emitRows(now);
    queue.complete();
    getContext().pipeToSelf(written, (ok, failure) -> new SinkDone(msg.replyTo(), failure));
    return this;
  }

  private Behavior<Command> onSinkDone(SinkDone msg) {
    List<VmMetrics> out = new ArrayList<>();
    for (int v = 0; v < vms.size(); v++) out.add(latency.of(v, frames[v], overSla[v], busy[v], maxMemory[v]));
    long median = latency.medianNanos();
    String failure = msg.failure() == null ? null : String.valueOf(msg.failure().getMessage());
    msg.replyTo().tell(new FinalMetrics(out, median, rows, dropped, failure));
    return Behaviors.stopped();
  }

  /** One row per VM for the period that ends at {@code end}. */
  private void emitRows(long end) {
    double seconds = (end - periodStart) / 1e9;
    int[] gpuOf = vms.stream().mapToInt(VmInfo::gpu).toArray();
    Map<Integer, Long> totals = PerGpu.busy(gpuOf, periodBusy);
    Map<Integer, Double> lambdas = PerGpu.lambdas(gpuOf, weights, frames, periodFrames, periodKernels);
    for (int v = 0; v < vms.size(); v++) {
      long total = totals.get(vms.get(v).gpu());
      Double lambda = lambdas.get(vms.get(v).gpu());
      liveFps[v] = seconds > 0 ? periodFrames[v] / seconds : 0;
      liveShare[v] = total > 0 ? (double) periodBusy[v] / total : 0;
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("t_s", round(end / 1e9, 3));
      row.put("vm", vms.get(v).name());
      row.put("fps", round(liveFps[v], 2));
      row.put("frames", periodFrames[v]);
      row.put("gpu_share", round(liveShare[v], 4));
      row.put("gpu_busy_ms", round(periodBusy[v] / 1e6, 3));
      row.put("gpu_usage", round(seconds > 0 ? periodBusy[v] / 1e9 / seconds : 0, 4));
      row.put("mode", mode);
      row.put("memory_mb", round(memory[v] / 1048576.0, 1));
      row.put("lambda", lambda == null ? null : round(lambda, 4));
      if (slots.containsKey(v)) row.put("memory_slots", slots.get(v));
      if (profile != null) {
        row.put("w", round(profile.w(), 3));
        row.put("rcopy", round(profile.rcopy(), 3));
        row.put("f", round(profile.f(), 4));
      }
      offer(row);
      periodFrames[v] = 0;
      periodBusy[v] = 0;
      periodKernels[v] = 0;
    }
    periodStart = end;
  }

  private void offer(Map<String, Object> row) {
    try {
      QueueOfferResult r = queue.offer(json.writeValueAsString(row));
      if (r == QueueOfferResult.enqueued()) rows++; else dropped++;
    } catch (JsonProcessingException e) {
      dropped++;
    }
  }

  private static double round(double v, int digits) {
    double f = Math.pow(10, digits);
    return Math.round(v * f) / f;
  }
}
