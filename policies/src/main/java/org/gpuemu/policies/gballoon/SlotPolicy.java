package org.gpuemu.policies.gballoon;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.gpuemu.policies.ParamChecks;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.Violations;
import org.gpuemu.policies.memory.MemoryDecision;
import org.gpuemu.policies.memory.StaticCapPolicy;

/**
 * What the slot policies (gVirt's static types and gBalloon) share: the {@link SlotMap}, each VM's allocations
 * against its range, GTT copies at context switches, and the measurement of W and R_copy every period. Subclasses
 * decide a VM's first range, what happens when an allocation does not fit, and what a period's f leads to.
 *
 * <p>Interpretations: a VM holds what it was granted and not freed; a free of more than it holds is legitimate up to
 * what a reduction took from it (its guest learns of the reduction late and frees what it believed it held),
 * beyond that it is clamped and reported. A vCPU's s_ij (Eq. 2) is the rest of the period after its steal time;
 * vCPUs never reported add nothing to W. Allocating zero bytes is a no-op that is granted.
 *
 * <p>Parameters, shared by every slot policy: the layout ({@link GraphicsMemory}'s keys), {@code copy-per-slot}
 * (nanos, {@link CopyCost}), {@code period} (nanos, the profiling period t) and {@code max-w}, {@code max-rcopy}
 * (percent, the platform's largest W and R_copy, whose reciprocals are α and β of Eq. 3).
 */
abstract class SlotPolicy implements GttMemoryPolicy {
  /** Parameter: the profiling period t (nanos). */
  static final String PERIOD = "period";
  /** Parameter: the largest W of the platform, in percent (α = 1 / max-w). */
  static final String MAX_W = "max-w";
  /** Parameter: the largest R_copy of the platform, in percent (β = 1 / max-rcopy). */
  static final String MAX_RCOPY = "max-rcopy";

  /** One VM's memory. */
  static final class Vm {
    final String name;
    /** The size of its range when it joined. */
    final int joinedSlots;
    long held;
    /** Bytes reductions took from it that its guest has not freed yet. */
    long evicted;

    Vm(String name, int joinedSlots) {
      this.name = name;
      this.joinedSlots = joinedSlots;
    }
  }

  /** What an allocation beyond a VM's capacity led to. */
  sealed interface Expansion {
    record Grown(SlotChange change) implements Expansion {}

    record Refused(String reason) implements Expansion {}
  }

  private record VcpuKey(int vm, int vcpu) {}

  final GraphicsMemory memory;
  final SlotMap map;
  private final String policyName;
  private final CopyCost cost;
  private final long periodNanos;
  private final double maxW;
  private final double maxRcopy;
  private final SortedMap<Integer, Vm> vms = new TreeMap<>();
  private final SortedMap<VcpuKey, Long> steal =
      new TreeMap<>(Comparator.comparingInt(VcpuKey::vm).thenComparingInt(VcpuKey::vcpu));
  private final Violations violations = new Violations();
  private long copyNanos;
  private long periodStart;
  private long switches;
  private long slotsCopied;
  private long lowCopies;
  private long copyCpuNanos;
  private long expansions;
  private long expansionsRefused;
  private long reductions;
  private long slotsReduced;
  private long evictedBytes;
  private long pressureEvictedBytes;

  SlotPolicy(PolicyParams params, String policyName) {
    this.policyName = policyName;
    try {
      this.memory = GraphicsMemory.from(params);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(policyName + ": " + e.getMessage(), e);
    }
    this.map = new SlotMap(memory.guestSlots());
    this.cost = new CopyCost(ParamChecks.positiveNanos(params, policyName, CopyCost.COPY_PER_SLOT), memory);
    this.periodNanos = ParamChecks.positiveNanos(params, policyName, PERIOD);
    this.maxW = ParamChecks.positiveReal(params, policyName, MAX_W);
    this.maxRcopy = ParamChecks.positiveReal(params, policyName, MAX_RCOPY);
  }

  /** Slots a VM's range has when it joins. */
  abstract int initialSlots();

  /** An allocation of {@code vm} needs {@code beyondBytes} more than its range holds. */
  abstract Expansion lackOfMemory(int vm, long beyondBytes);

  /** The reductions f calls for at the end of a period. */
  abstract List<SlotChange> react(double f);

  /** Whether a range of {@code slots} is allowed for a VM that joined with {@code joinedSlots}. */
  abstract boolean sizeAllowed(int joinedSlots, int slots);

  /** Places a joining VM's range of {@code size} slots: where it overlaps least ({@link SlotMap#place}). */
  SlotRange placeNew(int vm, int size) {
    return map.place(vm, size);
  }

  @Override
  public String name() {
    return policyName;
  }

  @Override
  public void addVm(int vm, String name, long capBytes) {
    requireNew(vm, name);
    join(vm, name, placeNew(vm, initialSlots()));
  }

  /** Joins a VM with exactly {@code range} (to replay a paper's figure). */
  void addVm(int vm, String name, SlotRange range) {
    requireNew(vm, name);
    map.put(vm, range);
    join(vm, name, range);
  }

  @Override
  public MemoryDecision allocate(int vm, long bytes, long now) {
    Vm v = vm(vm, bytes, "allocate");
    long room = capacity(vm) - v.held;
    String refusal = "";
    if (bytes > room) {
      Expansion outcome = lackOfMemory(vm, bytes - room);
      if (outcome instanceof Expansion.Refused refused) {
        expansionsRefused++;
        refusal = "; " + refused.reason();
      } else {
        expansions++;
      }
      room = capacity(vm) - v.held;
    }
    if (bytes > 0 && room <= 0) {
      return new MemoryDecision.Rejected("vm '" + v.name + "': lack of memory: holds " + size(v.held) + ", all of its "
          + size(capacity(vm)) + " of high memory" + refusal + pressure());
    }
    long grant = Math.min(bytes, room);
    v.held += grant;
    return new MemoryDecision.Granted(grant);
  }

  @Override
  public void free(int vm, long bytes, long now) {
    Vm v = vm(vm, bytes, "free");
    if (bytes <= v.held) {
      v.held -= bytes;
      return;
    }
    long beyond = bytes - v.held;
    v.held = 0;
    if (beyond <= v.evicted) {
      v.evicted -= beyond;
    } else {
      violations.add(name() + ": vm '" + v.name + "' freed " + size(bytes) + " while holding " + size(bytes - beyond)
          + " (" + size(v.evicted) + " taken by reductions; clamped to 0)");
      v.evicted = 0;
    }
  }

  @Override
  public long allocated(int vm) {
    return vm(vm, 0, "query").held;
  }

  @Override
  public GraphicsMemory memory() {
    return memory;
  }

  @Override
  public SortedMap<Integer, SlotRange> ranges() {
    return map.ranges();
  }

  @Override
  public GttCopy switchTo(int vm) {
    vm(vm, 0, "switch to");
    GttCopy copy = cost.price(map.load(vm));
    switches++;
    slotsCopied += copy.set().slots().size();
    lowCopies += copy.set().low() ? 1 : 0;
    copyCpuNanos += copy.cpuNanos();
    return copy;
  }

  @Override
  public void stealTime(int vm, int vcpu, long stealNanos) {
    vm(vm, stealNanos, "report steal time of");
    steal.merge(new VcpuKey(vm, vcpu), stealNanos, Long::sum);
  }

  @Override
  public void copyTime(long cpuNanos) {
    if (cpuNanos < 0) {
      throw new IllegalArgumentException(name() + ": negative GTT copy time " + cpuNanos);
    }
    copyNanos += cpuNanos;
  }

  @Override
  public long periodNanos() {
    return periodNanos;
  }

  @Override
  public Profile periodEnded(long now, int hostCpus) {
    long elapsed = now - periodStart;
    if (elapsed <= 0) {
      throw new IllegalArgumentException(name() + ": period ending at " + now + " began at " + periodStart);
    }
    List<Overhead.VcpuTime> times = new ArrayList<>();
    for (long w : steal.values()) {
      long waited = Math.min(w, elapsed);
      times.add(new Overhead.VcpuTime(waited, elapsed - waited));
    }
    double w = Overhead.w(times);
    double rcopy = Overhead.rcopy(copyNanos, elapsed, hostCpus);
    double f = Overhead.f(w, rcopy, maxW, maxRcopy);
    Profile profile = new Profile(now, elapsed, w, rcopy, f, react(f));
    steal.clear();
    copyNanos = 0;
    periodStart = now;
    return profile;
  }

  @Override
  public SlotCounters counters() {
    return new SlotCounters(switches, slotsCopied, lowCopies, copyCpuNanos, expansions, expansionsRefused, reductions,
        slotsReduced, evictedBytes, pressureEvictedBytes);
  }

  /**
   * A memory-pressure fault: the host withdraws the top {@code slots} of the guests' slots until
   * {@link #restore}. Every VM's capacity is then the usable part of its range; what a VM held beyond it is evicted
   * (its guest learns its holding from the answer, and may free what it believed it held, as after a reduction).
   * The policy adapts as it adapts to any lack of memory: gVirt's static types refuse, gBalloon expands within the
   * usable slots (Algorithm 1 with M the first withdrawn slot). Returns the holding of every VM that lost memory.
   */
  @Override
  public SortedMap<Integer, Long> withdraw(int slots) {
    if (slots < 0 || slots > map.slots()) {
      throw new IllegalArgumentException(name() + ": cannot withdraw " + slots + " of " + map.slots() + " slots");
    }
    map.withdrawFrom(map.slots() - slots);
    SortedMap<Integer, Long> lost = new TreeMap<>();
    vms.forEach((vm, v) -> {
      long evicted = Math.max(0, v.held - capacity(vm));
      if (evicted == 0) return;
      v.held -= evicted;
      v.evicted += evicted;
      pressureEvictedBytes += evicted;
      lost.put(vm, v.held);
    });
    return lost;
  }

  /** The memory-pressure fault heals: every slot is the guests' again. */
  @Override
  public void restore() {
    map.withdrawFrom(map.slots());
  }

  /** Why an allocation lacks memory while the host withdraws slots ("" otherwise). */
  private String pressure() {
    if (map.usable() == map.slots()) return "";
    return "; memory pressure: the host holds slots " + map.usable() + "-" + (map.slots() - 1) + " of "
        + map.slots();
  }

  @Override
  public List<String> checkInvariants() {
    List<String> found = new ArrayList<>(violations.list());
    map.checkInvariants().forEach(v -> found.add(name() + ": " + v));
    vms.forEach((vm, v) -> {
      SlotRange range = map.range(vm);
      if (v.held < 0 || v.held > capacity(vm)) {
        found.add(name() + ": vm '" + v.name + "' holds " + size(v.held) + " outside [0, " + size(capacity(vm)) + "]");
      }
      if (!sizeAllowed(v.joinedSlots, range.size())) {
        found.add(name() + ": vm '" + v.name + "' has " + range.size() + " slots after joining with "
            + v.joinedSlots);
      }
    });
    return found;
  }

  /** Shrinks {@code vm}'s range by {@code q} slots where Algorithm 1 says; what it held beyond is evicted. */
  SlotChange shrink(int vm, int q) {
    Vm v = vms.get(vm);
    SlotRange before = map.range(vm);
    if (!(AdjustmentAlgorithm.reduction(map, vm, q) instanceof Adjustment.Split split)) {
      throw new IllegalStateException(name() + ": cannot take " + q + " slots from vm '" + v.name + "' " + before);
    }
    SlotRange after = map.shrink(vm, split.left(), split.right());
    long evicted = Math.max(0, v.held - memory.bytesOf(map.usableIn(after)));
    v.held -= evicted;
    v.evicted += evicted;
    reductions++;
    slotsReduced += q;
    evictedBytes += evicted;
    return new SlotChange(vm, before, after, evicted);
  }

  /** Every VM's memory, by VM. */
  SortedMap<Integer, Vm> vms() {
    return vms;
  }

  /** The bytes {@code vm}'s range holds: its usable slots (all of them but during a memory-pressure fault). */
  long capacity(int vm) {
    return memory.bytesOf(map.usableIn(map.range(vm)));
  }

  /** Exact sizes for reasons. */
  static String size(long bytes) {
    return StaticCapPolicy.size(bytes);
  }

  private void requireNew(int vm, String name) {
    if (vms.containsKey(vm)) {
      throw new IllegalArgumentException(name() + ": vm " + vm + " ('" + name + "') added twice");
    }
  }

  private void join(int vm, String name, SlotRange range) {
    vms.put(vm, new Vm(name, range.size()));
  }

  private Vm vm(int vm, long amount, String action) {
    Vm v = vms.get(vm);
    if (v == null) {
      throw new IllegalArgumentException(name() + ": " + action + " unknown vm " + vm + "; known " + vms.keySet());
    }
    if (amount < 0) {
      throw new IllegalArgumentException(name() + ": vm '" + v.name + "' cannot " + action + " " + amount);
    }
    return v;
  }
}
