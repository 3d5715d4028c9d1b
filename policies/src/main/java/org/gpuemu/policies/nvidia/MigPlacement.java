package org.gpuemu.policies.nvidia;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Places MIG GPU instances on one GPU by the documented rules: a profile's instance starts only at one of its
 * documented start slices and occupies its memory slices from there (NVML: "A created GPU instance occupies memory
 * slices described by its placement. Creation of new GPU instance will fail if there is overlap with the already
 * occupied memory slices", {@code nvmlDeviceGetGpuInstancePossiblePlacements_v2}); no more instances of a profile than
 * its "Number of Instances Available"; and no more than the GPU's 7 compute slices in all (MIG User Guide, "Supported
 * MIG Profiles"). Instances are placed in request order; without a start, at the first documented start that is free
 * (what {@code nvidia-smi mig -cgi} without a placement does is not documented; first-free is our choice). Pure.
 */
public final class MigPlacement {
  /** An instance placed at {@code start} (memory slice). */
  public record Instance(String owner, MigProfile profile, int start) {
    /** Whether it shares a memory slice with {@code other}. */
    public boolean overlaps(Instance other) {
      return start < other.start + other.profile.memorySlices() && other.start < start + profile.memorySlices();
    }
  }

  private final MigGpu gpu;
  private final List<Instance> placed = new ArrayList<>();

  public MigPlacement(MigGpu gpu) {
    this.gpu = gpu;
  }

  /**
   * Places an instance of {@code profileName} for {@code owner}, at {@code start} or (empty) the first free
   * documented start; throws {@link IllegalArgumentException} with the rule it breaks.
   */
  public Instance place(String owner, String profileName, Optional<Integer> start) {
    MigProfile p = gpu.profile(profileName).orElseThrow(() -> new IllegalArgumentException("MIG profile '"
        + profileName + "' is not one of " + gpu.name() + "'s documented profiles " + String.join(", ",
        gpu.profileNames())));
    long same = placed.stream().filter(i -> i.profile().equals(p)).count();
    if (same >= p.maxInstances()) {
      throw new IllegalArgumentException("a " + gpu.name() + " holds at most " + p.maxInstances() + " " + p.name()
          + " instance(s); " + owner + " would be one more");
    }
    int compute = placed.stream().mapToInt(i -> i.profile().computeSlices()).sum();
    if (compute + p.computeSlices() > MigGpu.COMPUTE_SLICES) {
      throw new IllegalArgumentException(owner + "'s " + p.name() + " needs " + p.computeSlices()
          + " compute slice(s), " + (MigGpu.COMPUTE_SLICES - compute) + " of 7 are left");
    }
    List<Integer> candidates = start.map(List::of).orElse(p.starts());
    for (int s : candidates) {
      if (!p.starts().contains(s)) {
        throw new IllegalArgumentException(p.name() + " may start at memory slice " + p.starts() + " only, not " + s);
      }
      Instance i = new Instance(owner, p, s);
      if (placed.stream().noneMatch(i::overlaps)) {
        placed.add(i);
        return i;
      }
    }
    throw new IllegalArgumentException(owner + "'s " + p.name() + " overlaps the memory slices of "
        + placed.stream().map(i -> i.owner() + " (" + i.profile().name() + " at " + i.start() + ")").toList()
        + (start.isPresent() ? " at start " + start.get() : " at every documented start " + p.starts()));
  }

  /** The instances placed so far, in order. */
  public List<Instance> instances() {
    return List.copyOf(placed);
  }
}
