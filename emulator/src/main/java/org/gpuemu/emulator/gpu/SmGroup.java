package org.gpuemu.emulator.gpu;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.host.CpuScheduler;
import org.gpuemu.emulator.run.RunContext;
import org.gpuemu.workloads.KernelSpec;
import org.gpuemu.workloads.KernelType;

/**
 * A group of SMs executing kernels with the {@link FluidModel}. Kernels arrive in a hardware FIFO and start while
 * fewer than {@code maxConcurrent} run; once started a kernel runs to completion (non-preemptive GPU) though its
 * rate changes when co-runners come and go. Switching from one vGPU's context to another's costs
 * {@code contextSwitchNanos} of group time, attributed to no vGPU; with a slot memory policy (gBalloon) the switch
 * first waits for the incoming vGPU's GTT copy, which {@link GpuMemory} prices and a host core runs as CPU work
 * (gballoon §2.2: the copy lengthens the switch, so the vGPU gets less GPU time, and contends with vCPUs). Busy time of each kernel is the group time it
 * occupied divided among its co-runners, so the vGPUs' accounted times add up to the group's kernel busy time.
 */
public final class SmGroup extends AbstractBehavior<SmGroup.Command> {

  public sealed interface Command {}

  /**
   * Run a kernel for a vGPU, dispatched at emulated time {@code atNanos} (-1: on arrival); {@link Finished} goes to
   * {@code replyTo} when it completes.
   */
  public record Execute(long workId, int vgpu, KernelSpec kernel, ActorRef<Finished> replyTo, long atNanos)
      implements Command {
    public Execute(long workId, int vgpu, KernelSpec kernel, ActorRef<Finished> replyTo) {
      this(workId, vgpu, kernel, replyTo, -1);
    }
  }

  public record Report(ActorRef<GroupReport> replyTo) implements Command {}

  private record Tick(long token, long due) implements Command {}

  private record CopyPriced(GpuMemory.CopyCost cost) implements Command {}

  private record CopyDone(CpuScheduler.Done done) implements Command {}

  /** The CPU scheduler's name for the host's GTT copying (Dom0 in gVirt): no VM's vCPU. */
  static final int GTT_COPIER = -1;

  /** Where a context switch's GTT copy is priced and run; null fields when the memory policy has no GTT. */
  public record GttCopies(ActorRef<GpuMemory.Command> memory, ActorRef<CpuScheduler.Command> core) {
    public static final GttCopies NONE = new GttCopies(null, null);
  }

  /** A kernel completed; {@code gpuNanos} is the group time accounted to it. */
  public record Finished(long workId, int vgpu, long gpuNanos, long startedNanos, long finishedNanos) {}

  /** Final figures of the group; {@code lastEventNanos} is when it last changed (drain after the end included). */
  public record GroupReport(int sms, long kernelBusyNanos, long switchNanos, long contextSwitches,
      long kernelsCompleted, long medianKernelNanos, long lastEventNanos) {}

  private static final Object TICK = "tick";
  private static final double DONE_EPSILON = 0.5; // half a nanosecond of work left counts as done

  private static final class Running {
    final Execute request;
    final KernelType type;
    final long started;
    double remaining;
    double accounted;

    Running(Execute request, double work, long started) {
      this.request = request;
      this.type = request.kernel().type();
      this.remaining = work;
      this.started = started;
    }
  }

  private final int sms;
  private final int totalSms;
  private final int maxConcurrent;
  private final long contextSwitchNanos;
  private final FluidModel model;
  private final RunContext run;
  private final TimerScheduler<Command> timers;
  private final ArrayDeque<Execute> fifo = new ArrayDeque<>();
  private final List<Running> running = new ArrayList<>();
  /**
   * Kernel durations weighted by their GPU time (one count per started microsecond), so that the median is the
   * kernel length half of the GPU's time went to: the fidelity reference. Counted per kernel, a workload's many
   * 1 us transfers (FairGV's synchronous copies) would make the median a transfer and the limit unreachable.
   */
  private final org.HdrHistogram.Histogram kernelDurations = new org.HdrHistogram.Histogram(3_600_000_000_000L, 2);
  private long last;
  private long token;
  private int context = -1;
  private long switchingUntil = -1;
  private long kernelBusy;
  private long switchTime;
  private long switches;
  private long completed;
  private final GttCopies copies;
  private final ActorRef<GpuMemory.CopyCost> copyPriced;
  private final ActorRef<CpuScheduler.Done> copyDone;
  /** A switch waiting for its GTT copy: no timer until the copy is done. */
  private static final long COPYING = Long.MAX_VALUE;
  /** When the switch waiting for its GTT copy began (the copy's model start time). */
  private long switchAt;

  public static Behavior<Command> create(int sms, int totalSms, int maxConcurrent, long contextSwitchNanos,
      FluidModel model, RunContext run) {
    return create(sms, totalSms, maxConcurrent, contextSwitchNanos, model, GttCopies.NONE, run);
  }

  public static Behavior<Command> create(int sms, int totalSms, int maxConcurrent, long contextSwitchNanos,
      FluidModel model, GttCopies copies, RunContext run) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(
        timers -> new SmGroup(ctx, sms, totalSms, maxConcurrent, contextSwitchNanos, model, copies, run, timers)));
  }

  private SmGroup(ActorContext<Command> ctx, int sms, int totalSms, int maxConcurrent, long contextSwitchNanos,
      FluidModel model, GttCopies copies, RunContext run, TimerScheduler<Command> timers) {
    super(ctx);
    this.copies = copies;
    this.copyPriced = ctx.messageAdapter(GpuMemory.CopyCost.class, CopyPriced::new);
    this.copyDone = ctx.messageAdapter(CpuScheduler.Done.class, CopyDone::new);
    this.sms = sms;
    this.totalSms = totalSms;
    this.maxConcurrent = maxConcurrent;
    this.contextSwitchNanos = contextSwitchNanos;
    this.model = model;
    this.run = run;
    this.timers = timers;
  }

  @Override public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Execute.class, this::onExecute)
        .onMessage(Tick.class, this::onTick)
        .onMessage(CopyPriced.class, this::onCopyPriced)
        .onMessage(CopyDone.class, this::onCopyDone)
        .onMessage(Report.class, this::onReport)
        .build();
  }

  private Behavior<Command> onExecute(Execute msg) {
    long now = Math.max(last, msg.atNanos() >= 0 ? msg.atNanos() : run.now());
    advance(now);
    finishDone(now);
    fifo.add(msg);
    startQueued(now);
    rearm(now);
    return this;
  }

  private Behavior<Command> onTick(Tick msg) {
    if (msg.token() != token) return this;
    long now = Math.max(last, run.fired(msg.due()));
    advance(now);
    finishDone(now);
    if (switchingUntil >= 0 && now >= switchingUntil) switchingUntil = -1;
    startQueued(now);
    rearm(now);
    return this;
  }

  /**
   * The copy runs on the mediator's core from the switch's model time and preempts the vCPU running there: Dom0's
   * mediator "takes up the CPU time of other VMs" (gballoon.txt §1), and Figure 8 has the copies cost NPB cg 19 %
   * while Valley, whose switches wait for them, still gains 4 %, so the copies were not held up behind guests.
   */
  private Behavior<Command> onCopyPriced(CopyPriced msg) {
    if (msg.cost().cpuNanos() > 0) {
      copies.core().tell(new CpuScheduler.Run(GTT_COPIER, 1, msg.cost().cpuNanos(), copyDone, switchAt));
      copies.core().tell(new CpuScheduler.Boost(GTT_COPIER));
    } else {
      switchCopied(Math.max(last, switchAt));
    }
    return this;
  }

  private Behavior<Command> onCopyDone(CopyDone msg) {
    copies.memory().tell(new GpuMemory.CopyTime(msg.done().ranNanos()));
    switchCopied(Math.max(last, msg.done().endNanos()));
    return this;
  }

  /** The incoming context's GTT is in place: the switch itself takes its fixed cost from now. */
  private void switchCopied(long now) {
    advance(now);
    switchingUntil = now + contextSwitchNanos;
    if (contextSwitchNanos == 0) switchingUntil = -1;
    startQueued(now);
    rearm(now);
  }

  private Behavior<Command> onReport(Report msg) {
    long median = kernelDurations.getTotalCount() == 0 ? 0 : kernelDurations.getValueAtPercentile(50);
    msg.replyTo().tell(new GroupReport(sms, kernelBusy, switchTime, switches, completed, median, last));
    return this;
  }

  /** Moves the fluid model from {@code last} to {@code now}. */
  private void advance(long now) {
    long dt = now - last;
    if (dt <= 0) return;
    if (switchingUntil >= 0) {
      switchTime += Math.min(dt, Math.max(0, switchingUntil - last));
    }
    if (!running.isEmpty()) {
      double[] rates = model.rates(types());
      for (int i = 0; i < running.size(); i++) {
        Running k = running.get(i);
        k.remaining -= dt * rates[i];
        k.accounted += (double) dt / running.size();
      }
      kernelBusy += dt;
    }
    last = now;
  }

  private void finishDone(long now) {
    for (var it = running.iterator(); it.hasNext(); ) {
      Running k = it.next();
      if (k.remaining > DONE_EPSILON) continue;
      it.remove();
      completed++;
      long gpu = Math.round(k.accounted);
      long took = Math.max(1, now - k.started);
      kernelDurations.recordValueWithCount(took, 1 + took / 1_000);
      Execute e = k.request;
      e.replyTo().tell(new Finished(e.workId(), e.vgpu(), gpu, k.started, now));
    }
  }

  private void startQueued(long now) {
    while (!fifo.isEmpty() && running.size() < maxConcurrent && switchingUntil < 0) {
      Execute next = fifo.peek();
      if (context != next.vgpu() && context >= 0 && (contextSwitchNanos > 0 || copies.memory() != null)) {
        if (!running.isEmpty()) return; // a context switch waits for the group to drain
        context = next.vgpu();
        switches++;
        if (copies.memory() != null) {
          switchingUntil = COPYING;
          switchAt = now;
          copies.memory().tell(new GpuMemory.SwitchTo(next.vgpu(), copyPriced));
        } else {
          switchingUntil = now + contextSwitchNanos;
        }
        return;
      }
      if (context != next.vgpu()) {
        if (context >= 0) switches++;
        context = next.vgpu();
      }
      fifo.poll();
      running.add(new Running(next, FluidModel.workNanos(next.kernel().soloNanos(), sms, totalSms), now));
    }
  }

  private void rearm(long now) {
    long due;
    if (switchingUntil == COPYING) {
      timers.cancel(TICK);
      token++;
      return;
    } else if (switchingUntil >= 0) {
      due = switchingUntil;
    } else if (running.isEmpty()) {
      timers.cancel(TICK);
      token++;
      return;
    } else {
      double[] rates = model.rates(types());
      double soonest = Double.MAX_VALUE;
      for (int i = 0; i < running.size(); i++) {
        soonest = Math.min(soonest, running.get(i).remaining / rates[i]);
      }
      due = now + (long) Math.ceil(soonest);
    }
    run.arm(timers, TICK, new Tick(++token, due), due);
  }

  private List<KernelType> types() {
    List<KernelType> t = new ArrayList<>(running.size());
    for (Running k : running) t.add(k.type);
    return t;
  }
}
