package org.gpuemu.policies.fairgv;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.gpuemu.policies.ParamChecks;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.gpu.GpuDecision;
import org.gpuemu.policies.gpu.GpuWork;
import org.gpuemu.policies.gpu.LiveChange;
import org.gpuemu.policies.gpu.VgpuParams;

/**
 * Xen's credit scheduler applied to vGPUs, FairGV's baselines {@code credit-poll} and {@code credit-hs}
 * (fairgv.txt §5.3; credits in {@link CreditLedger}). The GPU policy is the same for both: the name selects how the
 * guests wait for synchronous calls ({@link GuestWaitRule}), polling or hybrid spinning. It is also the GPU side
 * of Pegasus's strict coscheduling ({@link StrictCoPolicy}).
 *
 * <p>Simple time sharing on a time slice: the vGPU holding the GPU dispatches its requests in ring order while its
 * slice lasts and the hardware queue ({@code max-inflight}) has room; then it goes to the tail of the run queue,
 * and the next vGPU is the first UNDER one in run-queue order, else the first OVER one (Xen's run queue sorted by
 * priority, first in first out within one). Nothing is accounted per request: requests still in the hardware queue
 * when the slice ends run on into the next vGPU's slice, which is why Credit is unfair to short kernels beside long
 * ones (§3.3.1, Figure 11).
 *
 * <p>Interpretations: a holder that finds its ring empty (nothing queued, nothing of it on the GPU) spins
 * {@code idle-spin} and yields, like FairGV's vGPUs (§5.3 implements every scheduler "in the same framework"); it
 * rejoins the run queue's tail when it has work again. A holder whose slice ends while it has requests queued or
 * still on the GPU is runnable and goes to the run queue's tail, where the pick still finds it (Xen's
 * {@code csched_schedule} re-inserts a runnable current vCPU before it picks): a closed-loop guest, whose next
 * request follows the answer to the last, would otherwise be left out of every pick that follows its own slice,
 * which made the pick a round robin whatever the credits. Slices are timed from when the vGPU got the GPU, and a slice
 * ending is noticed by a wake-up even if nothing completes. Switching does not wait for the hardware queue to drain.
 *
 * <p>Parameters: {@code slice} (nanos; Xen's 30 ms), {@code accounting-period} (nanos; Xen's 30 ms),
 * {@code idle-spin} (nanos), {@code max-inflight} (count: the hardware queue's depth).
 */
public final class CreditPolicy implements GuestWaitRule {
  /** Registry name of Credit with polling guests. */
  public static final String POLL = "credit-poll";
  /** Registry name of Credit with hybrid-spinning guests. */
  public static final String HYBRID_SPIN = "credit-hs";
  /** Parameter: a vGPU's time slice (nanos). */
  public static final String SLICE = "slice";
  /** Parameter: how often credits are handed out (nanos). */
  public static final String ACCOUNTING_PERIOD = "accounting-period";
  /** Parameter: how long a holder with an empty ring spins before it yields (nanos). */
  public static final String IDLE_SPIN = FairgvPolicy.IDLE_SPIN;
  /** Parameter: the hardware queue's depth, requests dispatched and not finished (a count). */
  public static final String MAX_INFLIGHT = FairgvPolicy.MAX_INFLIGHT;

  private static final GpuDecision IDLE = GpuDecision.IDLE;

  private final String name;
  private final GuestWait guestWait;
  private final long slice;
  private final long idleSpin;
  private final int maxInflight;
  private final VgpuRings rings;
  private final CreditLedger credits;
  /** vGPUs with work waiting for the GPU, in arrival order. */
  private final List<Integer> runQueue = new ArrayList<>();

  private int owner = -1;
  private int context = -1;
  private long sliceStart;
  private long idleSince = -1;
  private long switches;

  CreditPolicy(String name, GuestWait guestWait, PolicyParams params) {
    this.name = name;
    this.guestWait = guestWait;
    this.slice = ParamChecks.positiveNanos(params, name, SLICE);
    this.idleSpin = ParamChecks.positiveNanos(params, name, IDLE_SPIN);
    this.maxInflight = ParamChecks.positiveCount(params, name, MAX_INFLIGHT);
    this.rings = new VgpuRings(name, maxInflight);
    this.credits = new CreditLedger(name, ParamChecks.positiveNanos(params, name, ACCOUNTING_PERIOD), slice);
  }

  /** {@code credit-poll}: guests poll the response ring. */
  public static CreditPolicy poll(PolicyParams params) {
    return new CreditPolicy(POLL, GuestWait.POLL, params);
  }

  /**
   * {@code credit-hs}: guests spin on the response ring for the predefined spinning time, then yield the CPU and
   * spin again when they get it back (§5.4.3: "the waiting VM yields the CPU to other GPU VMs that may have pending
   * replies").
   */
  public static CreditPolicy hybridSpin(PolicyParams params) {
    return new CreditPolicy(HYBRID_SPIN, GuestWait.YIELD, params);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public GuestWait guestWait() {
    return guestWait;
  }

  @Override
  public void addVgpu(VgpuParams vgpu) {
    rings.add(vgpu.vgpu());
    credits.add(vgpu.vgpu(), vgpu.weight());
  }

  /** Xen's weight of the vGPU, from the next accounting period on (its credit so far stays). */
  @Override
  public LiveChange setWeight(int vgpu, int weight, long now) {
    if (!rings.vgpus().contains(vgpu)) return new LiveChange.Refused(name() + ": no vGPU " + vgpu);
    if (weight <= 0) return new LiveChange.Refused(name() + ": weight " + weight + "; weights are > 0");
    credits.advance(now); // the periods so far are shared at the old weights
    credits.setWeight(vgpu, weight);
    return LiveChange.APPLIED;
  }

  @Override
  public void removeVgpu(int vgpu) {
    rings.remove(vgpu);
    runQueue.remove(Integer.valueOf(vgpu));
    if (vgpu == owner) {
      owner = -1;
      idleSince = -1;
    }
    credits.remove(vgpu);
  }

  @Override
  public void queued(GpuWork work, long now) {
    int v = work.vgpu();
    rings.queued(work);
    if (v == owner) {
      idleSince = -1;
    } else if (!runQueue.contains(v)) {
      runQueue.add(v);
    }
  }

  @Override
  public void completed(GpuWork work, long gpuNanos, long now) {
    rings.completed(work);
  }

  @Override
  public GpuDecision next(long now, int inflight) {
    credits.advance(now);
    while (true) {
      if (owner < 0) {
        OptionalInt next = pick();
        if (next.isEmpty()) return IDLE;
        runQueue.remove(Integer.valueOf(next.getAsInt()));
        grant(next.getAsInt(), now);
      }
      long sliceEnd = sliceStart + slice;
      if (now >= sliceEnd) {
        yieldGpu(now);
      } else if (rings.idle(owner)) {
        if (idleSince < 0) idleSince = now;
        if (now >= idleSince + idleSpin) {
          yieldGpu(now);
        } else {
          return new GpuDecision.WakeAt(Math.min(idleSince + idleSpin, sliceEnd));
        }
      } else if (rings.hasWork(owner) && inflight < maxInflight) {
        return new GpuDecision.Dispatch(rings.dispatch(owner));
      } else {
        return new GpuDecision.WakeAt(sliceEnd);
      }
    }
  }

  @Override
  public List<String> checkInvariants() {
    List<String> all = new ArrayList<>(rings.violations());
    all.addAll(credits.checkInvariants());
    if (owner >= 0 && runQueue.contains(owner)) {
      all.add(name + ": vGPU " + owner + " holds the GPU and waits in the run queue");
    }
    return all;
  }

  /** The vGPU holding the GPU, or -1. */
  public int owner() {
    return owner;
  }

  /** A vGPU's credit, in nanoseconds of GPU time. */
  public long credit(int vgpu) {
    return credits.credit(vgpu);
  }

  /** Context switches from one vGPU to another so far. */
  public long switches() {
    return switches;
  }

  /** Brings the credits up to {@code now}. */
  void advance(long now) {
    credits.advance(now);
  }

  /** The vGPUs other than {@code except} that contend for the GPU: the holder and the run queue. */
  List<Integer> contenders(int except) {
    List<Integer> all = new ArrayList<>();
    if (owner >= 0 && owner != except) all.add(owner);
    for (int v : runQueue) {
      if (v != except) all.add(v);
    }
    return all;
  }

  /** Preempts the holder, which goes to the run queue's tail if it has work, and gives {@code vgpu} a slice. */
  void switchTo(int vgpu, long now) {
    if (owner >= 0) yieldGpu(now);
    runQueue.remove(Integer.valueOf(vgpu));
    grant(vgpu, now);
  }

  /** Whether the vGPU has joined. */
  boolean contains(int vgpu) {
    return credits.contains(vgpu);
  }

  /** The first UNDER vGPU in run-queue order, else the first one. */
  private OptionalInt pick() {
    for (int v : runQueue) {
      if (credits.priority(v) == CreditLedger.Priority.UNDER) return OptionalInt.of(v);
    }
    return runQueue.isEmpty() ? OptionalInt.empty() : OptionalInt.of(runQueue.get(0));
  }

  private void grant(int vgpu, long now) {
    owner = vgpu;
    sliceStart = now;
    idleSince = -1;
    credits.hold(vgpu, now);
    if (vgpu != context) {
      if (context >= 0) switches++;
      context = vgpu;
    }
  }

  private void yieldGpu(long now) {
    int was = owner;
    owner = -1;
    idleSince = -1;
    credits.hold(-1, now);
    if (!rings.idle(was)) runQueue.add(was);
  }
}
