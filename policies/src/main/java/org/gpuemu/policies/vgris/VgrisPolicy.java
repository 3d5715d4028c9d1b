package org.gpuemu.policies.vgris;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.gpuemu.policies.ParamChecks;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.Violations;
import org.gpuemu.policies.gpu.FcfsPolicy;
import org.gpuemu.policies.gpu.GpuDecision;
import org.gpuemu.policies.gpu.GpuWork;
import org.gpuemu.policies.gpu.LiveChange;
import org.gpuemu.policies.gpu.VgpuParams;

/**
 * The VGRIS policies (Yu et al., §3.2): {@code vgris-sla} (SLA-aware), {@code vgris-share} (proportional share,
 * Eq. 1) and {@code vgris-hybrid} (Algorithm 1, Eq. 2). VGRIS intercepts API calls in the host and leaves the
 * driver alone, so requests are dispatched first come, first served by an {@link FcfsPolicy} underneath; what
 * differs is the {@link PresentGate}: under SLA-aware each VM's agent paces its Presents to its SLA frame latency
 * ({@link SlaPacer}) and every Present is allowed; under proportional share a Present is allowed only while the VM's
 * {@link ShareBudget} is positive, which {@link #completed} charges with the GPU time the VM's requests used.
 *
 * <p>Interpretations: shares are charged only while proportional share is in force (SLA-aware enforces none, and
 * replenishment goes on, so the hybrid switches back with budgets that carry no debt from SLA-aware); budgets are
 * brought up to date at every call that passes a time, so a share change at a join or leave applies from the
 * latest event. {@code vgris-share} uses the scenario's shares ({@link Shares#configured}); {@code vgris-hybrid}
 * ignores them, since Algorithm 1 starts from the full GPU for each VM (§4.3) and computes its own. A request
 * completing after its VM left is not charged and is reported by {@link #checkInvariants}, as the caller must drain
 * a VM before removing it.
 *
 * <p>Parameters: all read {@code max-inflight} (count, &gt; 0); policies that can pace read {@code present-history}
 * (count, &gt; 0); policies that can share read {@code period} (nanos, &gt; 0); the hybrid reads {@code
 * fps-threshold} (real, &gt; 0), {@code gpu-threshold} (real, in (0, 1]) and {@code window} (nanos, whole seconds,
 * since reports come once a second).
 */
public final class VgrisPolicy implements PresentGate {
  /** Registry name of SLA-aware scheduling. */
  public static final String SLA_AWARE = "vgris-sla";
  /** Registry name of proportional-share scheduling. */
  public static final String PROPORTIONAL_SHARE = "vgris-share";
  /** Registry name of hybrid scheduling. */
  public static final String HYBRID = "vgris-hybrid";
  /** Parameter: depth of the hardware queue of the FCFS dispatch underneath (a count). */
  public static final String MAX_INFLIGHT = FcfsPolicy.MAX_INFLIGHT;
  /** Parameter: Present costs averaged to predict the next one (a count; the paper's 20). */
  public static final String PRESENT_HISTORY = "present-history";
  /** Parameter: budget replenishment period t of Eq. 1 (nanos; the paper's 1 ms). */
  public static final String PERIOD = "period";
  /** Parameter: FPSthres of Algorithm 1 (a real). */
  public static final String FPS_THRESHOLD = "fps-threshold";
  /** Parameter: GPUthres of Algorithm 1, a fraction of the GPU (a real). */
  public static final String GPU_THRESHOLD = "gpu-threshold";
  /** Parameter: Time of Algorithm 1 (nanos, whole seconds). */
  public static final String WINDOW = "window";

  private static final long SECOND = 1_000_000_000L;
  private static final PresentDecision ALLOW = new PresentDecision.Allow();

  private final String name;
  private final FcfsPolicy dispatch;
  private final Controller controller;
  /** Present-cost window of SLA-aware pacing; empty when the controller never paces. */
  private final OptionalInt presentHistory;
  /** Budgets of proportional share; empty when the controller never shares. */
  private final Optional<ShareBudget> budget;
  private final SortedMap<Integer, VgpuParams> vms = new TreeMap<>();
  private final Violations violations = new Violations();
  /** Requests charged when dispatched, by id, with the amount charged. */
  private final Map<Long, Long> chargedAtDispatch = new HashMap<>();

  private VgrisPolicy(String name, PolicyParams params, Controller controller) {
    this.name = name;
    this.dispatch = new FcfsPolicy(ParamChecks.positiveCount(params, name, MAX_INFLIGHT));
    this.controller = controller;
    this.presentHistory = controller.algorithms().contains(Algorithm.SLA_AWARE)
        ? OptionalInt.of(ParamChecks.positiveCount(params, name, PRESENT_HISTORY))
        : OptionalInt.empty();
    this.budget = controller.algorithms().contains(Algorithm.PROPORTIONAL_SHARE)
        ? Optional.of(new ShareBudget(ParamChecks.positiveNanos(params, name, PERIOD)))
        : Optional.empty();
  }

  /** {@code vgris-sla}: SLA-aware for the whole run. */
  public static VgrisPolicy slaAware(PolicyParams params) {
    return new VgrisPolicy(SLA_AWARE, params, new FixedController(Algorithm.SLA_AWARE));
  }

  /** {@code vgris-share}: proportional share with the scenario's shares for the whole run. */
  public static VgrisPolicy proportionalShare(PolicyParams params) {
    return new VgrisPolicy(PROPORTIONAL_SHARE, params, new FixedController(Algorithm.PROPORTIONAL_SHARE));
  }

  /** {@code vgris-hybrid}: Algorithm 1. */
  public static VgrisPolicy hybrid(PolicyParams params) {
    return new VgrisPolicy(HYBRID, params, new HybridController(
        ParamChecks.positiveReal(params, HYBRID, FPS_THRESHOLD),
        ParamChecks.fraction(params, HYBRID, GPU_THRESHOLD),
        wholeSeconds(params, HYBRID, WINDOW)));
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void addVgpu(VgpuParams vm) {
    if (vms.containsKey(vm.vgpu())) {
      throw new IllegalArgumentException(name + ": vGPU " + vm.vgpu() + " added twice");
    }
    controller.join(vm);
    dispatch.addVgpu(vm);
    vms.put(vm.vgpu(), vm);
    sharesChanged();
  }

  /**
   * {@code vgris-share}: the VM's share from now on; its budget keeps what it has, capped at the new share's period
   * (ShareBudget#setShares). Refused when the shares would exceed 1, and by the SLA-aware and hybrid policies, whose
   * shares are not configured.
   */
  @Override
  public LiveChange setShare(int vgpu, double share, long now) {
    if (!vms.containsKey(vgpu)) return new LiveChange.Refused(name + ": no vGPU " + vgpu);
    if (!(share > 0 && share <= 1)) return new LiveChange.Refused(name + ": a share is in (0, 1], got " + share);
    advance(now); // the periods so far are refilled at the old share
    try {
      controller.setShare(vgpu, share);
    } catch (IllegalArgumentException e) {
      return new LiveChange.Refused(name + ": " + e.getMessage());
    }
    vms.put(vgpu, new VgpuParams(vgpu, vms.get(vgpu).name(), vms.get(vgpu).weight(), share, vms.get(vgpu).slaFps()));
    sharesChanged();
    return LiveChange.APPLIED;
  }

  @Override
  public void removeVgpu(int vgpu) {
    known(vgpu);
    dispatch.removeVgpu(vgpu);
    controller.leave(vgpu);
    vms.remove(vgpu);
    sharesChanged();
  }

  @Override
  public void queued(GpuWork work, long now) {
    advance(now);
    dispatch.queued(work, now);
  }

  @Override
  public void completed(GpuWork work, long gpuNanos, long now) {
    advance(now);
    dispatch.completed(work, gpuNanos, now);
    Long charged = chargedAtDispatch.remove(work.id());
    if (!vms.containsKey(work.vgpu())) {
      violations.add(name + ": request " + work.id() + " completed after vGPU " + work.vgpu() + " left");
    } else if (charged != null && controller.algorithm() == Algorithm.PROPORTIONAL_SHARE) {
      budget.orElseThrow().charge(work.vgpu(), gpuNanos - charged, now);
    }
  }

  /**
   * Dispatches FCFS. Under proportional share a dispatched request is charged its expected GPU time (its solo
   * duration) at once, and {@link #completed} corrects the charge to the time it really used. Interpretation of
   * "decreased by the amount of time consumed on the GPU": the GPU consumes the time from when the request runs.
   * Charging only at completion leaves the budget at its cap t·s_i, losing replenishment, while the VM's frame is
   * already running; a VM whose frames are mostly CPU work then stays well under its share (NBA 2012 at share 0.3
   * used 20 % so), where the paper measures 30.12 % (Table 2).
   */
  @Override
  public GpuDecision next(long now, int inflight) {
    advance(now);
    GpuDecision d = dispatch.next(now, inflight);
    if (d instanceof GpuDecision.Dispatch go && controller.algorithm() == Algorithm.PROPORTIONAL_SHARE
        && vms.containsKey(go.work().vgpu())) {
      budget.orElseThrow().charge(go.work().vgpu(), go.work().soloNanos(), now);
      chargedAtDispatch.put(go.work().id(), go.work().soloNanos());
    }
    return d;
  }

  @Override
  public PresentMode presentMode(int vgpu) {
    VgpuParams vm = known(vgpu);
    return switch (controller.algorithm()) {
      case SLA_AWARE ->
          new PresentMode.SlaAware(SlaPacer.targetLatencyNanos(vm.slaFps()), presentHistory.orElseThrow());
      case PROPORTIONAL_SHARE -> new PresentMode.ProportionalShare(controller.shares().get(vgpu));
    };
  }

  @Override
  public PresentDecision requestPresent(int vgpu, long now) {
    known(vgpu);
    advance(now);
    if (controller.algorithm() == Algorithm.SLA_AWARE) {
      return ALLOW;
    }
    long allowedAt = budget.orElseThrow().presentAllowedAt(vgpu, now);
    return allowedAt <= now ? ALLOW : new PresentDecision.PostponeUntil(allowedAt);
  }

  @Override
  public boolean secondEnded(long now, List<SecondReport> running) {
    Set<Integer> seen = new HashSet<>();
    for (SecondReport report : running) {
      known(report.vgpu());
      if (!seen.add(report.vgpu())) {
        throw new IllegalArgumentException(name + ": vGPU " + report.vgpu() + " reported twice in one second");
      }
    }
    advance(now);
    boolean switched = controller.secondEnded(now, running);
    if (switched) {
      sharesChanged();
    }
    return switched;
  }

  @Override
  public Algorithm algorithm() {
    return controller.algorithm();
  }

  @Override
  public List<AlgorithmSwitch> switches() {
    return controller.switches();
  }

  @Override
  public SortedMap<Integer, Double> shares() {
    return controller.shares();
  }

  @Override
  public List<String> checkInvariants() {
    List<String> all = new ArrayList<>(dispatch.checkInvariants());
    budget.ifPresent(b -> all.addAll(b.checkInvariants()));
    all.addAll(violations.list());
    return all;
  }

  private void advance(long now) {
    budget.ifPresent(b -> b.advance(now));
  }

  private void sharesChanged() {
    budget.ifPresent(b -> b.setShares(controller.shares()));
  }

  private VgpuParams known(int vgpu) {
    VgpuParams vm = vms.get(vgpu);
    if (vm == null) {
      throw new IllegalArgumentException(name + ": unknown vGPU " + vgpu);
    }
    return vm;
  }

  private static int wholeSeconds(PolicyParams params, String policy, String key) {
    long nanos = ParamChecks.positiveNanos(params, policy, key);
    if (nanos % SECOND != 0 || nanos / SECOND > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(policy + ": parameter '" + key
          + "' must be a whole number of seconds (VMs report once a second), got " + nanos + " ns");
    }
    return (int) (nanos / SECOND);
  }
}
