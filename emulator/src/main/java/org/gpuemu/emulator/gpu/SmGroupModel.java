package org.gpuemu.emulator.gpu;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.gpuemu.emulator.gpu.Corunners.Running;
import org.gpuemu.workloads.KernelSpec;

/**
 * What an SM group does with its kernels, in model time and nothing else: the {@link SmGroup} actor feeds it the
 * events it receives with their emulated times and carries out the {@link Step}s it returns (replies, the sibling's
 * SMs, the GTT copy) and a timer at {@link #nextEventAt}. No clock, no threads: the same calls give the same
 * nanoseconds.
 *
 * <p>Kernels arrive in a hardware FIFO and start while fewer than {@code maxConcurrent} run; once started a kernel
 * runs to completion (non-preemptive GPU) though its rate changes when co-runners come and go ({@link FluidModel}).
 * Switching from one vGPU's context to another's waits for the group to drain and costs {@code contextSwitchNanos}
 * of group time, attributed to no vGPU; with a slot memory policy (gBalloon, {@code copiesGtt}) the switch first
 * waits for the incoming vGPU's GTT copy ({@link CopyRequest}, ended by {@link #copied}), and the copy's time counts
 * as switch time too. Busy time of each kernel is the group time it occupied divided among its active co-runners, so
 * the vGPUs' accounted times add up to the group's kernel busy time.
 *
 * <p>Space sharing (COMBO, combo.txt §5.1, §5.3): a group owns some of the GPU's SMs and has a target per layout
 * (epoch). A kernel spans SMs: an unbound kernel (the "original" version of §5.3) spreads over the SMs its group
 * owns, up to the target, and grows when the group is granted more; an SM-bound kernel (Figure 8) is bound to that
 * many SMs and, being a persistent-thread-block kernel whose blocks each do an equal share, makes no progress until
 * the group owns them all (Figure 11b). A running kernel never gives up SMs: a shrinking group hands its surplus
 * over ({@link Handover}, to its sibling group) only as the kernels spanning it finish. A suspending resize (COMBO's
 * exact layout change, §5.2) stops the running kernels, which keep the work done but span no SM, so the surplus goes
 * at once, and no kernel starts until {@link #resume}. Work is in SM-nanoseconds (solo duration × the GPU's SMs),
 * progressing at span × the co-location rate. Simplification: co-runners in a group are taken to share their SMs
 * whatever their spans (the co-location rates of the whole set apply to each, active or not).
 *
 * <p>Times: every event is taken at the latest of its time and the group's latest event ({@link #lastEventAt}); a
 * completion is due at the ceiling of its exact fluid end, so that a timer never fires before the work is done, and a
 * kernel with at most half an SM-nanosecond of work left per SM it spans counts as done.
 *
 * @param <T> what the caller needs back with a completion (the actor's {@code Execute} message)
 */
public final class SmGroupModel<T> {

  /** A kernel to run for {@code vgpu}; {@code boundSms} &gt; 0 binds it to that many SMs (0: unbound). */
  public record Kernel<T>(T tag, int vgpu, KernelSpec spec, int boundSms) {
    public Kernel {
      if (boundSms < 0) throw new IllegalArgumentException("bound SMs must be >= 0");
    }
  }

  /** A kernel completed at {@code finishedNanos}; {@code gpuNanos} is the group time accounted to it. */
  public record Completion<T>(T tag, int vgpu, long gpuNanos, long startedNanos, long finishedNanos) {}

  /** {@code sms} surplus SMs go to the sibling at {@code atNanos}; layout {@code epoch} gives it {@code targetSms}. */
  public record Handover(int sms, long epoch, int targetSms, long atNanos) {}

  /** A context switch to {@code vgpu} began at {@code atNanos} and waits for that vGPU's GTT copy. */
  public record CopyRequest(int vgpu, long atNanos) {}

  /**
   * A kernel failed at {@code atNanos} because the engine was reset under it (a hang's watchdog, {@link #hang});
   * {@code gpuNanos} is the group time it had occupied, accounted to its vGPU like a completed kernel's.
   */
  public record Failure<T>(T tag, int vgpu, long gpuNanos, long atNanos, String reason) {}

  /**
   * What one event led to, in the order it happened: completions, then a copy to start, then SMs to hand over; and the
   * kernels an engine reset failed. The model's own, filled again by its next event but one (two alternate): read it
   * at once, never keep or change it. A new step and copies of its lists for every kernel's end were most of its bytes.
   */
  public static final class Step<T> {
    private final List<Completion<T>> completed = new ArrayList<>(2);
    private final List<Failure<T>> failed = new ArrayList<>(0);
    private Optional<CopyRequest> copy = Optional.empty();
    private Optional<Handover> handover = Optional.empty();

    public List<Completion<T>> completed() {
      return completed;
    }

    public Optional<CopyRequest> copy() {
      return copy;
    }

    public Optional<Handover> handover() {
      return handover;
    }

    public List<Failure<T>> failed() {
      return failed;
    }
  }

  /** The context switch under way, if any. */
  private sealed interface Switch permits NoSwitch, Copying, SwitchingUntil {}
  private enum NoSwitch implements Switch { INSTANCE }
  /** Waiting for the GTT copy that began at {@code since}; the group's time counts as switch time meanwhile. */
  private record Copying(long since) implements Switch {}
  private record SwitchingUntil(long until) implements Switch {}

  /** Why a hang's reset fails its kernels. */
  public static final String GPU_RESET = "gpu-reset";

  private static final int NO_CONTEXT = Integer.MIN_VALUE;
  private static final double DONE_EPSILON = 0.5; // half a nanosecond of work left (per SM spanned) counts as done

  private final int totalSms;
  private final int maxConcurrent;
  private final long contextSwitchNanos;
  private final boolean copiesGtt;
  private final ArrayDeque<Kernel<T>> fifo = new ArrayDeque<>();
  private final Corunners<T> corunners;
  /** The running kernels, suspended ones included, in the order they started ({@link Corunners#list}). */
  private final List<Running<T>> running;
  /** SMs owned now (space sharing changes it; otherwise fixed). */
  private int sms;
  /** SMs the current layout gives the group. */
  private int target;
  private long epoch;
  /** The layout whose resize suspended the group: running kernels hold no SMs, none starts. */
  private OptionalLong suspendedBy = OptionalLong.empty();
  private boolean handsOver;
  private long last;
  /** The vGPU whose context the group holds; {@link #NO_CONTEXT} before its first kernel. */
  private int context = NO_CONTEXT;
  private Switch switching = NoSwitch.INSTANCE;
  private final SmGroupFigures figures = new SmGroupFigures();
  /** What the event being handled has led to so far, and the step returned before it ({@link #step}). */
  private Step<T> out = new Step<>();
  private Step<T> returned = new Step<>();
  /** The vGPU whose next kernel to start hangs, and the watchdog's delay for it; none: -1. */
  private int hangNext = -1;
  private long hangWatchdog;

  /**
   * A group owning {@code sms} of the GPU's {@code totalSms} SMs (its first target too), running at most
   * {@code maxConcurrent} kernels at once; {@code copiesGtt}: a context switch first waits for a GTT copy.
   */
  public SmGroupModel(int sms, int totalSms, int maxConcurrent, long contextSwitchNanos, FluidModel fluid,
      boolean copiesGtt) {
    if (sms < 0 || sms > totalSms) throw new IllegalArgumentException("group owns " + sms + " of " + totalSms + " SMs");
    if (maxConcurrent < 1) throw new IllegalArgumentException("max concurrent kernels must be >= 1");
    if (contextSwitchNanos < 0) throw new IllegalArgumentException("context switch must be >= 0");
    this.sms = sms;
    this.target = sms;
    this.totalSms = totalSms;
    this.maxConcurrent = maxConcurrent;
    this.contextSwitchNanos = contextSwitchNanos;
    this.corunners = new Corunners<>(fluid);
    this.running = corunners.list;
    this.copiesGtt = copiesGtt;
  }

  /** From now on, SMs beyond the target that no kernel spans are handed over (the group has a sibling). */
  public void handOverSurplus() {
    handsOver = true;
  }

  /** A kernel arrives at {@code at}; it starts at once if the group can start it. */
  public Step<T> execute(Kernel<T> kernel, long at) {
    return execute(kernel, epoch, target, at); // the current layout: not new, so nothing to apply
  }

  /** A kernel placed under layout {@code layoutEpoch} (applied first if new) arrives at {@code at}. */
  public Step<T> execute(Kernel<T> kernel, long layoutEpoch, int layoutTargetSms, long at) {
    long now = catchUp(at);
    layout(layoutEpoch, layoutTargetSms);
    fifo.add(kernel);
    startQueued(now);
    release(now);
    return step();
  }

  /**
   * Layout {@code newEpoch} gives the group {@code targetSms} from {@code at}; {@code suspend} (if the layout is new)
   * stops the running kernels until {@link #resume}. A resize is a grant of no SMs.
   */
  public Step<T> resize(long newEpoch, int targetSms, boolean suspend, long at) {
    if (suspend && newEpoch > epoch) {
      catchUp(at);
      suspendedBy = OptionalLong.of(newEpoch);
      for (Running<T> k : running) k.span = 0;
    }
    return grant(0, newEpoch, targetSms, at);
  }

  /** The sibling handed {@code granted} SMs over at {@code at}, under layout {@code newEpoch} of {@code targetSms}. */
  public Step<T> grant(int granted, long newEpoch, int targetSms, long at) {
    long now = catchUp(at);
    layout(newEpoch, targetSms);
    sms += granted;
    if (sms > totalSms) throw new IllegalStateException("group owns " + sms + " of " + totalSms + " SMs");
    grow();
    release(now);
    return step();
  }

  /** Whether a resume of layout {@code layoutEpoch} ends the group's suspension (none, or an older layout's: no). */
  public boolean resumes(long layoutEpoch) {
    return suspendedBy.isPresent() && layoutEpoch >= suspendedBy.getAsLong();
  }

  /** The suspended kernels spread over what the group owns again at {@code at}, from where they stopped. */
  public Step<T> resume(long layoutEpoch, long at) {
    if (!resumes(layoutEpoch)) throw new IllegalStateException("layout " + layoutEpoch + " suspended nothing");
    long now = Math.max(last, at);
    advance(now);
    suspendedBy = OptionalLong.empty();
    int usable = Math.min(sms, target);
    for (Running<T> k : running) k.span = k.bound > 0 ? k.bound : usable;
    startQueued(now);
    release(now);
    return step();
  }

  /** The event {@link #nextEventAt} announced is due at {@code due}: kernels end, a context switch ends. */
  public Step<T> eventDue(long due) {
    long now = catchUp(due);
    if (switching instanceof SwitchingUntil s && now >= s.until()) switching = NoSwitch.INSTANCE;
    resetHung(now);
    startQueued(now);
    release(now);
    return step();
  }

  /**
   * A GPU hang (the {@code gpu-hang} fault): from {@code at}, {@code vgpu}'s running kernel (or, when none runs, its
   * next one to start) never finishes. Effect: non-preemptive, it holds the group as long as it is hung, so every
   * vGPU's kernels queue behind it. Recovery: a TDR-style watchdog resets the engine {@code watchdogNanos} after the
   * hang took hold ({@link #nextEventAt} announces it): the hung kernel and the vGPU's other kernels in the FIFO fail
   * ({@link Step#failed}, reason gpu-reset), the time the hung kernel held the group stays accounted to its vGPU, and
   * the other vGPUs' kernels start as before. Windows' TDR behaves so: TdrDelay (2 s by default) after a GPU
   * preemption request is not answered, the display driver resets the engine (learn.microsoft.com, "Timeout Detection
   * and Recovery (TDR)"); engine-level reset (WDDM 1.2) loses the hung context's work only. The reset itself takes no
   * group time here.
   */
  public Step<T> hang(int vgpu, long watchdogNanos, long at) {
    long now = catchUp(at);
    for (Running<T> k : running) {
      if (k.kernel.vgpu() == vgpu && k.watchdog == Long.MAX_VALUE) {
        k.hangs(now + watchdogNanos);
        return step();
      }
    }
    hangNext = vgpu;
    hangWatchdog = watchdogNanos;
    return step();
  }

  /** The watchdog's reset at {@code now}: the hung kernels and their vGPUs' queued kernels fail. */
  private void resetHung(long now) {
    for (int i = 0; i < running.size(); i++) { // by index: an iterator each event otherwise
      Running<T> k = running.get(i);
      if (k.watchdog > now) continue;
      running.remove(i--);
      out.failed.add(new Failure<>(k.kernel.tag(), k.kernel.vgpu(), Math.round(k.accounted), now, GPU_RESET));
      for (var q = fifo.iterator(); q.hasNext(); ) {
        Kernel<T> queued = q.next();
        if (queued.vgpu() != k.kernel.vgpu()) continue;
        q.remove();
        out.failed.add(new Failure<>(queued.tag(), queued.vgpu(), 0, now, GPU_RESET));
      }
    }
  }

  /**
   * An engine reset at {@code at} for a reason other than a hang (the {@code smgroup-crash} fault: the driver's
   * handler of this group failed and the engine is reset with it): every running kernel and every queued one fails
   * ({@link Step#failed}) with {@code reason}; the time each running one held the group stays accounted to its vGPU,
   * a pending hang is cleared with the rest, and the SMs the running kernels spanned beyond the group's target go to
   * its sibling (space sharing). The group's counters, layout and context switch in progress stay.
   */
  public Step<T> resetEngine(String reason, long at) {
    long now = catchUp(at);
    for (Running<T> k : running) {
      out.failed.add(new Failure<>(k.kernel.tag(), k.kernel.vgpu(), Math.round(k.accounted), now, reason));
    }
    running.clear();
    for (Kernel<T> k : fifo) out.failed.add(new Failure<>(k.tag(), k.vgpu(), 0, now, reason));
    fifo.clear();
    hangNext = -1;
    release(now);
    return step();
  }

  /** When the GTT copy the current switch waits for began (its model start time). */
  public long copyStartedAt() {
    if (switching instanceof Copying c) return c.since();
    throw new IllegalStateException("no GTT copy under way");
  }

  /** The incoming context's GTT is in place at {@code at}: the switch itself takes its fixed cost from then. */
  public Step<T> copied(long at) {
    if (!(switching instanceof Copying)) throw new IllegalStateException("no GTT copy under way");
    long now = Math.max(last, at);
    advance(now);
    switching = contextSwitchNanos == 0 ? NoSwitch.INSTANCE : new SwitchingUntil(now + contextSwitchNanos);
    startQueued(now);
    return step();
  }

  /**
   * When the group's next event is due: the end of a context switch, or the soonest completion; empty while it waits
   * for a GTT copy, for SMs, or for kernels.
   */
  public OptionalLong nextEventAt() {
    long next = nextEventNanos();
    return next == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(next);
  }

  /** {@link #nextEventAt} without a wrapper: Long.MAX_VALUE when there is none. */
  public long nextEventNanos() {
    if (switching instanceof Copying) return Long.MAX_VALUE;
    if (switching instanceof SwitchingUntil s) return s.until();
    return corunners.nextEventAt(last, sms); // Long.MAX_VALUE also when every kernel waits for SMs: a grant wakes it
  }

  /** The model time of the group's latest event. */
  public long lastEventAt() {
    return last;
  }

  /** SMs the group owns now. */
  public int sms() {
    return sms;
  }

  public int totalSms() {
    return totalSms;
  }

  /** What the group has done so far: busy time, switches, kernels completed. */
  public SmGroupFigures figures() {
    return figures;
  }

  /** Kernels running (started, not completed), suspended ones included. */
  public int runningCount() {
    return running.size();
  }

  /** Kernels waiting in the FIFO. */
  public int queuedCount() {
    return fifo.size();
  }

  /** Advances to {@code at} (no earlier than the latest event) and completes what is done; returns that time. */
  private long catchUp(long at) {
    long now = Math.max(last, at);
    advance(now);
    finishDone(now);
    return now;
  }

  /** The event's step; the next event fills the one before it, emptied. */
  private Step<T> step() {
    Step<T> s = out;
    out = returned;
    returned = s;
    out.completed.clear();
    out.failed.clear();
    out.copy = Optional.empty();
    out.handover = Optional.empty();
    return s;
  }

  private void layout(long newEpoch, int newTarget) {
    if (newEpoch <= epoch) return;
    epoch = newEpoch;
    target = newTarget;
    grow();
  }

  /** Unbound kernels spread over what the group owns, up to its target; none gives SMs up. */
  private void grow() {
    if (suspendedBy.isPresent()) return;
    int usable = Math.min(sms, target);
    for (Running<T> k : running) {
      if (k.bound == 0) k.span = Math.max(k.span, usable);
    }
  }

  /** Hands over every owned SM beyond the target that no running kernel spans. */
  private void release(long now) {
    if (!handsOver) return;
    int held = target;
    for (Running<T> k : running) held = Math.max(held, k.span);
    int surplus = sms - held;
    if (surplus <= 0) return;
    sms -= surplus;
    out.handover = Optional.of(new Handover(surplus, epoch, totalSms - target, now));
  }

  /** Moves the fluid model from {@code last} to {@code now}. */
  private void advance(long now) {
    long dt = now - last;
    if (dt <= 0) return;
    if (switching instanceof SwitchingUntil s) {
      figures.switching(Math.min(dt, Math.max(0, s.until() - last)));
    } else if (switching instanceof Copying) {
      figures.switching(dt);
    }
    int spanned = corunners.progress(dt, sms);
    if (spanned > 0) figures.busy(dt, Math.min(sms, spanned));
    last = now;
  }

  private void finishDone(long now) {
    for (int i = 0; i < running.size(); i++) {
      Running<T> k = running.get(i);
      if (k.remaining > DONE_EPSILON * Math.max(1, k.span)) continue;
      running.remove(i--);
      figures.completed(Math.max(1, now - k.started));
      out.completed.add(new Completion<>(k.kernel.tag(), k.kernel.vgpu(), Math.round(k.accounted), k.started, now));
      corunners.spare(k);
    }
  }

  private void startQueued(long now) {
    while (!fifo.isEmpty() && running.size() < maxConcurrent && switching == NoSwitch.INSTANCE
        && suspendedBy.isEmpty()) {
      Kernel<T> next = fifo.peek();
      boolean otherContext = context != NO_CONTEXT && context != next.vgpu();
      if (otherContext && (contextSwitchNanos > 0 || copiesGtt)) {
        if (!running.isEmpty()) return; // a context switch waits for the group to drain
        context = next.vgpu();
        figures.switched();
        if (copiesGtt) {
          switching = new Copying(now);
          out.copy = Optional.of(new CopyRequest(next.vgpu(), now));
        } else {
          switching = new SwitchingUntil(now + contextSwitchNanos);
        }
        return;
      }
      if (otherContext) figures.switched(); // free of cost: counted, not waited for
      context = next.vgpu();
      fifo.poll();
      int bound = Math.min(totalSms, next.boundSms());
      int span = bound > 0 ? bound : Math.min(sms, target);
      Running<T> started = corunners.start(next, FluidModel.workNanos(next.spec().soloNanos(), 1, totalSms), now, bound,
          span);
      running.add(started);
      if (next.vgpu() == hangNext) {
        started.hangs(now + hangWatchdog);
        hangNext = -1;
      }
    }
  }
}
