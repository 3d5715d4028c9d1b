package org.gpuemu.emulator.vm;

import org.gpuemu.emulator.clock.Timed;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.gpu.CoscheduleRouter;
import org.gpuemu.emulator.gpu.GpuMemory;
import org.gpuemu.emulator.cpu.CpuScheduler;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.clock.RunContext;
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
  private record Coscheduled(CoscheduleRouter.Coschedule coschedule) implements Command {}

  private record CpuDone(CpuScheduler.Done done) implements Command {}

  private record MemoryAnswered(GpuMemory.Answer answer) implements Command {}

  private record SleepEnded(long due) implements Command, Timed {}

  private enum Continue implements Command { INSTANCE }

  public record Stopped(int vcpu, int vm) {}

  private static final int ASYNC_BATCH = 64;
  private static final Object SLEEP = "sleep";

  private enum Wait { NONE, CPU, SYNC_SPIN, SYNC_BLOCKED, SYNC_WAKING, PRESENT, FLUSH, MEMORY, SLEEP }

  private final int vcpu;
  private final Program program;
  private final RunContext run;
  private final TimerScheduler<Command> timers;
  private final VcpuCalls calls;
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
  private long programStarted = -1;
  private long programEnded = -1;
  private long maxStall;
  private long steps;
  /** A batch of asynchronous steps goes on in a Continue at this model time. */
  private boolean continuePending;

  public static Behavior<Command> create(int vcpu, Settings.Vm settings, Program program, RunContext run,
      ActorRef<CpuScheduler.Command> core, ActorRef<VGpu.Command> vgpu, ActorRef<GuestAgent.Command> agent,
      ActorRef<GpuMemory.Command> memory, ActorRef<MetricsHub.Command> metrics, VcpuReports reports,
      ActorRef<CoscheduleRouter.VcpuJoin> coscheduler) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> run.causal(new VCpu(ctx, vcpu, settings, program,
        run, timers, core, vgpu, agent, memory, metrics, reports, coscheduler))));
  }

  private VCpu(ActorContext<Command> ctx, int vcpu, Settings.Vm settings, Program program, RunContext run,
      TimerScheduler<Command> timers, ActorRef<CpuScheduler.Command> core, ActorRef<VGpu.Command> vgpu,
      ActorRef<GuestAgent.Command> agent, ActorRef<GpuMemory.Command> memory, ActorRef<MetricsHub.Command> metrics,
      VcpuReports reports, ActorRef<CoscheduleRouter.VcpuJoin> coscheduler) {
    super(ctx);
    this.vcpu = vcpu;
    this.program = program;
    this.run = run;
    this.timers = timers;
    this.calls = new VcpuCalls(vcpu, settings, ctx.getSelf(), core,
        ctx.messageAdapter(CpuScheduler.Done.class, CpuDone::new), vgpu, agent, memory,
        ctx.messageAdapter(GpuMemory.Answer.class, MemoryAnswered::new), metrics, reports,
        program instanceof MemoryAware, ctx.getLog());
    if (coscheduler != null) {
      coscheduler.tell(new CoscheduleRouter.VcpuJoin(vcpu, settings.index(),
          ctx.messageAdapter(CoscheduleRouter.Coschedule.class, Coscheduled::new)));
    }
  }

  @Override public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Start.class, m -> onStart())
        .onMessage(Continue.class, m -> onContinue())
        .onMessage(Stop.class, this::onStop)
        .onMessage(CpuDone.class, this::onCpuDone)
        .onMessage(SyncReturned.class, this::onSyncReturned)
        .onMessage(PresentReturned.class, this::onPresentReturned)
        .onMessage(FlushReturned.class, m -> onAnswered())
        .onMessage(MemoryAnswered.class, this::onMemoryAnswered)
        .onMessage(SleepEnded.class, this::onSleepEnded)
        .onMessage(Report.class, this::onReport)
        .onMessage(Coscheduled.class, this::onCoschedule)
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
      run.disarm(timers, SLEEP);
      wait = Wait.NONE;
    }
    if (wait == Wait.NONE) stopNow();
    return this;
  }

  private Behavior<Command> onCpuDone(CpuDone msg) {
    calls.requestEnded();
    Behavior<Command> next = afterCpuDone(msg);
    if (!continuePending) calls.settle(clock);
    return next;
  }

  private Behavior<Command> onContinue() {
    continuePending = false;
    Behavior<Command> next = step();
    if (!continuePending) calls.settle(clock);
    return next;
  }

  private Behavior<Command> afterCpuDone(CpuDone msg) {
    ran += msg.done().ranNanos();
    steal += msg.done().stealNanos();
    clock = Math.max(clock, msg.done().endNanos());
    calls.sliceEnded(msg.done());
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
      calls.finish(clock);
    } else if (wait == Wait.SYNC_BLOCKED) {
      wait = Wait.SYNC_WAKING;
      calls.wake(clock);
    }
    return this;
  }

  /** The GPU scheduler switched to this vCPU's vGPU at the model time the message carries (Algorithm 4). */
  private Behavior<Command> onCoschedule(Coscheduled msg) {
    // the core acts at the switch's time; the vCPU's own clock moves only with what it runs (its next CpuDone)
    long at = Math.max(clock, msg.coschedule().atNanos());
    switch (wait) {
      case SYNC_BLOCKED -> {
        // wakeup_vcpu: spin again, holding the core, until the answer or the spin limit
        wait = Wait.SYNC_SPIN;
        calls.spin(at);
        calls.boost(at);
      }
      case CPU, SYNC_SPIN, SYNC_WAKING -> calls.boost(at);
      default -> { }
    }
    return this;
  }

  private Behavior<Command> onPresentReturned(PresentReturned msg) {
    long now = msg.atNanos() >= 0 ? msg.atNanos() : run.now();
    clock = Math.max(clock, now);
    if (presentSpinning) {
      answered = true;
      calls.finish(clock); // goes on once the spin is on the core and sees it
      return this;
    }
    return presentDone(now);
  }

  /** Present has returned to the guest at {@code now}: a frame. */
  private Behavior<Command> presentDone(long now) {
    if (lastPresent >= 0) calls.frame(now - lastPresent);
    lastPresent = now;
    return resume();
  }

  private Behavior<Command> onMemoryAnswered(MemoryAnswered msg) {
    calls.memoryAnswered(msg.answer());
    // a memory-aware guest (gBalloon's 3D apps) slows with what it lacks
    if (program instanceof MemoryAware aware) aware.held(msg.answer().heldBytes());
    return onAnswered();
  }

  /** An unstamped answer (a flush, a memory call): the guest goes on at the model time it arrived. */
  private Behavior<Command> onAnswered() {
    clock = Math.max(clock, run.now());
    return resume();
  }

  private Behavior<Command> onSleepEnded(SleepEnded msg) {
    clock = Math.max(clock, run.fired(msg.due()));
    wait = Wait.NONE;
    return stopRequested != null ? stopNow() : step();
  }

  private Behavior<Command> onReport(Report msg) {
    long programNanos = programEnded >= 0 ? programEnded - programStarted : -1;
    msg.replyTo().tell(calls.report(program, ran, steal, maxStall, steps, programNanos));
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
    if (stopRequested != null) stopRequested.tell(new Stopped(vcpu, calls.vm()));
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
    if (running) {
      continuePending = true;
      getContext().getSelf().tell(Continue.INSTANCE);
    }
    return this;
  }

  /** Starts one step; true when it completed at once (asynchronous). */
  private boolean execute(Step s, long now) {
    if (s instanceof Step.CpuBurst b) {
      wait = Wait.CPU;
      calls.cpu(b.nanos(), now);
    } else if (s instanceof Step.LaunchKernel l) {
      calls.launch(l.kernel(), now);
      return true;
    } else if (s instanceof Step.SyncCall c) {
      calls.sync(c.kernel(), now);
      answered = false;
      wait = calls.syncSpins() ? Wait.SYNC_SPIN : Wait.SYNC_BLOCKED;
      if (wait == Wait.SYNC_SPIN) calls.spin(now);
    } else if (s instanceof Step.Present p) {
      wait = Wait.PRESENT;
      calls.present(p.tail(), clock);
      if (calls.presentSpins()) {
        presentSpinning = true;
        answered = false;
        calls.spinUntilFinished(now);
      }
    } else if (s instanceof Step.Flush) {
      wait = Wait.FLUSH;
      calls.flush();
    } else if (s instanceof Step.Malloc m) {
      wait = Wait.MEMORY;
      calls.allocate(m.bytes());
    } else if (s instanceof Step.Free f) {
      calls.free(f.bytes());
      return true;
    } else if (s instanceof Step.Sleep z) {
      wait = Wait.SLEEP;
      long due = now + z.nanos();
      run.arm(timers, SLEEP, new SleepEnded(due), due);
    } else {
      throw new IllegalStateException("unknown step " + s);
    }
    return false;
  }
}
