package org.gpuemu.policies.gballoon;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.gpuemu.policies.ParamChecks;
import org.gpuemu.policies.PolicyParams;

/**
 * gBalloon, GPU memory ballooning (Park et al., gballoon.txt §3). Every VM starts with the same high memory (§4.4:
 * 384 MB) and:
 * <ul>
 *   <li><b>Expansion</b> (§3.1, Figure 3): when a guest's allocation does not fit, its driver must return objects and
 *       asks the host for more space (step 1); unless f is above Threshold_high, the host grows the VM's range by Q
 *       slots where Algorithm 1 ({@link AdjustmentAlgorithm#expansion}) shares least (step 2), the private GTT grows
 *       with it (step 3) and the guest gets the space (step 4: the allocation is granted up to the new size).</li>
 *   <li><b>Reduction</b> (§3.2, Eq. 1-3): every period f(W, R_copy) = αW + βR_copy is classified ({@link Band}).
 *       Below Threshold_low nothing is taken. Between the thresholds the VM with much memory and the lowest
 *       utilisation gives up a slot. Above Threshold_high expansions are refused and two slots are taken regardless
 *       of usage. Algorithm 1 ({@link AdjustmentAlgorithm#reduction}) picks the end to take them from.</li>
 * </ul>
 *
 * <p>Interpretations where the paper is silent:
 * <ul>
 *   <li>Q of an expansion is the slots the allocation lacks, at most {@code expansion-slots} (1: §4.4 "the slots are
 *       increased one by one"; Figure 4's request of two slots is Q = 2), and at most what the map has left.</li>
 *   <li>"A VM that occupies a large amount of GPU memory" is one whose range is larger than when it joined: a VM is
 *       never taken below its initial size, the gVirt-384 size that runs most workloads (§2.2).</li>
 *   <li>Between the thresholds: among those VMs, the one with the lowest utilisation (bytes held over its range's
 *       bytes; ties: more slots, then the lower VM number) gives up {@code between-reduction-slots} (1), but only
 *       slots it does not use: a VM whose every slot is in use loses nothing here, since taking used memory
 *       "regardless of the GPU memory usage" is what distinguishes the band above Threshold_high.</li>
 *   <li>Above Threshold_high: the VM with the most slots above its initial size (ties: lower utilisation, then the
 *       lower VM number) gives up {@code above-reduction-slots} (2), or what it has above its initial size; memory
 *       in use is evicted. One VM per period in either band.</li>
 *   <li>Until the first period ends f is 0: expansions are approved.</li>
 *   <li>Where a VM's first range goes (§3.1 says only that the guest balloons all but its space): apart from the
 *       others ({@link SlotMap#placeSpread}). §3.3 grows a range only at its two ends and Algorithm 1 shares as
 *       little as it can, so ranges placed side by side (gVirt's packing, {@link SlotMap#place}) could only grow into
 *       each other, and every grown slot would be copied at every switch between the neighbours; ranges spread over
 *       the map have free slots to grow into (at 3 VMs: 0, 48 and 24, room for 13 slots each, Valley's most).</li>
 * </ul>
 *
 * <p>Parameters: the slot policies' ({@link SlotPolicy}), {@code initial-high-memory} (bytes, whole slots),
 * {@code threshold-low} &lt; {@code threshold-high} (reals), {@code expansion-slots}, {@code between-reduction-slots},
 * {@code above-reduction-slots} (counts &gt; 0).
 */
public final class GballoonPolicy extends SlotPolicy {
  /** Registry name. */
  public static final String NAME = "gballoon";
  /** Parameter: every VM's high memory when it joins (bytes, whole slots; §4.4's 384 MB). */
  public static final String INITIAL_HIGH_MEMORY = "initial-high-memory";
  /** Parameter: Threshold_low (§3.2: 0.5). */
  public static final String THRESHOLD_LOW = "threshold-low";
  /** Parameter: Threshold_high (§3.2: 1.0). */
  public static final String THRESHOLD_HIGH = "threshold-high";
  /** Parameter: the most slots one expansion adds (Q; §4.4: one by one). */
  public static final String EXPANSION_SLOTS = "expansion-slots";
  /** Parameter: slots taken per period between the thresholds. */
  public static final String BETWEEN_REDUCTION_SLOTS = "between-reduction-slots";
  /** Parameter: slots taken per period above Threshold_high (§3.2: two 64 MB slots). */
  public static final String ABOVE_REDUCTION_SLOTS = "above-reduction-slots";

  private final int initialSlots;
  private final double thresholdLow;
  private final double thresholdHigh;
  private final int expansionSlots;
  private final int betweenSlots;
  private final int aboveSlots;
  private double f;
  private Band band = Band.BELOW_LOW;

  /** Reads the parameters above. */
  public GballoonPolicy(PolicyParams params) {
    super(params, NAME);
    long initial = params.count(INITIAL_HIGH_MEMORY);
    if (initial <= 0 || initial % memory.slotBytes() != 0) {
      throw new IllegalArgumentException(NAME + ": parameter '" + INITIAL_HIGH_MEMORY + "' must be whole slots of "
          + size(memory.slotBytes()) + ", got " + initial);
    }
    this.initialSlots = memory.slotsFor(initial);
    this.thresholdLow = params.real(THRESHOLD_LOW);
    this.thresholdHigh = params.real(THRESHOLD_HIGH);
    Band.of(0, thresholdLow, thresholdHigh);
    this.expansionSlots = ParamChecks.positiveCount(params, NAME, EXPANSION_SLOTS);
    this.betweenSlots = ParamChecks.positiveCount(params, NAME, BETWEEN_REDUCTION_SLOTS);
    this.aboveSlots = ParamChecks.positiveCount(params, NAME, ABOVE_REDUCTION_SLOTS);
  }

  /** The band of the latest period's f ({@link Band#BELOW_LOW} before the first). */
  public Band band() {
    return band;
  }

  /** The latest period's f(W, R_copy) (0 before the first). */
  public double f() {
    return f;
  }

  @Override
  int initialSlots() {
    return initialSlots;
  }

  @Override
  Expansion lackOfMemory(int vm, long beyondBytes) {
    if (band == Band.ABOVE_HIGH) {
      return new Expansion.Refused(String.format(Locale.ROOT,
          "expansion refused: f(W, R_copy) = %.3f is above threshold-high %s", f, thresholdHigh));
    }
    SlotRange before = map.range(vm);
    // room to grow: every slot left of the range, and right of it up to the usable end (a memory-pressure fault
    // withdraws the top slots: growing into them would give the guest nothing)
    int room = before.start() + Math.max(0, map.usable() - before.end());
    int q = Math.min(Math.min(expansionSlots, memory.slotsFor(beyondBytes)), room);
    if (q == 0) {
      return new Expansion.Refused(map.usable() == map.slots()
          ? "expansion refused: the VM already spans all " + map.slots() + " slots"
          : "expansion refused: no usable slot left to grow into");
    }
    if (!(AdjustmentAlgorithm.expansion(map, vm, q) instanceof Adjustment.Split split)) {
      throw new IllegalStateException(NAME + ": Algorithm 1 refused " + q + " slots within the map");
    }
    return new Expansion.Grown(new SlotChange(vm, before, map.grow(vm, split.left(), split.right()), 0));
  }

  @Override
  List<SlotChange> react(double f) {
    this.f = f;
    this.band = Band.of(f, thresholdLow, thresholdHigh);
    Optional<SlotChange> change = switch (band) {
      case BELOW_LOW -> Optional.empty();
      case BETWEEN -> shrinkUnderused();
      case ABOVE_HIGH -> shrinkLargest();
    };
    return change.map(List::of).orElse(List.of());
  }

  @Override
  boolean sizeAllowed(int joinedSlots, int slots) {
    return slots >= joinedSlots;
  }

  @Override
  SlotRange placeNew(int vm, int size) {
    return map.placeSpread(vm, size);
  }

  /** Between the thresholds: one of its unused slots from the expanded VM with the lowest utilisation. */
  private Optional<SlotChange> shrinkUnderused() {
    Comparator<Map.Entry<Integer, Vm>> order = Comparator.<Map.Entry<Integer, Vm>>comparingDouble(
        e -> utilisation(e.getKey())).thenComparing(e -> -map.range(e.getKey()).size());
    return vms().entrySet().stream()
        .filter(e -> above(e) > 0 && unusedSlots(e.getKey()) > 0)
        .min(order)
        .map(e -> shrink(e.getKey(), Math.min(betweenSlots, Math.min(above(e), unusedSlots(e.getKey())))));
  }

  /** Above Threshold_high: two slots from the VM with the most slots above its initial size, used or not. */
  private Optional<SlotChange> shrinkLargest() {
    Comparator<Map.Entry<Integer, Vm>> order = Comparator.<Map.Entry<Integer, Vm>>comparingInt(
        e -> -map.range(e.getKey()).size()).thenComparingDouble(e -> utilisation(e.getKey()));
    return vms().entrySet().stream()
        .filter(e -> above(e) > 0)
        .min(order)
        .map(e -> shrink(e.getKey(), Math.min(aboveSlots, above(e))));
  }

  /** Slots the VM has beyond its initial size. */
  private int above(Map.Entry<Integer, Vm> e) {
    return map.range(e.getKey()).size() - e.getValue().joinedSlots;
  }

  /** Whole slots of the VM's range it holds nothing in. */
  private int unusedSlots(int vm) {
    return Math.toIntExact((capacity(vm) - vms().get(vm).held) / memory.slotBytes());
  }

  private double utilisation(int vm) {
    return (double) vms().get(vm).held / capacity(vm);
  }
}
