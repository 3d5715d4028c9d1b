package org.gpuemu.emulator.vm;

import java.util.ArrayList;
import java.util.List;
import org.gpuemu.emulator.clock.Timed;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.gpu.GpuMemory;
import org.gpuemu.emulator.host.CpuScheduler;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.run.RunContext;
import org.gpuemu.policies.memory.MemoryDecision;
import org.gpuemu.workloads.MemoryAware;
import org.gpuemu.workloads.Program;
import org.gpuemu.workloads.Step;

/**
 * A virtual CPU executing a guest program step by step. CPU bursts need its physical core (the CpuScheduler);
 * asynchronous GPU launches return at once; a synchronous call blocks it: polling keeps the core spinning until
 * the answer, hybrid spinning spins up to the spin limit, then blocks and yields the core and must get the core
 * back (a wake-up) when the answer comes. Flush blocks without the core; so does Present, unless the VM's
 * {@code present-wait} is {@code poll}: then the vCPU spins on its core while Present is blocked and goes on once
 * the core has let it see the answer (a Windows guest's Direct3D runtime polling the GPU at its render-ahead limit).
 */
public final class VCpu extends AbstractBehavior<VCpu.Command> {

  public sealed interface Command {}

  /** Start executing (the guardian sends it at the VM's start time). */
  public enum Start implements Command { INSTANCE }

  /** Stop after the current step. {@code replyTo} hears {@link Stopped} once no step is in progress. */
  public record Stop(ActorRef<Stopped> replyTo) implements Command {}

  /** The synchronous call's work completed at emulated time {@code atNanos}. */
  public record SyncReturned(long atNanos) implements Command {}

  /**
   * The Present returned, at emulated time {@code atNanos} (the event that released it: the Present itself or the
   * completion that made room), or -1 when the answer was timed by the wall clock (a guest agent that slept or
   * waited for its controller).
   */
  public record PresentReturned(long atNanos) implements Command {
    public static final PresentReturned UNTIMED = new PresentReturned(-1);
  }

  public enum FlushReturned implements Command { INSTANCE }

  public record Report(ActorRef<VcpuReport> replyTo) implements Command {}

  /**
   * The GPU scheduler switched to this VM's vGPU and needs this vCPU running (FairGV's GPU-centric coscheduling,
   * Algorithm 4): a vCPU blocked after hybrid spinning is woken to spin again, and its core runs it now.
   */
  public record Coschedule(long atNanos) implements Command {}

  private record CpuDone(CpuScheduler.Done done) implements Command {}

  private record MemoryAnswered(GpuMemory.Answer answer) implements Command {}

  private record SleepEnded(long due) implements Command, Timed {}

  private enum Continue implements Command { INSTANCE }

  public record Stopped(int vcpu) {}

  /**
   * Final figures of this vCPU; requests here are the memory calls it made itself. {@code memoryRefused} counts the
   * refusals a memory-aware guest handled (they are among the completed, not the failed: see
   * {@link #onMemoryAnswered}); {@code objectReturns} is what its guest driver reports (gballoon.txt §3.1);
   * {@code programNanos} how long its program ran from its first step to its end (-1: it had not ended).
   */
  public record VcpuReport(int vm, int vcpu, long ranNanos, long stealNanos, long memorySubmitted,
      long memoryCompleted, long memoryFailed, List<String> failures, long maxStallNanos, long steps,
      long memoryRefused, long objectReturns, long programNanos) {
    /** A report without memory refusals, object returns or a program end. */
    public VcpuReport(int vm, int vcpu, long ranNanos, long stealNanos, long memorySubmitted, long memoryCompleted,
        long memoryFailed, List<String> failures, long maxStallNanos, long steps) {
      this(vm, vcpu, ranNanos, stealNanos, memorySubmitted, memoryCompleted, memoryFailed, failures, maxStallNanos,
          steps, 0, 0, -1);
    }
  }

  /** CPU time a blocked vCPU needs on its core to notice its answer and go on. */
  static final long WAKE_NANOS = 1_000;
  private static final int ASYNC_BATCH = 64;
  private static final int MAX_REASONS = 10;
  private static final Object SLEEP = "sleep";

  private enum Wait { NONE, CPU, SYNC_SPIN, SYNC_BLOCKED, SYNC_WAKING, PRESENT, FLUSH, MEMORY, SLEEP }

  private final int vm;
  private final int vcpu;
  private final Settings.Vm settings;
  private final Program program;
  private final RunContext run;
  private final TimerScheduler<Command> timers;
  private final ActorRef<CpuScheduler.Command> core;
  private final ActorRef<VGpu.Command> vgpu;
  private final ActorRef<GuestAgent.Command> agent;
  private final ActorRef<GpuMemory.Command> memory;
  private final ActorRef<MetricsHub.Command> metrics;
  private final Reports reports;
  private final ActorRef<CpuScheduler.Done> cpuAdapter;
  private final ActorRef<GpuMemory.Answer> memoryAdapter;
  private final List<String> failures = new ArrayList<>();
  private Wait wait = Wait.NONE;
  private boolean answered;
  /** Present is blocked and the vCPU spins on its core for it ({@code present-wait = poll}). */
  private boolean presentSpinning;
  private boolean running;
  private ActorRef<Stopped> stopRequested;
  private long stepStarted;
  private long lastPresent = -1;
  /**
   * The model time of the event this vCPU last acted on (a CPU burst's end, a kernel's completion, a sleep's
   * due time): the next step starts then, not when the message about it arrived, so message latency does not
   * become emulated time (DESIGN.md §4: chain from due times). Never after the clock's now.
   */
  private long clock;
  private long ran;
  private long steal;
  private long memSubmitted;
  private long memCompleted;
  private long memFailed;
  private long memRefused;
  private long programStarted = -1;
  private long programEnded = -1;
  private long maxStall;
  private long steps;
  private long memorySeq;

  /** A vCPU; {@code program} is null for a vCPU with nothing to run (the VM's other vCPUs). */
  /**
   * Which of its CPU figures a vCPU reports as it goes, after every CPU slice: its CPU time to the GPU scheduler
   * (VMCG's slices) and its steal time to the GPU memory (gBalloon's W). Only the policies that use them ask: they
   * would be two messages per CPU burst on the hot path otherwise.
   */
  public record Reports(boolean cpuTime, boolean steal) {
    public static final Reports NONE = new Reports(false, false);
  }

  public static Behavior<Command> create(int vcpu, Settings.Vm settings, Program program, RunContext run,
      ActorRef<CpuScheduler.Command> core, ActorRef<VGpu.Command> vgpu, ActorRef<GuestAgent.Command> agent,
      ActorRef<GpuMemory.Command> memory, ActorRef<MetricsHub.Command> metrics, Reports reports) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers ->
        run.causal(new VCpu(ctx, vcpu, settings, program, run, timers, core, vgpu, agent, memory, metrics, reports))));
  }

  private VCpu(ActorContext<Command> ctx, int vcpu, Settings.Vm settings, Program program, RunContext run,
      TimerScheduler<Command> timers, ActorRef<CpuScheduler.Command> core, ActorRef<VGpu.Command> vgpu,
      ActorRef<GuestAgent.Command> agent, ActorRef<GpuMemory.Command> memory, ActorRef<MetricsHub.Command> metrics,
      Reports reports) {
    super(ctx);
    this.reports = reports;
    this.vm = settings.index();
    this.vcpu = vcpu;
    this.settings = settings;
    this.program = program;
    this.run = run;
    this.timers = timers;
    this.core = core;
    this.vgpu = vgpu;
    this.agent = agent;
    this.memory = memory;
    this.metrics = metrics;
    this.cpuAdapter = ctx.messageAdapter(CpuScheduler.Done.class, CpuDone::new);
    this.memoryAdapter = ctx.messageAdapter(GpuMemory.Answer.class, MemoryAnswered::new);
  }

  @Override public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Start.class, m -> onStart())
        .onMessage(Continue.class, m -> step())
        .onMessage(Stop.class, this::onStop)
        .onMessage(CpuDone.class, this::onCpuDone)
        .onMessage(SyncReturned.class, this::onSyncReturned)
        .onMessage(PresentReturned.class, this::onPresentReturned)
        .onMessage(FlushReturned.class, m -> {
          clock = Math.max(clock, run.now());
          return resume();
        })
        .onMessage(MemoryAnswered.class, this::onMemoryAnswered)
        .onMessage(SleepEnded.class, this::onSleepEnded)
        .onMessage(Report.class, this::onReport)
        .onMessage(Coschedule.class, this::onCoschedule)
        .build();
  }

  private Behavior<Command> onStart() {
    running = program != null;
    clock = Math.max(clock, run.now());
    return step();
  }

  private Behavior<Command> onStop(Stop msg) {
    stopRequested = msg.replyTo();
    if (wait == Wait.SLEEP) {
      timers.cancel(SLEEP);
      wait = Wait.NONE;
    }
    if (wait == Wait.NONE) stopNow();
    return this;
  }

  private Behavior<Command> onCpuDone(CpuDone msg) {
    ran += msg.done().ranNanos();
    steal += msg.done().stealNanos();
    clock = Math.max(clock, msg.done().endNanos());
    if (reports.cpuTime() && msg.done().ranNanos() > 0) vgpu.tell(new VGpu.CpuTime(msg.done().ranNanos()));
    if (reports.steal() && msg.done().stealNanos() > 0) {
      memory.tell(new GpuMemory.Steal(vm, vcpu, msg.done().stealNanos()));
    }
    switch (wait) {
      case CPU, SYNC_WAKING -> {
        return resume();
      }
      case SYNC_SPIN -> {
        if (answered) return resume();
        wait = Wait.SYNC_BLOCKED; // hybrid spin ran out: block and give the core away
        return this;
      }
      case PRESENT -> {
        if (!presentSpinning || !answered) return this;
        presentSpinning = false; // the spin saw Present return
        return presentDone(clock);
      }
      default -> {
        return this;
      }
    }
  }

  private Behavior<Command> onSyncReturned(SyncReturned msg) {
    answered = true;
    clock = Math.max(clock, msg.atNanos());
    if (wait == Wait.SYNC_SPIN) {
      core.tell(new CpuScheduler.Finish(vcpu, clock));
    } else if (wait == Wait.SYNC_BLOCKED) {
      wait = Wait.SYNC_WAKING;
      core.tell(new CpuScheduler.Run(vcpu, settings.weight(), WAKE_NANOS, cpuAdapter, clock));
    }
    return this;
  }

  /** The GPU scheduler switched to this vCPU's vGPU at the model time the message carries (Algorithm 4). */
  private Behavior<Command> onCoschedule(Coschedule msg) {
    // the core acts at the switch's time; the vCPU's own clock moves only with what it runs (its next CpuDone)
    long at = Math.max(clock, msg.atNanos());
    switch (wait) {
      case SYNC_BLOCKED -> {
        // wakeup_vcpu: spin again, holding the core, until the answer or the spin limit
        wait = Wait.SYNC_SPIN;
        boolean poll = settings.syncWait() == Settings.SyncWait.POLL;
        core.tell(new CpuScheduler.Run(vcpu, settings.weight(), poll ? Long.MAX_VALUE : settings.spinLimitNanos(),
            cpuAdapter, at));
        core.tell(new CpuScheduler.Boost(vcpu, at));
      }
      case CPU, SYNC_SPIN, SYNC_WAKING -> core.tell(new CpuScheduler.Boost(vcpu, at));
      default -> { }
    }
    return this;
  }

  private Behavior<Command> onPresentReturned(PresentReturned msg) {
    long now = msg.atNanos() >= 0 ? msg.atNanos() : run.now();
    clock = Math.max(clock, now);
    if (presentSpinning) {
      answered = true;
      core.tell(new CpuScheduler.Finish(vcpu, clock)); // goes on once the spin is on the core and sees it
      return this;
    }
    return presentDone(now);
  }

  /** Present has returned to the guest at {@code now}: a frame. */
  private Behavior<Command> presentDone(long now) {
    if (lastPresent >= 0) metrics.tell(new MetricsHub.Frame(vm, now - lastPresent));
    lastPresent = now;
    return resume();
  }

  private Behavior<Command> onMemoryAnswered(MemoryAnswered msg) {
    if (msg.answer().decision() instanceof MemoryDecision.Rejected rejected && program instanceof MemoryAware) {
      // Not a failure: the guest driver handles the refusal by returning memory objects and runs on, slower
      // (gballoon.txt §3.1: the returns are what it reports, and what gBalloon expands on). It is an answer.
      memCompleted++;
      memRefused++;
      getContext().getLog().debug("vm {} memory request refused: {}", settings.name(), rejected.reason());
    } else if (msg.answer().decision() instanceof MemoryDecision.Rejected rejected) {
      memFailed++;
      if (failures.size() < MAX_REASONS) failures.add(rejected.reason());
      getContext().getLog().info("vm {} memory request failed: {}", settings.name(), rejected.reason());
    } else {
      memCompleted++;
    }
    metrics.tell(new MetricsHub.MemoryHeld(vm, msg.answer().heldBytes()));
    // a memory-aware guest (gBalloon's 3D apps) slows with what it lacks
    if (program instanceof MemoryAware aware) aware.held(msg.answer().heldBytes());
    clock = Math.max(clock, run.now());
    return resume();
  }

  private Behavior<Command> onSleepEnded(SleepEnded msg) {
    clock = Math.max(clock, run.fired(msg.due()));
    wait = Wait.NONE;
    return stopRequested != null ? stopNow() : step();
  }

  private Behavior<Command> onReport(Report msg) {
    long returns = program instanceof MemoryAware aware ? aware.returns() : 0;
    long programNanos = programEnded >= 0 ? programEnded - programStarted : -1;
    msg.replyTo().tell(new VcpuReport(vm, vcpu, ran, steal, memSubmitted, memCompleted, memFailed,
        List.copyOf(failures), maxStall, steps, memRefused, returns, programNanos));
    return this;
  }

  /** A blocking step finished: note how long it blocked, then go on. */
  private Behavior<Command> resume() {
    maxStall = Math.max(maxStall, clock - stepStarted);
    wait = Wait.NONE;
    return stopRequested != null ? stopNow() : step();
  }

  private Behavior<Command> stopNow() {
    running = false;
    if (stopRequested != null) stopRequested.tell(new Stopped(vcpu));
    stopRequested = null;
    return this;
  }

  /** Executes steps until one blocks; yields after a run of asynchronous ones so other messages get in. */
  private Behavior<Command> step() {
    for (int i = 0; running && i < ASYNC_BATCH; i++) {
      long now = clock;
      if (programStarted < 0) programStarted = now;
      Step s = program.next(now);
      if (s == null) {
        if (programEnded < 0) programEnded = now;
        running = false;
        return this;
      }
      steps++;
      stepStarted = now;
      if (!execute(s, now)) return this;
    }
    if (running) getContext().getSelf().tell(Continue.INSTANCE);
    return this;
  }

  /** Starts one step; true when it completed at once (asynchronous). */
  private boolean execute(Step s, long now) {
    if (s instanceof Step.CpuBurst b) {
      wait = Wait.CPU;
      core.tell(new CpuScheduler.Run(vcpu, settings.weight(), b.nanos(), cpuAdapter, now));
      return false;
    } else if (s instanceof Step.LaunchKernel l) {
      vgpu.tell(new VGpu.Launch(l.kernel(), vcpu, now));
      return true;
    } else if (s instanceof Step.SyncCall c) {
      vgpu.tell(new VGpu.Sync(c.kernel(), vcpu, getContext().getSelf(), now));
      answered = false;
      boolean poll = settings.syncWait() == Settings.SyncWait.POLL;
      if (!poll && settings.spinLimitNanos() == 0) {
        wait = Wait.SYNC_BLOCKED;
      } else {
        wait = Wait.SYNC_SPIN;
        core.tell(new CpuScheduler.Run(vcpu, settings.weight(), poll ? Long.MAX_VALUE : settings.spinLimitNanos(),
            cpuAdapter, now));
      }
      return false;
    } else if (s instanceof Step.Present p) {
      wait = Wait.PRESENT;
      agent.tell(new GuestAgent.Present(getContext().getSelf(), p.tail(), clock));
      if (settings.presentWait() == Settings.PresentWait.POLL) {
        presentSpinning = true;
        answered = false;
        core.tell(new CpuScheduler.Run(vcpu, settings.weight(), Long.MAX_VALUE, cpuAdapter, now));
      }
      return false;
    } else if (s instanceof Step.Flush) {
      wait = Wait.FLUSH;
      vgpu.tell(new VGpu.Flush(getContext().getSelf()));
      return false;
    } else if (s instanceof Step.Malloc m) {
      wait = Wait.MEMORY;
      memSubmitted++;
      memory.tell(new GpuMemory.Allocate(vm, memorySeq++, m.bytes(), memoryAdapter));
      return false;
    } else if (s instanceof Step.Free f) {
      memSubmitted++;
      memCompleted++;
      memory.tell(new GpuMemory.Free(vm, f.bytes()));
      return true;
    } else if (s instanceof Step.Sleep z) {
      wait = Wait.SLEEP;
      long due = now + z.nanos();
      run.arm(timers, SLEEP, new SleepEnded(due), due);
      return false;
    }
    throw new IllegalStateException("unknown step " + s);
  }
}
