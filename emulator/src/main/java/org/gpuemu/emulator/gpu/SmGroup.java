package org.gpuemu.emulator.gpu;

import java.util.ArrayDeque;
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
import org.gpuemu.emulator.cpu.CpuScheduler;
import org.gpuemu.emulator.clock.RunContext;
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
 *
 * <p>Space sharing (COMBO, combo.txt §5.1, §5.3): a group owns some of the GPU's SMs and may be resized to a
 * {@link Resize target}. A kernel spans SMs: an unbound kernel (the "original" version of §5.3) spreads over the SMs
 * its group owns, up to the target, and grows when the group is granted more; an SM-bound kernel ({@link Bind}
 * with {@code boundSms > 0}, Figure 8) is bound to that many SMs and, being a persistent-thread-block kernel whose
 * blocks each do an equal share, ends a full duration after its last bound SM became free: it makes no progress
 * until the group owns them all (Figure 11b). A running kernel never gives up SMs: a shrinking group hands its
 * surplus to its {@link Sibling} only as the kernels spanning it finish, and the sibling's kernels then grow onto
 * them. A {@link Resize} may also suspend the group (COMBO's exact layout change, §5.2: its kernels are
 * persistent-thread-block versions, whose blocks can stop between the original blocks they loop over): its running
 * kernels keep the work done but span no SM, so the surplus goes to the sibling at once, and no kernel starts until
 * a {@link Resume}, when they spread over the group's SMs again. Work is in SM-nanoseconds (solo duration × the
 * GPU's SMs), progressing at span × the co-location rate.
 * Simplification: co-runners in a group are taken to share their SMs whatever their spans (the co-location rates
 * of the whole set apply to each).
 */
public final class SmGroup extends AbstractBehavior<SmGroup.Command> {

  public sealed interface Command {}

  /**
   * Run a kernel for a vGPU, dispatched at emulated time {@code atNanos} (-1: on arrival); {@link Finished} goes to
   * {@code replyTo} when it completes.
   */
  public record Execute(long workId, int vgpu, KernelSpec kernel, ActorRef<Finished> replyTo, long atNanos,
      Bind bind) implements Command {
    public Execute(long workId, int vgpu, KernelSpec kernel, ActorRef<Finished> replyTo, long atNanos) {
      this(workId, vgpu, kernel, replyTo, atNanos, null);
    }

    public Execute(long workId, int vgpu, KernelSpec kernel, ActorRef<Finished> replyTo) {
      this(workId, vgpu, kernel, replyTo, -1, null);
    }
  }

  /**
   * How a space-shared kernel is placed: the layout it was dispatched under ({@code epoch}, the group's
   * {@code targetSms} then: applied first if the group has not heard of that layout yet, since the layout and the
   * kernel travel by different actors) and the SMs it is bound to ({@code boundSms}, 0: unbound, the original
   * version).
   */
  public record Bind(long epoch, int targetSms, int boundSms) {
    public Bind {
      if (targetSms < 0 || boundSms < 0) throw new IllegalArgumentException("SM counts must be >= 0");
    }
  }

  /**
   * From layout {@code epoch} on, the group is to own {@code targetSms} SMs (space sharing); older epochs are stale.
   * {@code suspend}: the group's running kernels are suspended from {@code atNanos} until a {@link Resume} (COMBO's
   * exact layout change, §5.2): they keep the work done and give up their SMs, and no queued kernel starts.
   */
  public record Resize(long epoch, int targetSms, long atNanos, boolean suspend) implements Command {
    public Resize(long epoch, int targetSms, long atNanos) {
      this(epoch, targetSms, atNanos, false);
    }
  }

  /**
   * Ends the suspension of layout {@code epoch} (or an older one) at emulated time {@code atNanos}: the suspended
   * kernels spread over what the group owns again, from where they stopped.
   */
  public record Resume(long epoch, long atNanos) implements Command {}

  /**
   * The sibling group handed over {@code sms} SMs at emulated time {@code atNanos}, under layout {@code epoch},
   * which gives the receiver {@code targetSms} (applied first if the receiver has not heard of it yet: the sibling
   * and the layout's sender are different actors).
   */
  public record Grant(int sms, long epoch, int targetSms, long atNanos) implements Command {}

  /** The group that gets this group's surplus SMs (space sharing: the render group's and the BE group's). */
  public record Sibling(ActorRef<Command> sibling) implements Command {}

  public record Report(ActorRef<GroupReport> replyTo) implements Command {}

  private record Tick(long token, long due) implements Command, Timed {}

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
      long kernelsCompleted, long medianKernelNanos, long lastEventNanos, int totalSms, double smBusyNanos) {
    /** A group that owned {@code sms} SMs all along: SM time busy = sms × busy time. */
    public GroupReport(int sms, long kernelBusyNanos, long switchNanos, long contextSwitches, long kernelsCompleted,
        long medianKernelNanos, long lastEventNanos) {
      this(sms, kernelBusyNanos, switchNanos, contextSwitches, kernelsCompleted, medianKernelNanos, lastEventNanos,
          sms, (double) sms * kernelBusyNanos);
    }
  }

  private static final Object TICK = "tick";
  private static final double DONE_EPSILON = 0.5; // half a nanosecond of work left counts as done

  private static final class Running {
    final Execute request;
    final KernelType type;
    final long started;
    /** SMs it is bound to (SM-bound version), 0 when unbound. */
    final int bound;
    /** SMs it spreads over; an unbound kernel's grows with its group, never shrinks. */
    int span;
    /** SM-nanoseconds of work left. */
    double remaining;
    double accounted;

    Running(Execute request, double work, long started, int bound, int span) {
      this.request = request;
      this.type = request.kernel().type();
      this.remaining = work;
      this.started = started;
      this.bound = bound;
      this.span = span;
    }
  }

  /** SMs owned now (space sharing changes it; otherwise fixed). */
  private int sms;
  /** SMs the current layout gives the group. */
  private int target;
  private long epoch;
  /** The layout whose {@link Resize} suspended the group, or -1: running kernels hold no SMs, none starts. */
  private long suspendedBy = -1;
  private ActorRef<Command> sibling;
  private double smBusy;
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
        timers -> run.causal(new SmGroup(ctx, sms, totalSms, maxConcurrent, contextSwitchNanos, model, copies, run, timers))));
  }

  private SmGroup(ActorContext<Command> ctx, int sms, int totalSms, int maxConcurrent, long contextSwitchNanos,
      FluidModel model, GttCopies copies, RunContext run, TimerScheduler<Command> timers) {
    super(ctx);
    this.copies = copies;
    this.copyPriced = ctx.messageAdapter(GpuMemory.CopyCost.class, CopyPriced::new);
    this.copyDone = ctx.messageAdapter(CpuScheduler.Done.class, CopyDone::new);
    this.sms = sms;
    this.target = sms;
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
        .onMessage(Resize.class, this::onResize)
        .onMessage(Grant.class, this::onGrant)
        .onMessage(Resume.class, this::onResume)
        .onMessage(Sibling.class, m -> {
          sibling = m.sibling();
          return this;
        })
        .build();
  }

  private Behavior<Command> onExecute(Execute msg) {
    long now = msg.atNanos() >= 0 ? run.received(last, msg.atNanos()) : Math.max(last, run.now());
    advance(now);
    finishDone(now);
    if (msg.bind() != null) resize(msg.bind().epoch(), msg.bind().targetSms(), now);
    fifo.add(msg);
    startQueued(now);
    release(now);
    rearm(now);
    return this;
  }

  /** A resize is a grant of no SMs: the layout changes, nothing is handed over; a suspending one stops kernels first. */
  private Behavior<Command> onResize(Resize msg) {
    if (msg.suspend() && msg.epoch() > epoch) {
      long now = Math.max(last, msg.atNanos());
      advance(now);
      finishDone(now);
      suspendedBy = msg.epoch();
      for (Running k : running) k.span = 0;
    }
    return onGrant(new Grant(0, msg.epoch(), msg.targetSms(), msg.atNanos()));
  }

  private Behavior<Command> onResume(Resume msg) {
    if (suspendedBy < 0 || msg.epoch() < suspendedBy) return this;
    long now = Math.max(last, msg.atNanos());
    advance(now);
    suspendedBy = -1;
    int usable = Math.min(sms, target);
    for (Running k : running) k.span = k.bound > 0 ? k.bound : usable;
    startQueued(now);
    release(now);
    rearm(now);
    return this;
  }

  private Behavior<Command> onGrant(Grant msg) {
    long now = Math.max(last, msg.atNanos());
    advance(now);
    finishDone(now);
    resize(msg.epoch(), msg.targetSms(), now);
    sms += msg.sms();
    if (sms > totalSms) throw new IllegalStateException("group owns " + sms + " of " + totalSms + " SMs");
    grow();
    release(now);
    rearm(now);
    return this;
  }

  private void resize(long newEpoch, int newTarget, long now) {
    if (newEpoch <= epoch) return;
    epoch = newEpoch;
    target = newTarget;
    grow();
  }

  /** Unbound kernels spread over what the group owns, up to its target; none gives SMs up. */
  private void grow() {
    if (suspendedBy >= 0) return;
    int usable = Math.min(sms, target);
    for (Running k : running) {
      if (k.bound == 0) k.span = Math.max(k.span, usable);
    }
  }

  /** Hands the sibling every owned SM beyond the target that no running kernel spans. */
  private void release(long now) {
    if (sibling == null) return;
    int held = target;
    for (Running k : running) held = Math.max(held, k.span);
    int surplus = sms - held;
    if (surplus <= 0) return;
    sms -= surplus;
    sibling.tell(new Grant(surplus, epoch, totalSms - target, now));
  }

  /** Whether a kernel progresses: it spans SMs, and an SM-bound one has all its SMs. */
  private boolean active(Running k) {
    return k.span > 0 && (k.bound == 0 || sms >= k.bound);
  }

  private Behavior<Command> onTick(Tick msg) {
    if (msg.token() != token) return this;
    long now = Math.max(last, run.fired(msg.due()));
    advance(now);
    finishDone(now);
    if (switchingUntil >= 0 && now >= switchingUntil) switchingUntil = -1;
    startQueued(now);
    release(now);
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
    msg.replyTo().tell(new GroupReport(sms, kernelBusy, switchTime, switches, completed, median, last, totalSms,
        smBusy));
    return this;
  }

  /** Moves the fluid model from {@code last} to {@code now}. */
  private void advance(long now) {
    long dt = now - last;
    if (dt <= 0) return;
    if (switchingUntil >= 0) {
      switchTime += Math.min(dt, Math.max(0, switchingUntil - last));
    }
    int activeCount = 0;
    int spanned = 0;
    for (Running k : running) {
      if (active(k)) {
        activeCount++;
        spanned = Math.max(spanned, k.span);
      }
    }
    if (activeCount > 0) {
      double[] rates = model.rates(types());
      for (int i = 0; i < running.size(); i++) {
        Running k = running.get(i);
        if (!active(k)) continue;
        k.remaining -= dt * rates[i] * k.span;
        k.accounted += (double) dt / activeCount;
      }
      kernelBusy += dt;
      smBusy += (double) dt * Math.min(sms, spanned);
    }
    last = now;
  }

  private void finishDone(long now) {
    for (var it = running.iterator(); it.hasNext(); ) {
      Running k = it.next();
      if (k.remaining > DONE_EPSILON * Math.max(1, k.span)) continue;
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
    while (!fifo.isEmpty() && running.size() < maxConcurrent && switchingUntil < 0 && suspendedBy < 0) {
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
      int bound = next.bind() == null ? 0 : Math.min(totalSms, next.bind().boundSms());
      int span = bound > 0 ? bound : Math.min(sms, target);
      running.add(new Running(next, FluidModel.workNanos(next.kernel().soloNanos(), 1, totalSms), now, bound, span));
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
        Running k = running.get(i);
        if (active(k)) soonest = Math.min(soonest, k.remaining / (rates[i] * k.span));
      }
      if (soonest == Double.MAX_VALUE) { // every kernel waits for SMs: the sibling's grant wakes the group
        timers.cancel(TICK);
        token++;
        return;
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
