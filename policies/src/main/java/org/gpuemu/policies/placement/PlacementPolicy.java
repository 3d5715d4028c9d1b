package org.gpuemu.policies.placement;

import java.util.List;

/**
 * Decides on which GPU of which host a VM runs, from its request and every GPU's free capacity over its stay.
 * Deterministic: the same request and candidates give the same decision; it keeps no state between calls (the
 * {@link PlacementPlan} keeps the reservations), so a plugin policy needs nothing but this method.
 */
public interface PlacementPolicy {
  /** The policy's registered name. */
  String name();

  /**
   * Where {@code vm} goes among {@code candidates} (one per GPU of every live host, in host then GPU order); a
   * {@link PlacementDecision.Placed} names one of them, which must fit the request.
   */
  PlacementDecision place(VmRequest vm, List<Candidate> candidates);

  /** The reason when no candidate fits: the first resource that no GPU has enough of. */
  static PlacementDecision.Rejected noRoom(VmRequest vm, List<Candidate> candidates) {
    if (candidates.isEmpty()) return new PlacementDecision.Rejected("no host is up");
    boolean cpu = false, gpu = false, memory = false;
    for (Candidate c : candidates) {
      cpu |= vm.cpuMilli() <= c.freeCpuMilli();
      gpu |= vm.gpuMilli() <= c.freeGpuMilli();
      memory |= vm.memoryBytes() <= c.freeMemoryBytes();
    }
    String what = !gpu ? "GPU share (" + vm.gpuMilli() + " milli)" : !memory ? "GPU memory (" + vm.memoryBytes()
        + " B)" : !cpu ? "CPU (" + vm.cpuMilli() + " milli)" : "CPU, GPU share and memory on one GPU together";
    return new PlacementDecision.Rejected("no-capacity: no GPU has room for its " + what);
  }
}
