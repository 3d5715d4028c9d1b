package org.gpuemu.policies.gpu;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.gpuemu.policies.ParamChecks;
import org.gpuemu.policies.PolicyParams;

/**
 * gVirt's round-robin time slicing, the baseline VMCG compares against (VMCG §2: gVirt's GPU scheduler switches
 * the render engine between vGPUs; §5.1: 16 ms, below what humans perceive, is the largest vGPU time slice). Each
 * vGPU in turn owns the GPU for a slice and dispatches its own requests in FIFO order.
 *
 * <p>Rules, with the interpretations the paper text leaves open:
 * <ul>
 *   <li>The owner dispatches while its slice has not expired ({@code now - sliceStart < slice}), it has dispatched
 *       fewer than {@code max-kernels-per-slice} in this slice, and fewer than {@code max-inflight} requests are
 *       in flight. Requests are not preempted: one dispatched before the slice end may run past it (overrun), and
 *       the overrun is not charged to the next slice.</li>
 *   <li>The owner loses the GPU when its slice expired, it reached the limit, or its queue is empty. The next
 *       owner (see below) gets the GPU only once nothing is in flight (the GPU drains before a context switch; the
 *       completion that empties it asks again). Its slice starts when its context is in place: when its first
 *       request of the turn starts on the GPU, once the context switch (with gScale's GTT copy, gballoon.txt §2.1,
 *       which can take longer than a slice) is done. gballoon.txt §2.1: "When the time quantum allocated to each
 *       vGPU is fully used, the mediator saves the registers and memory information of the corresponding vGPU and
 *       restores the GPU state for the next vGPU": saving and restoring happen between quanta, not within the
 *       incoming vGPU's quantum. The policy learns that start from the turn's first completion (its end minus the
 *       GPU time it was accounted: on a time-shared group the first request runs alone, right after the switch);
 *       until then the slice counts from the dispatch decision.</li>
 *   <li>The next owner is the first vGPU after the owner in cyclic index order that has queued work.</li>
 *   <li>If no other vGPU has work, the owner keeps the GPU: with work left it gets a fresh slice at once (no
 *       context switch, so no drain), with none it stays owner and continues without a switch when it queues
 *       more before anyone else does.</li>
 *   <li>{@link #switches()} counts changes from one vGPU to another; the first owner taking an unowned GPU is not
 *       a switch. Weights are ignored: plain round robin gives every vGPU the same slice.</li>
 *   <li>A vGPU may leave once drained ({@link #removeVgpu}); gVirt's description gives no rule, so: when the
 *       owner leaves, the next owner is chosen as above (in cyclic order, the next vGPU after its index), and that
 *       grant counts as a context switch (another context is loaded).</li>
 * </ul>
 * Because the owner either dispatches or waits for a completion, the policy never needs a timer
 * ({@link GpuDecision.WakeAt}): slice expiry is noticed at the next event.
 *
 * <p>Parameters: {@code slice} (nanos, &gt; 0), {@code max-kernels-per-slice} (count, &gt; 0),
 * {@code max-inflight} (count, &gt; 0).
 */
public final class RoundRobinPolicy implements GpuPolicy {
  /** Registry name. */
  public static final String NAME = "round-robin";
  /** Parameter: length of a vGPU's time slice (nanos). */
  public static final String SLICE = "slice";
  /** Parameter: requests a vGPU may dispatch within one slice (a count). */
  public static final String MAX_KERNELS_PER_SLICE = "max-kernels-per-slice";
  /** Parameter: how many dispatched requests may be in flight at once (a count). */
  public static final String MAX_INFLIGHT = "max-inflight";

  private final String name;
  private final long slice;
  private final int maxPerSlice;
  private final int maxInflight;
  private final NavigableMap<Integer, Deque<GpuWork>> queues = new TreeMap<>();
  private final RequestLedger ledger;
  private final java.util.Set<Integer> departed = new java.util.HashSet<>();

  private int owner = -1;
  private long sliceStart;
  /** Whether the owner's first request of this turn has completed (its start re-based {@link #sliceStart}). */
  private boolean sliceStartKnown;
  private int dispatchedInSlice;
  private long switches;

  /** {@code round-robin}: reads {@code slice}, {@code max-kernels-per-slice} and {@code max-inflight}. */
  public RoundRobinPolicy(PolicyParams params) {
    this(NAME, ParamChecks.positiveNanos(params, NAME, SLICE),
        ParamChecks.positiveCount(params, NAME, MAX_KERNELS_PER_SLICE),
        ParamChecks.positiveCount(params, NAME, MAX_INFLIGHT));
  }

  /** Round robin under another registry name, with checked values. */
  public RoundRobinPolicy(String name, long sliceNanos, int maxPerSlice, int maxInflight) {
    if (sliceNanos <= 0 || maxPerSlice <= 0 || maxInflight <= 0) {
      throw new IllegalArgumentException(name + ": slice, requests per slice and max-inflight must be > 0");
    }
    this.name = name;
    this.slice = sliceNanos;
    this.maxPerSlice = maxPerSlice;
    this.maxInflight = maxInflight;
    this.ledger = new RequestLedger(name, maxInflight);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void addVgpu(VgpuParams vgpu) {
    if (queues.putIfAbsent(vgpu.vgpu(), new ArrayDeque<>()) != null) {
      throw new IllegalArgumentException(name + ": vGPU " + vgpu.vgpu() + " added twice");
    }
  }

  @Override
  public void removeVgpu(int vgpu) {
    Deque<GpuWork> queue = queues.get(vgpu);
    if (queue == null) {
      throw new IllegalArgumentException(name + ": unknown vGPU " + vgpu + " cannot leave");
    }
    if (!queue.isEmpty()) {
      throw new IllegalStateException(name + ": vGPU " + vgpu + " left with requests still queued");
    }
    queues.remove(vgpu);
    departed.add(vgpu);
  }

  @Override
  public void queued(GpuWork work, long now) {
    Deque<GpuWork> queue = queues.get(work.vgpu());
    if (queue == null) {
      throw new IllegalArgumentException(name + ": request " + work.id() + " from unknown vGPU " + work.vgpu());
    }
    ledger.queued(work);
    queue.addLast(work);
  }

  @Override
  public void completed(GpuWork work, long gpuNanos, long now) {
    ledger.completed(work);
    if (work.vgpu() == owner && !sliceStartKnown) {
      sliceStartKnown = true;
      sliceStart = Math.max(sliceStart, now - gpuNanos);
    }
  }

  @Override
  public GpuDecision next(long now, int inflight) {
    if (owner >= 0 && ownerMayContinue(now)) {
      return inflight < maxInflight ? dispatchHead() : GpuDecision.IDLE;
    }
    int successor = successor();
    boolean contextSwitch = successor != owner;
    if (successor < 0 || (contextSwitch && inflight > 0) || inflight >= maxInflight) {
      return GpuDecision.IDLE;
    }
    if (contextSwitch && owner >= 0) {
      switches++;
    }
    owner = successor;
    sliceStart = now;
    sliceStartKnown = !contextSwitch;
    dispatchedInSlice = 0;
    return dispatchHead();
  }

  @Override
  public List<String> checkInvariants() {
    List<String> violations = new ArrayList<>(ledger.violations());
    if (dispatchedInSlice > maxPerSlice) {
      violations.add(name + ": vGPU " + owner + " dispatched " + dispatchedInSlice + " requests in one slice (max "
          + maxPerSlice + ")");
    }
    if (owner != -1 && !queues.containsKey(owner) && !departed.contains(owner)) {
      violations.add(name + ": owner " + owner + " is not a known vGPU");
    }
    return violations;
  }

  /** The vGPU owning the GPU, or -1 before anyone has had work. */
  public int owner() {
    return owner;
  }

  /** Context switches from one vGPU to another so far. */
  public long switches() {
    return switches;
  }

  private boolean ownerMayContinue(long now) {
    Deque<GpuWork> queue = queues.get(owner);
    return queue != null && !queue.isEmpty() && now - sliceStart < slice && dispatchedInSlice < maxPerSlice;
  }

  /** The next vGPU with queued work in cyclic index order, the owner itself only when no other has any; -1 if none. */
  private int successor() {
    for (Map.Entry<Integer, Deque<GpuWork>> e : queues.tailMap(owner, false).entrySet()) {
      if (!e.getValue().isEmpty()) {
        return e.getKey();
      }
    }
    for (Map.Entry<Integer, Deque<GpuWork>> e : queues.headMap(owner, true).entrySet()) {
      if (!e.getValue().isEmpty()) {
        return e.getKey();
      }
    }
    return -1;
  }

  private GpuDecision dispatchHead() {
    GpuWork head = queues.get(owner).removeFirst();
    dispatchedInSlice++;
    ledger.dispatched(head);
    return new GpuDecision.Dispatch(head);
  }
}
