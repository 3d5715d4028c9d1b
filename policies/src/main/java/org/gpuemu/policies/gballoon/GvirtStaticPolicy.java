package org.gpuemu.policies.gballoon;

import java.util.List;
import org.gpuemu.policies.PolicyParams;

/**
 * gVirt with gScale's slot sharing and a fixed high memory per VM (gballoon.txt §2.1, §4.1): the baselines
 * {@code static-384} ("gVirt-384", the 384 MB recommended for Linux VMs [20]) and {@code static-1024}
 * ("gVirt-1024"), and the other GVT-g types, {@code static-512} and {@code static-2048}. Every VM gets a range of
 * the type's slots when it joins ({@link SlotMap#place}: least overlap) and keeps it; an allocation beyond it is
 * granted up to the range and refused past it, so a guest that needs more returns objects. Its vGPU context switches
 * copy GTT entries like gBalloon's, and it measures W and R_copy each period (for comparison), but never acts on
 * them.
 *
 * <p>Parameters: the slot policies' ({@link SlotPolicy}); the size is the type, in the name.
 */
public final class GvirtStaticPolicy extends SlotPolicy {
  /** The GVT-g types' high memory, in MiB (gballoon.txt §2.2: sizes above 384 MB in whole slots). */
  public static final List<Integer> TYPES_MIB = List.of(384, 512, 1024, 2048);

  private final int typeMib;
  private final int slots;

  /** gVirt with {@code typeMib} MiB of high memory per VM, one of {@link #TYPES_MIB}. */
  public GvirtStaticPolicy(PolicyParams params, int typeMib) {
    super(params, nameOf(typeMib));
    if (!TYPES_MIB.contains(typeMib)) {
      throw new IllegalArgumentException("no GVT-g type of " + typeMib + " MiB; types: " + TYPES_MIB);
    }
    this.typeMib = typeMib;
    this.slots = memory.slotsFor(typeMib * GraphicsMemory.MIB);
  }

  /** Registry name of a type: {@code static-384}, ... */
  public static String nameOf(int typeMib) {
    return "static-" + typeMib;
  }

  @Override
  int initialSlots() {
    return slots;
  }

  @Override
  Expansion lackOfMemory(int vm, long beyondBytes) {
    return new Expansion.Refused(name() + " never expands: " + typeMib + " MiB per VM");
  }

  @Override
  List<SlotChange> react(double f) {
    return List.of();
  }

  @Override
  boolean sizeAllowed(int joinedSlots, int slots) {
    return slots == joinedSlots;
  }
}
