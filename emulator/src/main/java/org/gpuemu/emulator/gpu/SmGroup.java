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
 * first waits for the incoming vGPU's GTT copy, which {@link GpuMemory} prices and a host core runs as host work
 * (gballoon §2.2: the copy lengthens the switch, so the vGPU gets less GPU time, and takes CPU time from vCPUs).
 * Busy time of each kernel is the group time it occupied divided among its co-runners, so the vGPUs' accounted
 * times add up to the group's kernel busy time.
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

  /**
   * Where a context switch's GTT copy is priced ({@code memory}) and run ({@code cores}, in turn); null and empty when
   * the memory policy has no GTT.
   */
  public record GttCopies(ActorRef<GpuMemory.Command> memory, List<ActorRef<CpuScheduler.Command>> cores) {
    public static final GttCopies NONE = new GttCopies(null, List.of());

    public GttCopies {
      cores = List.copyOf(cores);
      if (memory != null && cores.isEmpty()) throw new IllegalArgumentException("GTT copies need a host core");
    }
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
  /** GTT copies run so far: the next one runs on core {@code copiesRun mod cores}. */
  private long copiesRun;

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
   * The copy is host work ({@link CpuScheduler.HostRun}) from the switch's model time: it preempts the vCPU running
   * on its core and runs to its end, ahead of every vCPU. Dom0's mediator "takes up the CPU time of other VMs"
   * (gballoon.txt §1), and Figure 8 has the copies cost NPB cg 19 % while Valley, whose switches wait for them, still
   * gains 4 % under gVirt-1024: the copies were not held up behind guests (a copy sharing its core fairly with two
   * busy vCPUs took three times its CPU time, and gVirt-1024 lost 44 % instead of gaining 4 %).
   *
   * <p>Which core: "one CPU processes the copying of the GTT entries" at a time (§3.2, Eq. 1), but Dom0 has a vCPU
   * on each of the host's cores (Table 1: 8 vCPUs, 8 cores) and Xen runs it wherever it balances it to, so the copy
   * time is spread over every core; Eq. 1 divides it by N for that reason. Modelled as copies taking the cores in
   * turn, so every guest sharing a core pays an equal part (with one copying core, cg paid only on that core).
   */
  private Behavior<Command> onCopyPriced(CopyPriced msg) {
    if (msg.cost().cpuNanos() > 0) {
      ActorRef<CpuScheduler.Command> core = copies.cores().get((int) (copiesRun++ % copies.cores().size()));
      core.tell(new CpuScheduler.HostRun(msg.cost().cpuNanos(), copyDone, switchAt));
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
