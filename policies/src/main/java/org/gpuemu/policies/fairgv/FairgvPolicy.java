package org.gpuemu.policies.fairgv;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.gpuemu.policies.ParamChecks;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.Violations;
import org.gpuemu.policies.gpu.GpuDecision;
import org.gpuemu.policies.gpu.GpuWork;
import org.gpuemu.policies.gpu.LiveChange;
import org.gpuemu.policies.gpu.VgpuParams;

/**
 * FairGV's GPU scheduler (Hong et al., fairgv.txt §3.2–3.3, §4.2): fair queuing over vGPUs ({@link StartTags}), work
 * conserving by hybrid spinning, GPU-centric coscheduling of interactive vGPUs (Algorithm 3,
 * {@link InteractivityMonitor}), collaborative scheduling with accounting and sampling ({@link CollaborativeTurn})
 * and kernel slicing ({@link KernelSlicing}).
 *
 * <p>A turn: the active vGPU with the smallest start tag becomes the owner and dispatches its own requests in ring
 * order under its turn's rule; when the turn is over it is charged its usage L (F = S + L / w) and the next owner
 * is chosen. Only once nothing of the owner is on the GPU does the turn end (collaborative scheduling synchronizes
 * on the last request), so the GPU never holds two vGPUs' requests. When the GPU switches to another vGPU's
 * context and that vGPU is CPU-GPU interactive, a {@link CoscheduleRequest} for its vCPU is raised.
 *
 * <p>Interpretations the paper leaves open:
 * <ul>
 *   <li>Work conserving (§3.2.2): an owner that finds its ring empty (nothing queued, nothing of it on the GPU)
 *       spins {@code idle-spin} (the paper's 100K spins) and then releases the GPU and blocks; a request arriving
 *       within the spin continues its turn. Without work conserving it keeps polling until its slice is used up.
 *       Either way the time it held the GPU idle is part of its usage, and its turn ends when usage reaches the
 *       slice.</li>
 *   <li>Fair queuing marks a vGPU blocked once it has spun {@code idle-spin} on an empty ring (§3.2.2: "after
 *       spinning 100K times"), so only at the end of its own turn or after it. A turn that ends on an empty ring
 *       (its usage reached the slice while a synchronous call's answer was on its way back to the guest, which
 *       sends the next request microseconds later, or it spun idle until the slice ended) leaves the vGPU spinning
 *       for what is left of its {@code idle-spin}, counted from when its ring emptied: without the GPU, its turn
 *       being over, and never picked without requests. A request within the spin finds it still active with its
 *       own start tag; after it, the vGPU is blocked, and a request wakes it ({@link StartTags#wake}) at the
 *       virtual time if it is behind. Blocking at the turn's end instead cost the vGPU that had just run, usually
 *       the heaviest, its lag at almost every turn (docs/papers/fairgv.md).</li>
 *   <li>Coscheduling requests are raised on a context switch (Algorithm 3 runs "when it changes the current vGPU
 *       context"): the first owner counts as one, an owner that gets the next turn again does not.</li>
 *   <li>The vCPU of a request is the frontend's tag ({@link #queued(GpuWork, int, long)}); the request names the
 *       latest tag of the vGPU.</li>
 *   <li>Slices: {@code non-preemptive-slice} (6 ms) under {@code discipline = non-preemptive}, with collaborative
 *       turns; {@code preemptive-slice} (30 ms) under {@code preemptive}, with timed turns ({@link TimedTurn}).</li>
 * </ul>
 *
 * <p>Parameters: {@code discipline} (non-preemptive | preemptive), {@code non-preemptive-slice} and
 * {@code preemptive-slice} (nanos), {@code samples} (count), {@code idle-spin} (nanos), {@code work-conserving}
 * (true | false), {@code interactive-sync-calls} (count), {@code interactive-window} (nanos), {@code max-inflight}
 * (count), {@code slice-above-blocks} (count), {@code sub-kernel-blocks} (count).
 */
public final class FairgvPolicy implements GpuCentricCoscheduling, SlicesKernels, GuestWaitRule {
  /** Registry name. */
  public static final String NAME = "fairgv";
  /** Parameter: the GPU's scheduling discipline, {@value #NON_PREEMPTIVE} or {@value #PREEMPTIVE}. */
  public static final String DISCIPLINE = "discipline";
  /** Value of {@link #DISCIPLINE}: collaborative scheduling (§3.3.2). */
  public static final String NON_PREEMPTIVE = "non-preemptive";
  /** Value of {@link #DISCIPLINE}: a GPU that preempts at the end of a slice. */
  public static final String PREEMPTIVE = "preemptive";
  /** Parameter: the time slice on a non-preemptive GPU (nanos; 6 ms in the paper). */
  public static final String NON_PREEMPTIVE_SLICE = "non-preemptive-slice";
  /** Parameter: the time slice on a preemptive GPU (nanos; 30 ms in the paper). */
  public static final String PREEMPTIVE_SLICE = "preemptive-slice";
  /** Parameter: requests sampled at the start of a turn (a count; 5 in the paper). */
  public static final String SAMPLES = "samples";
  /**
   * Parameter: how long a vGPU spins on an empty ring (nanos): an owner before it releases the GPU, a vGPU whose
   * turn ended on an empty ring before it is blocked.
   */
  public static final String IDLE_SPIN = "idle-spin";
  /** Parameter: whether an idle owner releases the GPU after spinning (true) or polls its slice away (false). */
  public static final String WORK_CONSERVING = "work-conserving";
  /** Parameter: a vGPU with more synchronous calls than this per window is interactive (a count; 10). */
  public static final String INTERACTIVE_SYNC_CALLS = "interactive-sync-calls";
  /** Parameter: the window of the interactive classification (nanos; 10 ms). */
  public static final String INTERACTIVE_WINDOW = "interactive-window";
  /** Parameter: how many dispatched requests may be in flight at once (a count). */
  public static final String MAX_INFLIGHT = "max-inflight";
  /** Parameter: kernels with more thread blocks than this are sliced (a count; 600 × 600). */
  public static final String SLICE_ABOVE_BLOCKS = "slice-above-blocks";
  /** Parameter: the fewest thread blocks of a sub-kernel (a count; 1,500). */
  public static final String SUB_KERNEL_BLOCKS = "sub-kernel-blocks";

  private static final GpuDecision IDLE = GpuDecision.IDLE;

  private final boolean collaborative;
  private final long slice;
  private final int samples;
  private final long idleSpin;
  private final boolean workConserving;
  private final int maxInflight;
  private final VgpuRings rings;
  private final StartTags tags = new StartTags();
  private final InteractivityMonitor monitor;
  private final KernelSlicing slicing;
  private final Map<Integer, Integer> vcpuOf = new HashMap<>();
  private final List<CoscheduleRequest> requests = new ArrayList<>();
  private final Violations violations = new Violations();
  /** vGPUs whose turn ended with an empty ring, spinning on it until the time given before they block. */
  private final Map<Integer, Long> spinningUntil = new HashMap<>();

  private int owner = -1;
  /** The vGPU whose context the GPU holds (the last owner); -1 before the first. */
  private int context = -1;
  private Turn turn;
  /** When the owner found its ring empty; -1 while it is not idle. */
  private long idleSince = -1;
  private long switches;
  private long coscheduled;

  /** Reads every parameter listed in the class comment. */
  public FairgvPolicy(PolicyParams params) {
    this.collaborative =
        ParamChecks.oneOf(params, NAME, DISCIPLINE, List.of(NON_PREEMPTIVE, PREEMPTIVE)).equals(NON_PREEMPTIVE);
    this.slice = ParamChecks.positiveNanos(params, NAME, collaborative ? NON_PREEMPTIVE_SLICE : PREEMPTIVE_SLICE);
    this.samples = ParamChecks.positiveCount(params, NAME, SAMPLES);
    this.idleSpin = ParamChecks.positiveNanos(params, NAME, IDLE_SPIN);
    this.workConserving = ParamChecks.flag(params, NAME, WORK_CONSERVING);
    this.maxInflight = ParamChecks.positiveCount(params, NAME, MAX_INFLIGHT);
    this.monitor = new InteractivityMonitor(ParamChecks.positiveCount(params, NAME, INTERACTIVE_SYNC_CALLS),
        ParamChecks.positiveNanos(params, NAME, INTERACTIVE_WINDOW));
    this.slicing = new KernelSlicing(ParamChecks.positiveCount(params, NAME, SLICE_ABOVE_BLOCKS),
        ParamChecks.positiveCount(params, NAME, SUB_KERNEL_BLOCKS));
    this.rings = new VgpuRings(NAME, maxInflight);
  }

  @Override
  public String name() {
    return NAME;
  }

  /** FairGV's guests hybrid-spin too (§3.2.2), which its coscheduling relies on (§3.2.3). */
  @Override
  public GuestWait guestWait() {
    return GuestWait.HYBRID;
  }

  @Override
  public void addVgpu(VgpuParams vgpu) {
    rings.add(vgpu.vgpu());
    tags.join(vgpu.vgpu(), vgpu.weight());
    monitor.add(vgpu.vgpu());
  }

  /** The vGPU's fair-queuing weight, from its next charge on (its start tag so far stays). */
  @Override
  public LiveChange setWeight(int vgpu, int weight, long now) {
    if (!rings.vgpus().contains(vgpu)) return new LiveChange.Refused(name() + ": no vGPU " + vgpu);
    if (weight <= 0) return new LiveChange.Refused(name() + ": weight " + weight + "; weights are > 0");
    tags.setWeight(vgpu, weight);
    return LiveChange.APPLIED;
  }

  @Override
  public void removeVgpu(int vgpu) {
    rings.remove(vgpu);
    spinningUntil.remove(vgpu);
    if (vgpu == owner) {
      owner = -1;
      turn = null;
      idleSince = -1;
    }
    tags.leave(vgpu);
    monitor.remove(vgpu);
    vcpuOf.remove(vgpu);
  }

  @Override
  public void queued(GpuWork work, int vcpu, long now) {
    queued(work, now);
    vcpuOf.put(work.vgpu(), vcpu);
  }

  @Override
  public void queued(GpuWork work, long now) {
    int v = work.vgpu();
    blockSpunOut(now);
    spinningUntil.remove(v); // still active: the spin on its ring saw the request
    rings.queued(work);
    if (work.sync()) monitor.syncCall(v, now);
    if (v == owner) endIdle(now);
    tags.wake(v);
    refreshWaiting(v, now);
  }

  @Override
  public void completed(GpuWork work, long gpuNanos, long now) {
    rings.completed(work);
    if (work.vgpu() == owner) {
      turn.completed(gpuNanos);
    } else {
      violations.add(NAME + ": request " + work.id() + " of vGPU " + work.vgpu() + " completed outside its turn");
    }
  }

  @Override
  public GpuDecision next(long now, int inflight) {
    blockSpunOut(now);
    while (true) {
      if (owner < 0) {
        OptionalInt next = tags.first(rings::hasWork);
        if (next.isEmpty() || inflight > 0) return IDLE;
        startTurn(next.getAsInt(), now);
      }
      Optional<GpuDecision> decision = continueTurn(now);
      if (decision.isPresent()) return decision.get();
      endTurn(now);
    }
  }

  @Override
  public List<CoscheduleRequest> takeCoscheduleRequests() {
    List<CoscheduleRequest> taken = List.copyOf(requests);
    requests.clear();
    return taken;
  }

  @Override
  public boolean interactive(int vgpu, long now) {
    return monitor.interactive(vgpu, now);
  }

  @Override
  public KernelSlicing slicing() {
    return slicing;
  }

  @Override
  public List<String> checkInvariants() {
    List<String> all = new ArrayList<>(rings.violations());
    all.addAll(tags.checkInvariants());
    if (owner >= 0 && !tags.isActive(owner)) {
      all.add(NAME + ": owner vGPU " + owner + " is not active in fair queuing");
    }
    for (int v : rings.vgpus()) {
      boolean spinning = spinningUntil.containsKey(v);
      if (spinning && (!tags.isActive(v) || rings.hasWork(v) || v == owner)) {
        all.add(NAME + ": vGPU " + v + " spins on its ring but is " + (v == owner ? "the owner"
            : rings.hasWork(v) ? "holding requests" : "blocked"));
      }
      if (tags.isActive(v) && v != owner && !rings.hasWork(v) && !spinning) {
        all.add(NAME + ": vGPU " + v + " is active with an empty ring, neither owner nor spinning");
      }
    }
    all.addAll(violations.list());
    return all;
  }

  /** The vGPU whose turn it is, or -1 when none. */
  public int owner() {
    return owner;
  }

  /** A vGPU's start tag, in weight-1 nanoseconds. */
  public long startTag(int vgpu) {
    return tags.startTag(vgpu);
  }

  /** The global virtual time, in weight-1 nanoseconds. */
  public long virtualTime() {
    return tags.virtualTime();
  }

  /** Context switches from one vGPU to another so far. */
  public long switches() {
    return switches;
  }

  /** Coscheduling requests raised so far. */
  public long coscheduled() {
    return coscheduled;
  }

  /** The owner's decision under its turn's rule; empty when its turn is over. */
  private Optional<GpuDecision> continueTurn(long now) {
    int own = rings.inflight(owner);
    if (turn.over(now, own)) return Optional.empty();
    if (rings.idle(owner)) {
      if (idleSince < 0) idleSince = now;
      long until = turn.idleUntil(idleSince);
      if (workConserving) until = Math.min(until, idleSince + idleSpin);
      return now >= until ? Optional.empty() : Optional.of(new GpuDecision.WakeAt(until));
    }
    if (rings.hasWork(owner) && turn.mayDispatch(now, own)) {
      turn.dispatched();
      return Optional.of(new GpuDecision.Dispatch(rings.dispatch(owner)));
    }
    return Optional.of(IDLE);
  }

  private void startTurn(int vgpu, long now) {
    owner = vgpu;
    turn = collaborative ? new CollaborativeTurn(slice, samples, maxInflight) : new TimedTurn(now, slice, maxInflight);
    idleSince = -1;
    refreshWaiting(vgpu, now);
    if (vgpu != context) {
      if (context >= 0) switches++;
      context = vgpu;
      if (monitor.interactive(vgpu, now)) {
        Integer vcpu = vcpuOf.get(vgpu);
        requests.add(new CoscheduleRequest(vgpu, vcpu == null ? OptionalInt.empty() : OptionalInt.of(vcpu), now));
        coscheduled++;
      }
    }
  }

  private void endTurn(long now) {
    long spinEnd = (idleSince >= 0 ? idleSince : now) + idleSpin;
    endIdle(now);
    int was = owner;
    tags.charge(was, turn.usage());
    if (!rings.hasWork(was)) {
      if (spinEnd > now) {
        spinningUntil.put(was, spinEnd);
      } else {
        tags.block(was);
      }
    }
    owner = -1;
    turn = null;
    refreshWaiting(was, now);
  }

  /**
   * vGPUs that spun on an empty ring until before {@code now} block. Fair queuing's state changes only at the
   * policy's events, so blocking them at the first event after their spin ended is the same as at its end.
   */
  private void blockSpunOut(long now) {
    spinningUntil.entrySet().removeIf(e -> {
      if (e.getValue() >= now) return false;
      tags.block(e.getKey());
      return true;
    });
  }

  /** The owner's idle stretch, if any, ends now and is charged to its turn. */
  private void endIdle(long now) {
    if (idleSince >= 0) {
      turn.idled(now - idleSince);
      idleSince = -1;
    }
  }

  /** A vGPU waits for the GPU while it has queued requests and another vGPU's turn runs. */
  private void refreshWaiting(int vgpu, long now) {
    monitor.waiting(vgpu, rings.hasWork(vgpu) && vgpu != owner, now);
  }
}
