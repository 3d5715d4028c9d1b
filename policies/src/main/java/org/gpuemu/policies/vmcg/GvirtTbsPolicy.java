package org.gpuemu.policies.vmcg;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.gpuemu.policies.ParamChecks;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.gpu.GpuDecision;
import org.gpuemu.policies.gpu.GpuPolicy;
import org.gpuemu.policies.gpu.GpuWork;
import org.gpuemu.policies.gpu.RequestLedger;
import org.gpuemu.policies.gpu.VgpuParams;

/**
 * {@code gvirt}: gVirt's render-engine scheduler in the release VMCG was built on and measured against (vmcg.txt
 * §2.1, §6.1: gVirt in Xen 4.5.0 with a Linux 3.18.0 Dom0 on an HD 4600, a Haswell GPU). That release is XenGT's
 * 3.18 kernel, github.com/intel/XenGT-Preview-kernel at commit a71a2c71040df71ad70110a434b496feacead996 (Makefile
 * 3.18.0-rc7-vgt). Its default scheduler there is the timer-based one ({@code timer_based_qos = true} in
 * drivers/gpu/drm/i915/vgt/sched.c; {@code event_based_qos} and {@code shadow_tail_based_qos} default to false in
 * vgt.c), and this class replays it:
 * <ul>
 *   <li>A periodic timer ({@code vgt_tbs_timer_fn}) fires every {@code VGT_TBS_DEFAULT_PERIOD}, 15 ms (vgt.h at
 *       that commit; vgt.c's later {@code tbs_period_ms} documents "default: BDW 1ms, HSW 15ms"). At each tick,
 *       when more than one vGPU is in the render run queue, it asks for a scheduling decision.</li>
 *   <li>The decision ({@code vgt_schedule} -> {@code tbs_next_vgt}) takes the first vGPU after the render owner in
 *       run-queue order, wrapping, whose virtual rings are not empty; if none but the owner has work, the owner keeps
 *       the engine and the timer runs on ({@code hrtimer_add_expires_ns}: the next tick one period after this one).
 *       Weights and priorities exist in {@code vgt_sched_info} but the timer-based scheduler reads neither.</li>
 *   <li>Between ticks only the render owner submits ({@code vgt_submit_commands}: a non-owner's tail writes are
 *       held in its virtual ring, "kicks scheduler for non-owner write" is commented out), so the engine stays with
 *       the owner until the next tick even when the owner has nothing left to run.</li>
 *   <li>Once a switch is requested the owner may submit no more ("Current owner is prevented from further submission
 *       to ensure quantum control"); the switch happens when the physical ring is idle ({@code irq_based_ctx_switch}
 *       waits for the last user interrupt, then {@code idle_rendering_engines} for head == tail, render.c), and the
 *       timer is cancelled for the switch and restarted one period after it ({@code vgt_sched_update_prev},
 *       {@code vgt_sched_update_next}). The new owner's held tail writes are then all submitted at once
 *       ({@code calculate_budget} returns {@code MAX_CMD_BUDGET}).</li>
 * </ul>
 *
 * <p>Interpretations: the run queue is the VMs' vGPUs in index order (their creation order); Dom0's own vGPU, which
 * XenGT also keeps in the run queue, is left out, as the emulator gives Dom0 no rendering work. Before any vGPU has
 * owned the engine, the first vGPU to queue a CRB takes it at once and its period starts then (in XenGT Dom0 owns
 * the engine at boot and the first tick hands it on). The GPU's own context-switch cost is the SM group's
 * ({@code gpu.context-switch}), as for every policy.
 *
 * <p>How this differs from the paper's description of gVirt (§1: "a shared FCFS queue in Dom0 ... a request block is
 * scheduled in its arrival sequence"): the code keeps one virtual ring per vGPU and serves them in turns of a fixed
 * period, not one queue in arrival order. VMCG's Figure 4 (the engine passes on when the owner's ring is idle) is the
 * work-conserving counterpart: gVirt's owner holds the engine until the tick.
 *
 * <p>Parameters: {@code period} (nanos, &gt; 0; the 15 ms tick) and {@code max-inflight} (count, &gt; 0; CRBs the
 * physical ring holds).
 */
public final class GvirtTbsPolicy implements GpuPolicy {
  /** Registry name. */
  public static final String NAME = "gvirt";
  /** Parameter: the timer period (nanos; XenGT's 15 ms on Haswell). */
  public static final String PERIOD = "period";
  /** Parameter: CRBs submitted to the physical ring and not finished, at most (a count). */
  public static final String MAX_INFLIGHT = "max-inflight";

  private static final GpuDecision IDLE = GpuDecision.IDLE;

  private final long period;
  private final int maxInflight;
  /** The render run queue in order: each vGPU's virtual ring of held CRBs. */
  private final NavigableMap<Integer, Deque<GpuWork>> vrings = new TreeMap<>();
  private final RequestLedger ledger;

  private int owner = -1;
  /** The pending switch's target (pdev->next_sched_vgt), or -1 when none is requested. */
  private int next = -1;
  /** The timer's next expiry; meaningful once there is an owner. */
  private long tick;
  private long switches;
  private long ticks;

  /** Reads {@code period} and {@code max-inflight}. */
  public GvirtTbsPolicy(PolicyParams params) {
    this(ParamChecks.positiveNanos(params, NAME, PERIOD), ParamChecks.positiveCount(params, NAME, MAX_INFLIGHT));
  }

  /** With checked values. */
  public GvirtTbsPolicy(long periodNanos, int maxInflight) {
    if (periodNanos <= 0 || maxInflight <= 0) {
      throw new IllegalArgumentException(NAME + ": period and max-inflight must be > 0");
    }
    this.period = periodNanos;
    this.maxInflight = maxInflight;
    this.ledger = new RequestLedger(NAME, maxInflight);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void addVgpu(VgpuParams vgpu) {
    if (vrings.putIfAbsent(vgpu.vgpu(), new ArrayDeque<>()) != null) {
      throw new IllegalArgumentException(NAME + ": vGPU " + vgpu.vgpu() + " added twice");
    }
  }

  @Override
  public void removeVgpu(int vgpu) {
    Deque<GpuWork> vring = vrings.get(vgpu);
    if (vring == null) {
      throw new IllegalArgumentException(NAME + ": unknown vGPU " + vgpu + " cannot leave");
    }
    if (!vring.isEmpty()) {
      throw new IllegalStateException(NAME + ": vGPU " + vgpu + " left with CRBs still in its virtual ring");
    }
    vrings.remove(vgpu);
    if (next == vgpu) next = -1;
  }

  @Override
  public void queued(GpuWork work, long now) {
    Deque<GpuWork> vring = vrings.get(work.vgpu());
    if (vring == null) {
      throw new IllegalArgumentException(NAME + ": request " + work.id() + " from unknown vGPU " + work.vgpu());
    }
    ledger.queued(work);
    vring.addLast(work);
  }

  @Override
  public void completed(GpuWork work, long gpuNanos, long now) {
    ledger.completed(work);
  }

  @Override
  public GpuDecision next(long now, int inflight) {
    if (owner < 0 || !vrings.containsKey(owner)) {
      int first = firstWithWork(owner);
      if (first < 0) return IDLE;
      if (owner >= 0) switches++; // the owner left: the engine goes on to the next vGPU with work
      takeEngine(first, now);
    }
    passTicks(now);
    if (next >= 0) {
      if (inflight > 0) return IDLE; // the physical ring drains before the switch
      switches++;
      takeEngine(next, now);
    }
    Deque<GpuWork> vring = vrings.get(owner);
    if (!vring.isEmpty() && inflight < maxInflight) {
      GpuWork crb = vring.removeFirst();
      ledger.dispatched(crb);
      return new GpuDecision.Dispatch(crb);
    }
    // Nothing to dispatch now: the next tick matters only if another vGPU has work waiting for it.
    int waiting = firstWithWork(owner);
    return waiting >= 0 && waiting != owner ? new GpuDecision.WakeAt(tick) : IDLE;
  }

  @Override
  public List<String> checkInvariants() {
    List<String> violations = new ArrayList<>(ledger.violations());
    if (next >= 0 && next == owner) {
      violations.add(NAME + ": a switch to the owner itself is pending");
    }
    if (owner >= 0 && tick <= 0) {
      violations.add(NAME + ": owner " + owner + " without a timer");
    }
    return violations;
  }

  /** Engine switches from one vGPU to another so far. */
  public long switches() {
    return switches;
  }

  /** Timer expiries handled so far (ticks passed while one vGPU ran alone included). */
  public long ticks() {
    return ticks;
  }

  /** The render owner, or -1 before any vGPU had work. */
  public int owner() {
    return owner;
  }

  /** The timer's next expiry. */
  public long nextTick() {
    return tick;
  }

  @Override
  public Map<String, Object> figures() {
    return Map.of("engine_switches", switches, "timer_ticks", ticks);
  }

  /**
   * Every tick up to {@code now}. The policy is asked at each tick while another vGPU has work (it returns
   * {@link GpuDecision.WakeAt} for it), so a tick passed unasked found no other vGPU with work and changed nothing
   * but the timer's phase.
   */
  private void passTicks(long now) {
    if (next < 0 && tick == Long.MAX_VALUE) {
      tick = now; // the switch's target left before the switch: the scheduler decides again at once
    }
    while (tick <= now) {
      ticks++;
      if (next < 0 && vrings.size() > 1) {
        int candidate = firstWithWork(owner);
        if (candidate >= 0 && candidate != owner) {
          next = candidate;
          // the timer is cancelled for the switch and restarted after it (takeEngine)
          tick = Long.MAX_VALUE;
          return;
        }
      }
      tick += period;
    }
  }

  private void takeEngine(int vgpu, long now) {
    owner = vgpu;
    next = -1;
    tick = now + period;
  }

  /**
   * tbs_next_vgt: the first vGPU after {@code from} in run-queue order, wrapping, whose virtual ring is not empty;
   * {@code from} itself if only it has work; -1 if none has.
   */
  private int firstWithWork(int from) {
    for (Map.Entry<Integer, Deque<GpuWork>> e : vrings.tailMap(from, false).entrySet()) {
      if (!e.getValue().isEmpty()) return e.getKey();
    }
    for (Map.Entry<Integer, Deque<GpuWork>> e : vrings.headMap(from, true).entrySet()) {
      if (!e.getValue().isEmpty()) return e.getKey();
    }
    return -1;
  }
}
