package org.gpuemu.policies.cpu;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.NavigableSet;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.gpuemu.policies.ParamChecks;
import org.gpuemu.policies.PolicyParams;

/**
 * A CFS-like weighted fair share of one physical core among the vCPUs placed on it: the CPU scheduling of the
 * host (Linux CFS under KVM) that the GPU papers' vCPUs run on, with CFS's virtual runtime, target latency and
 * sleeper placement. It is the "weighted fair / CFS-like" CPU policy of the design (docs/concepts/architecture.md).
 *
 * <p>Rules and the interpretations chosen:
 * <ul>
 *   <li>Weight scale: weight 1 is CFS's {@code NICE_0_LOAD} (1024). {@link #ran} advances a vCPU's virtual
 *       runtime by {@code nanos * 1024 / (1024 * weight)}, i.e. {@code nanos / weight}, so virtual runtime is
 *       measured in nanoseconds of a weight-1 vCPU. The division's remainder is carried per vCPU, so no
 *       nanosecond of accounting is lost to rounding.</li>
 *   <li>{@link #pick} runs the runnable vCPU with the smallest virtual runtime (ties: the lowest vCPU index, for
 *       determinism) for a slice of {@code max(min-granularity, period * weight / sum of runnable weights)}. The
 *       period is not stretched when many vCPUs are runnable; the minimum granularity bounds the slice instead.</li>
 *   <li>{@code minVruntime} follows CFS's {@code min_vruntime}: the smallest virtual runtime among runnable vCPUs,
 *       or the last known value when none is runnable, and it never decreases (it is the maximum of its previous
 *       value and the current smallest).</li>
 *   <li>Sleeper credit: a vCPU that becomes runnable after being blocked gets
 *       {@code vruntime = max(its own, minVruntime - period / 2)}, CFS's {@code place_entity} with
 *       {@code GENTLE_FAIR_SLEEPERS}: a short sleeper keeps its position, a long sleeper is owed at most half a
 *       period, so it cannot bank unbounded credit while blocked.</li>
 *   <li>A vCPU seen for the first time starts at {@code minVruntime}: joining late neither earns credit nor pays
 *       a debit (CFS's placement of a new task without {@code START_DEBIT}).</li>
 *   <li>Wakeup preemption ({@link #preempts}, CFS's {@code check_preempt_wakeup}): a woken vCPU takes the core
 *       when the running one's virtual runtime exceeds its own by more than {@code wakeup-granularity} scaled to
 *       the woken vCPU's weight ({@code wakeup_gran}); so a vCPU woken by a GPU answer does not wait out another's
 *       slice, as under the hosts the papers used (Xen's BOOST does the same).</li>
 *   <li>{@link #boost} is CFS's "next buddy": the vCPU is picked next once, whatever its virtual runtime, and pays
 *       for what it runs.</li>
 *   <li>{@link #yielded} is CFS's {@code sched_yield} ({@code yield_task_fair} in Linux 4.x's kernel/sched/fair.c,
 *       the CFS of FairGV's KVM host): nothing happens when the yielding vCPU is the only runnable one; otherwise it
 *       becomes the "skip buddy", which {@code pick_next_entity} avoids "if running something else can be done
 *       without getting too unfair": when it would be the pick (the smallest virtual runtime), the runnable vCPU
 *       with the next smallest is picked instead if its virtual runtime exceeds the yielder's by at most
 *       {@code wakeup-granularity} scaled to the yielder's weight ({@code wakeup_preempt_entity(second, left) < 1}),
 *       else the yielder runs again. The skip buddy is cleared when the yielder is picked or blocks
 *       ({@code clear_buddies}); a next buddy ({@link #boost}) is picked before it is considered.</li>
 * </ul>
 *
 * <p>Parameters: {@code period} (nanos, &gt; 0; the target latency), {@code min-granularity} (nanos, &gt; 0),
 * {@code wakeup-granularity} (nanos, &gt; 0).
 */
public final class WeightedFairPolicy implements CpuPolicy {
  /** Registry name. */
  public static final String NAME = "weighted-fair";
  /** Parameter: target latency in which every runnable vCPU runs once (nanos). */
  public static final String PERIOD = "period";
  /** Parameter: shortest slice handed out, however many vCPUs are runnable (nanos). */
  public static final String MIN_GRANULARITY = "min-granularity";
  /** Parameter: how far ahead the running vCPU must be before a woken one preempts it (nanos, weight 1). */
  public static final String WAKEUP_GRANULARITY = "wakeup-granularity";

  private static final class Vcpu {
    final int index;
    int weight;
    long vruntime;
    /** Nanoseconds run but not yet turned into virtual runtime (less than one weight). */
    long remainder;
    boolean runnable;

    Vcpu(int index) {
      this.index = index;
    }
  }

  private final long period;
  private final long minGranularity;
  private final long wakeupGranularity;
  /** The vCPU to pick next once ({@link #boost}); -1 for none. */
  private int nextBuddy = -1;
  /** The vCPU that yielded, avoided by the next picks while it would be the pick ({@link #yielded}); -1 for none. */
  private int skipBuddy = -1;
  private final SortedMap<Integer, Vcpu> vcpus = new TreeMap<>();
  /**
   * The run queue, CFS's red-black tree: a vCPU is removed before its virtual runtime changes, unless it keeps its
   * place ({@link #ran}).
   */
  private final NavigableSet<Vcpu> queue =
      new TreeSet<>(Comparator.<Vcpu>comparingLong(v -> v.vruntime).thenComparingInt(v -> v.index));
  private long runnableWeight;
  private long minVruntime;
  private long minVruntimeAtLastCheck;

  /** Reads {@code period} and {@code min-granularity}. */
  public WeightedFairPolicy(PolicyParams params) {
    this.period = ParamChecks.positiveNanos(params, NAME, PERIOD);
    this.minGranularity = ParamChecks.positiveNanos(params, NAME, MIN_GRANULARITY);
    this.wakeupGranularity = ParamChecks.positiveNanos(params, NAME, WAKEUP_GRANULARITY);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void runnable(int vcpu, int weight, long now) {
    if (weight <= 0) {
      throw new IllegalArgumentException(NAME + ": vCPU " + vcpu + " has weight " + weight + "; weights are > 0");
    }
    Vcpu v = vcpus.get(vcpu);
    if (v == null) {
      v = new Vcpu(vcpu);
      v.vruntime = minVruntime;
      vcpus.put(vcpu, v);
    } else if (v.runnable) {
      runnableWeight += weight - v.weight;
      v.weight = weight;
      return;
    } else {
      v.vruntime = Math.max(v.vruntime, minVruntime - period / 2);
    }
    v.weight = weight;
    v.runnable = true;
    queue.add(v);
    runnableWeight += weight;
    updateMinVruntime();
  }

  @Override
  public void blocked(int vcpu, long now) {
    Vcpu v = vcpus.get(vcpu);
    if (v == null || !v.runnable) {
      return;
    }
    queue.remove(v);
    v.runnable = false;
    if (skipBuddy == vcpu) skipBuddy = -1;
    runnableWeight -= v.weight;
    updateMinVruntime();
  }

  @Override
  public CpuDecision pick(long now) {
    if (queue.isEmpty()) {
      return CpuDecision.IDLE;
    }
    Vcpu buddy = nextBuddy >= 0 ? vcpus.get(nextBuddy) : null;
    nextBuddy = -1;
    Vcpu v = buddy != null && buddy.runnable ? buddy : queue.first();
    if (v.index == skipBuddy && v != buddy) {
      Vcpu second = queue.higher(v);
      if (second != null && second.vruntime - v.vruntime <= wakeupGranularity / v.weight) v = second;
    }
    if (v.index == skipBuddy) skipBuddy = -1;
    return new CpuDecision.Run(v.index, Math.max(minGranularity, share(v.weight)));
  }

  @Override
  public void yielded(int vcpu, long now) {
    Vcpu v = vcpus.get(vcpu);
    if (v == null || !v.runnable || queue.size() < 2) return; // the only runnable one goes on
    skipBuddy = vcpu;
  }

  @Override
  public boolean preempts(int woken, int running, long now) {
    Vcpu w = vcpus.get(woken);
    Vcpu r = vcpus.get(running);
    if (w == null || r == null || !w.runnable || woken == running) {
      return false;
    }
    return r.vruntime - w.vruntime > wakeupGranularity / w.weight;
  }

  @Override
  public void boost(int vcpu, long now) {
    Vcpu v = vcpus.get(vcpu);
    if (v != null && v.runnable) {
      nextBuddy = vcpu;
    }
  }

  @Override
  public void ran(int vcpu, long nanos, long now) {
    Vcpu v = vcpus.get(vcpu);
    if (v == null) {
      throw new IllegalArgumentException(NAME + ": ran() for vCPU " + vcpu + " which was never runnable");
    }
    if (nanos < 0) {
      throw new IllegalArgumentException(NAME + ": vCPU " + vcpu + " ran a negative " + nanos + " ns");
    }
    long owed = v.remainder + nanos;
    long vruntime = v.vruntime + owed / v.weight;
    // the virtual runtime only grows: a queued vCPU keeps its place unless it passes the next one, and is taken out
    // and put back (a new tree node) only then; the one runnable vCPU of a core never is
    Vcpu next = v.runnable ? queue.higher(v) : null;
    boolean moves = next != null && (vruntime > next.vruntime || vruntime == next.vruntime && v.index > next.index);
    boolean queued = moves && queue.remove(v);
    v.vruntime = vruntime;
    v.remainder = owed % v.weight;
    if (queued) {
      queue.add(v);
    }
    updateMinVruntime();
  }

  @Override
  public List<String> checkInvariants() {
    List<String> found = new ArrayList<>();
    // Monotonicity is checked between successive checks: runs and tests call this at the end and in between.
    if (minVruntime < minVruntimeAtLastCheck) {
      found.add(NAME + ": min vruntime decreased from " + minVruntimeAtLastCheck + " to " + minVruntime);
    }
    minVruntimeAtLastCheck = Math.max(minVruntimeAtLastCheck, minVruntime);
    long weight = 0;
    for (Vcpu v : vcpus.values()) {
      if (v.runnable && v.vruntime < minVruntime - period / 2) {
        found.add(NAME + ": runnable vCPU " + v.index + " holds more than half a period of credit (vruntime "
            + v.vruntime + ", min vruntime " + minVruntime + ")");
      }
      if (v.vruntime < 0) {
        found.add(NAME + ": vCPU " + v.index + " has negative vruntime " + v.vruntime);
      }
      if (!v.runnable && queue.contains(v)) {
        found.add(NAME + ": blocked vCPU " + v.index + " is in the run queue");
      }
      if (v.runnable && !queue.contains(v)) {
        found.add(NAME + ": runnable vCPU " + v.index + " is missing from the run queue");
      }
    }
    for (Vcpu v : queue) {
      weight += v.weight;
    }
    if (weight != runnableWeight) {
      found.add(NAME + ": runnable weight is " + runnableWeight + " but the run queue sums to " + weight);
    }
    return found;
  }

  /** The monotonic minimum virtual runtime (CFS's {@code min_vruntime}), in weight-1 nanoseconds. */
  public long minVruntime() {
    return minVruntime;
  }

  /** A vCPU's virtual runtime in weight-1 nanoseconds; 0 for a vCPU never seen. */
  public long vruntime(int vcpu) {
    Vcpu v = vcpus.get(vcpu);
    return v == null ? 0 : v.vruntime;
  }

  /** {@code period * weight / runnableWeight}, split so the product cannot overflow for sane weights. */
  private long share(int weight) {
    return period / runnableWeight * weight + Math.multiplyExact(period % runnableWeight, weight) / runnableWeight;
  }

  /** CFS's update_min_vruntime: follow the smallest runnable vruntime upwards only. */
  private void updateMinVruntime() {
    if (!queue.isEmpty()) {
      minVruntime = Math.max(minVruntime, queue.first().vruntime);
    }
  }
}
