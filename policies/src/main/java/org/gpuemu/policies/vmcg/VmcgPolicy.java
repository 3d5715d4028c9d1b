package org.gpuemu.policies.vmcg;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.gpuemu.policies.ParamChecks;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.gpu.GpuDecision;
import org.gpuemu.policies.gpu.GpuWork;
import org.gpuemu.policies.gpu.LiveChange;
import org.gpuemu.policies.gpu.RequestLedger;
import org.gpuemu.policies.gpu.VgpuParams;

/**
 * VMCG, virtual multi-channel fair scheduling (Tan et al., vmcg.txt §3-5). Every VM has a V-Channel (a pending CRB
 * queue and a virtual ring, {@link VChannel}) in front of the shared physical ring. Scheduling goes in polling
 * periods (Algorithm 1):
 * <ol>
 *   <li>Steps 1-13: the VMs are sorted by the CPU scheduling time they used in the previous period (counted
 *       p/p_min times for a VM of priority p, see below) and get time slices t_1 = 16 ms,
 *       t_k = cpu_t[k]/cpu_t[1] × 16 ms ({@link TimeSlices}); the CPU times are then cleared (step 34).</li>
 *   <li>Step 14: credits are replenished if due (§4.2): when the interval TIME_G has elapsed since the last
 *       replenishment, or when a VM has spent its credits, has CRBs pending, and the GPU has room (FLAG idle and no
 *       VM with credits has anything to send). Eq. 2 ({@link CreditModel}, weighted by priority) then gives each
 *       VM whose credit1 is 0 its CREDIT_i ({@link CreditAccounts}).</li>
 *   <li>Steps 15-33 and Figure 4: the engine visits the VMs in that order. At its turn a VM with credit (status 1)
 *       sends the first four CRBs of its pending queue to its virtual ring and loses one credit; a VM without credit
 *       waits for a replenishment. A VM of priority p sends up to p/p_min times per turn (four CRBs and a credit
 *       each time its ring runs dry), see below. The owner's ring feeds the physical ring until the ring is empty
 *       and it may send no more, or the owner's slice has expired; the engine passes to the next VM with CRBs to run only once the physical ring is idle
 *       (producer-consumer). When every VM has had its turn, the next period begins.</li>
 * </ol>
 *
 * <p>Interpretations where the paper is silent:
 * <ul>
 *   <li>A CRB is one {@link GpuWork}. Steps 24-28 run as the engine reaches each VM, not all at the start of the
 *       period: a CRB that arrives before its VM's turn goes in this period, one that arrives after it waits for the
 *       next. (Sending for every VM at the period start made identical VMs unequal: a VM whose CRBs came back just
 *       after the start lost a whole period each time, and the order of turns locked that phase in.) A VM sends
 *       once per turn. CRBs still in a ring when its owner's slice expires stay there (already paid for) and go
 *       first at its next turn, behind which it sends four more.</li>
 *   <li>TIME_G is the sum of the current slices of the VMs that have CRBs (one polling period of the busy VMs:
 *       "calculate the time slice for each DomU, and then treat the time slice as the value of TIME_G"); it is
 *       computed from the queues whenever it is read, so it follows every change of the queues. Eq. 1's TIME_i is
 *       each VM's part of it, reported in {@link ChannelState}.</li>
 *   <li>FLAG is idle when nothing is in flight on the GPU. A slice starts when the VM takes the engine; a CRB
 *       dispatched before the slice ends may run past it (the GPU is not preempted). A VM alone keeps the engine
 *       from period to period without a switch.</li>
 *   <li>Priorities (a VM's weight; Figures 16-17 use 1:1:1 and 4:2:1) — the paper gives them no formula. §5.1:
 *       "due to different GPU demands for different priority of DomUs, the weight of GPU resources is not the same
 *       among DomUs ... the more commands a DomU application sends, the longer the time slice the DomU will
 *       receive. Therefore, the DomU has a higher weight." The slice is how VMCG weighs a DomU, and a DomU's
 *       priority is its weight, so both of the slice's inputs carry it: the CPU time a VM of priority p is measured
 *       by counts p/p_min times (rounded, at least once) when the slices are cut, and the VM may send p/p_min times
 *       in its turn, four CRBs and one credit each time, within its slice. With 1:1:1 both factors are 1: every VM
 *       sends once per turn, exactly Algorithm 1's round, on its measured CPU time. With 4:2:1 the VMs send 4, 2
 *       and 1 dispatches per round within slices cut from 4, 2 and 1 times their CPU times. (Weighted sends alone
 *       were measured to follow 4:2:1 only roughly in hybrid-workloads-421, CRB shares 0.43 / 0.32 / 0.25; with
 *       the slices weighted too, 0.56 / 0.25 / 0.19.) Where vCPUs
 *       share a core the CPU scheduler's weights shape the CPU time as well. Eq. 2's credits are also weighted by
 *       priority ({@link CreditModel}), as Xen's credit scheduler (§3: VMCG's model) hands out credits by
 *       weight.</li>
 *   <li>Credits seldom bind. One credit pays for four CRBs (step 28) and CREDIT = 100 per replenishment, so a VM
 *       rarely spends its credits within an interval TIME_G: the emulator's CRBs are ~2 ms batches, so 100 credits
 *       buy about 800 ms of GPU time, while §6.3's example (100 credits over 16 + 15 + 15 ms) implies CRBs of about
 *       0.115 ms. Pricing a dispatch by the paper-sized dispatches its CRBs amount to (GPU time / (TIME_G/CREDIT))
 *       makes credits bind, but was measured to make identical VMs unequal: Eq. 2 follows the pending CRBs NUM_i,
 *       which a VM with a core of its own keeps fuller (passmark-3vms: 0.39 of the CRBs for vm2 against 0.30-0.31,
 *       and the GPU idle while VMs wait for credits), so the literal one credit per dispatch is kept.</li>
 *   <li>Slice expiry and TIME_G are noticed at the next event: the owner is always dispatching or waiting for a
 *       completion, and a VM waiting for credits is served at the latest when the GPU falls idle (second
 *       replenishment rule), so the policy never needs a timer.</li>
 * </ul>
 *
 * <p>Parameters: {@code max-slice} (nanos), {@code slice-granularity} (nanos, &lt;= max-slice),
 * {@code crbs-per-dispatch} (count), {@code total-credits} (count, CREDIT), {@code max-inflight} (count), all
 * &gt; 0.
 */
public final class VmcgPolicy implements VmcgInputs {
  /** Registry name. */
  public static final String NAME = "vmcg";
  /** Parameter: the largest time slice t_1 (nanos; the paper's 16 ms). */
  public static final String MAX_SLICE = "max-slice";
  /** Parameter: slices are whole multiples of this (nanos; 1 ms reproduces the paper's 16/15/15 ms). */
  public static final String SLICE_GRANULARITY = "slice-granularity";
  /** Parameter: CRBs a VM sends per dispatch, for one credit (a count; the paper's 4, after CFQ). */
  public static final String CRBS_PER_DISPATCH = "crbs-per-dispatch";
  /** Parameter: CREDIT of Eq. 2 (a count; the paper's example allocates 34 + 33 + 33 = 100). */
  public static final String TOTAL_CREDITS = "total-credits";
  /** Parameter: CRBs handed to the GPU and not finished, at most (a count: the physical ring's depth). */
  public static final String MAX_INFLIGHT = "max-inflight";

  /** FLAG of §4.2: whether the GPU is busy. */
  public enum Flag { IDLE, BUSY }

  private static final GpuDecision NOTHING_NOW = GpuDecision.IDLE;

  /** One polling period: the turns in descending CPU time, and the turn holding the engine. */
  private static final class Period {
    final List<TimeSlices.Turn> turns;
    int position = -1;

    Period(List<TimeSlices.Turn> turns) {
      this.turns = turns;
    }
  }

  private final int crbsPerDispatch;
  private final long totalCredits;
  private final int maxInflight;
  private final TimeSlices slices;
  private final CreditAccounts credits = new CreditAccounts();
  private final SortedMap<Integer, VChannel> channels = new TreeMap<>();
  /** cpu_scheduler_time[] of Algorithm 1: CPU time per VM since the current period began. */
  private final SortedMap<Integer, Long> cpuTime = new TreeMap<>();
  private final RequestLedger ledger;

  private Period period = new Period(List.of());
  private Flag flag = Flag.IDLE;
  private int owner = -1;
  private long sliceStart;
  private long lastReplenishment;
  private long replenishments;
  private long periods;
  private long switches;
  /** Times the owner sent (four CRBs for a credit) in its current turn. */
  private int sendsThisTurn;

  /** Reads the parameters above. */
  public VmcgPolicy(PolicyParams params) {
    this.slices = new TimeSlices(ParamChecks.positiveNanos(params, NAME, MAX_SLICE),
        ParamChecks.positiveNanos(params, NAME, SLICE_GRANULARITY));
    this.crbsPerDispatch = ParamChecks.positiveCount(params, NAME, CRBS_PER_DISPATCH);
    this.totalCredits = ParamChecks.positiveCount(params, NAME, TOTAL_CREDITS);
    this.maxInflight = ParamChecks.positiveCount(params, NAME, MAX_INFLIGHT);
    this.ledger = new RequestLedger(NAME, maxInflight);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void addVgpu(VgpuParams vgpu) {
    if (channels.putIfAbsent(vgpu.vgpu(), new VChannel(slices.maxSlice(), vgpu.weight())) != null) {
      throw new IllegalArgumentException(NAME + ": vGPU " + vgpu.vgpu() + " added twice");
    }
    credits.join(vgpu.vgpu());
  }

  /** The VM's priority (its weight), from the next credit allocation and turn on. */
  @Override
  public LiveChange setWeight(int vgpu, int weight, long now) {
    VChannel channel = channels.get(vgpu);
    if (channel == null) return new LiveChange.Refused(NAME + ": no vGPU " + vgpu);
    if (weight <= 0) return new LiveChange.Refused(NAME + ": weight " + weight + "; weights are > 0");
    channel.priority = weight;
    return LiveChange.APPLIED;
  }

  @Override
  public void removeVgpu(int vgpu) {
    if (channel(vgpu).hasCrbs()) {
      throw new IllegalStateException(NAME + ": vGPU " + vgpu + " left with CRBs still in its V-Channel");
    }
    channels.remove(vgpu);
    credits.leave(vgpu);
    cpuTime.remove(vgpu);
  }

  @Override
  public void queued(GpuWork work, long now) {
    VChannel channel = channels.get(work.vgpu());
    if (channel == null) {
      throw new IllegalArgumentException(NAME + ": request " + work.id() + " from unknown vGPU " + work.vgpu());
    }
    ledger.queued(work);
    channel.pending.addLast(work);
  }

  @Override
  public void completed(GpuWork work, long gpuNanos, long now) {
    ledger.completed(work);
  }

  @Override
  public GpuDecision next(long now, int inflight) {
    flag = inflight == 0 ? Flag.IDLE : Flag.BUSY;
    while (true) {
      if (ownerContinues(now)) {
        return inflight < maxInflight ? dispatchFromOwnersRing() : NOTHING_NOW;
      }
      int turn = nextTurnWithCrbs();
      if (turn >= 0) {
        if (period.turns.get(turn).vgpu() != owner && inflight > 0) {
          return NOTHING_NOW; // the physical ring must drain before the engine switches VMs
        }
        takeEngine(turn, now);
      } else if (!startPeriod(now)) {
        return NOTHING_NOW;
      }
    }
  }

  @Override
  public void cpuTimeUsed(int vgpu, long cpuNanos) {
    channel(vgpu);
    if (cpuNanos < 0) {
      throw new IllegalArgumentException(NAME + ": vGPU " + vgpu + " reported negative CPU time " + cpuNanos);
    }
    cpuTime.merge(vgpu, cpuNanos, Long::sum);
  }

  @Override
  public void resourcesMeasured(int vgpu, double bwShare, double memoryShare) {
    VChannel channel = channel(vgpu);
    CreditModel.checkShare("PCI-E bandwidth", bwShare);
    CreditModel.checkShare("graphics memory", memoryShare);
    channel.bwShare = bwShare;
    channel.memoryShare = memoryShare;
  }

  @Override
  public SortedMap<Integer, ChannelState> channels() {
    SortedMap<Integer, Long> entitled = CreditModel.times(demands(), intervalNanos());
    SortedMap<Integer, ChannelState> states = new TreeMap<>();
    channels.forEach((vgpu, c) -> states.put(vgpu, new ChannelState(vgpu, c.pending.size(), c.ring.size(),
        credits.remaining(vgpu), credits.reallocated(vgpu), c.sliceNanos, entitled.get(vgpu))));
    return states;
  }

  /** Credit replenishments and engine switches, in summary.json under the policy's name. */
  @Override public java.util.Map<String, Object> figures() {
    java.util.Map<String, Object> figures = new java.util.LinkedHashMap<>();
    figures.put("credit_replenishments", replenishments());
    figures.put("engine_switches", switches());
    return figures;
  }

  @Override
  public long replenishments() {
    return replenishments;
  }

  @Override
  public long switches() {
    return switches;
  }

  /** Polling periods begun so far. */
  public long periods() {
    return periods;
  }

  /** The VM owning the engine, or -1 before any has. */
  public int owner() {
    return owner;
  }

  /** FLAG as of the latest {@link #next} call. */
  public Flag flag() {
    return flag;
  }

  /** The current polling period's VMs in turn order (descending CPU time). */
  public List<Integer> pollingOrder() {
    return period.turns.stream().map(TimeSlices.Turn::vgpu).toList();
  }

  /** TIME_G: the sum of the current slices of the VMs with CRBs in their V-Channels (0 when none has any). */
  public long intervalNanos() {
    return channels.values().stream().filter(VChannel::hasCrbs).mapToLong(c -> c.sliceNanos).sum();
  }

  @Override
  public List<String> checkInvariants() {
    List<String> violations = new ArrayList<>(ledger.violations());
    violations.addAll(credits.checkInvariants());
    channels.forEach((vgpu, c) -> {
      if (c.sliceNanos <= 0 || c.sliceNanos > slices.maxSlice()) {
        violations.add(NAME + ": vGPU " + vgpu + " has slice " + c.sliceNanos + " ns, outside (0, max-slice]");
      }
    });
    return violations;
  }

  /**
   * Whether the owner's turn in the current period goes on: time left in its slice and CRBs left in its ring, or,
   * its ring dry, sends left in its turn (priority over the lowest priority) with credit and CRBs to send them.
   */
  private boolean ownerContinues(long now) {
    if (period.position < 0) {
      return false; // a new period: the engine follows its order from the first turn
    }
    VChannel channel = channels.get(owner);
    if (channel == null || now - sliceStart >= channel.sliceNanos) {
      return false;
    }
    if (channel.ring.isEmpty() && sendsThisTurn < sendsPerTurn(owner) && maySend(owner)) {
      channel.send(crbsPerDispatch);
      credits.spend(owner);
      sendsThisTurn++;
    }
    return !channel.ring.isEmpty();
  }

  /** How many times a VM may send in one turn: its priority over the lowest priority, rounded, at least 1. */
  int sendsPerTurn(int vgpu) {
    return (int) Math.max(1, Math.round((double) channels.get(vgpu).priority / lowestPriority()));
  }

  private int lowestPriority() {
    return channels.values().stream().mapToInt(c -> c.priority).min().orElse(1);
  }

  private GpuDecision dispatchFromOwnersRing() {
    GpuWork crb = channels.get(owner).ring.removeFirst();
    ledger.dispatched(crb);
    return new GpuDecision.Dispatch(crb);
  }

  /**
   * The first turn after the current one whose VM has CRBs in its ring or may send some (status 1 with CRBs
   * pending); -1 when the period is over.
   */
  private int nextTurnWithCrbs() {
    for (int i = period.position + 1; i < period.turns.size(); i++) {
      int vgpu = period.turns.get(i).vgpu();
      VChannel channel = channels.get(vgpu);
      if (channel != null && (!channel.ring.isEmpty() || maySend(vgpu))) {
        return i;
      }
    }
    return -1;
  }

  /** The VM of {@code turn} takes the engine: steps 25-28 for it (four CRBs to its ring for a credit), its slice. */
  private void takeEngine(int turn, long now) {
    int vgpu = period.turns.get(turn).vgpu();
    if (owner >= 0 && vgpu != owner) {
      switches++;
    }
    sendsThisTurn = 0;
    if (maySend(vgpu)) {
      channels.get(vgpu).send(crbsPerDispatch);
      credits.spend(vgpu);
      sendsThisTurn = 1;
    }
    owner = vgpu;
    period.position = turn;
    sliceStart = now;
  }

  /**
   * Algorithm 1 for a new polling period; false (and nothing changed but a replenishment) when no VM has CRBs or
   * every VM with CRBs pending must wait for credits.
   */
  private boolean startPeriod(long now) {
    if (channels.values().stream().noneMatch(VChannel::hasCrbs)) {
      return false;
    }
    if (replenishmentDue(now)) {
      credits.reallocate(CreditModel.credits(demands(), totalCredits));
      lastReplenishment = now;
      replenishments++;
    }
    if (!anyMaySend() && channels.values().stream().allMatch(c -> c.ring.isEmpty())) {
      return false;
    }
    SortedMap<Integer, Long> measured = new TreeMap<>();
    int lowest = lowestPriority();
    channels.forEach((vgpu, c) -> measured.put(vgpu, Math.multiplyExact(cpuTime.getOrDefault(vgpu, 0L),
        (long) Math.max(1, Math.round((double) c.priority / lowest)))));
    cpuTime.clear();
    period = new Period(slices.turns(measured));
    periods++;
    period.turns.forEach(turn -> channels.get(turn.vgpu()).sliceNanos = turn.sliceNanos());
    return true;
  }

  /** §4.2's two replenishment events. */
  private boolean replenishmentDue(long now) {
    long interval = intervalNanos();
    boolean intervalElapsed = interval > 0 && now - lastReplenishment >= interval;
    boolean spentWithCrbsPending = channels.entrySet().stream()
        .anyMatch(e -> !credits.hasCredit(e.getKey()) && !e.getValue().pending.isEmpty());
    boolean gpuHasRoom = flag == Flag.IDLE && !anyMaySend()
        && channels.values().stream().allMatch(c -> c.ring.isEmpty());
    return intervalElapsed || (spentWithCrbsPending && gpuHasRoom);
  }

  /** status[i] = 1 with something to send. */
  private boolean maySend(int vgpu) {
    return credits.hasCredit(vgpu) && !channels.get(vgpu).pending.isEmpty();
  }

  private boolean anyMaySend() {
    return channels.keySet().stream().anyMatch(this::maySend);
  }

  private SortedMap<Integer, CreditModel.Demand> demands() {
    SortedMap<Integer, CreditModel.Demand> demands = new TreeMap<>();
    channels.forEach((vgpu, c) -> demands.put(vgpu, c.demand()));
    return demands;
  }

  private VChannel channel(int vgpu) {
    VChannel channel = channels.get(vgpu);
    if (channel == null) {
      throw new IllegalArgumentException(NAME + ": unknown vGPU " + vgpu);
    }
    return channel;
  }
}
