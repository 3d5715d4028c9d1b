package org.gpuemu.policies.nvidia;

import java.util.List;

/**
 * One MIG GPU instance profile of a GPU: what an instance of it owns and where it may start.
 *
 * @param name the profile's name ("1g.5gb")
 * @param computeSlices compute (GPC) slices of the 7 ("Fraction of SMs" n/7)
 * @param memorySlices memory slices of the 8 ("Fraction of Memory" n/8, Full = 8); also the placement's size
 * @param sms streaming multiprocessors of the instance
 * @param memoryMiB device memory of the instance
 * @param copyEngines copy engines of the instance
 * @param maxInstances "Number of Instances Available" on one GPU
 * @param starts the memory slices an instance may start at ({@code nvidia-smi mig -lgipp}); it occupies
 *     {@code [start, start + memorySlices)}
 */
public record MigProfile(String name, int computeSlices, int memorySlices, int sms, int memoryMiB, int copyEngines,
    int maxInstances, List<Integer> starts) {
  public MigProfile {
    starts = List.copyOf(starts);
    if (computeSlices <= 0 || memorySlices <= 0 || sms <= 0 || memoryMiB <= 0 || maxInstances <= 0 || starts.isEmpty()) {
      throw new IllegalArgumentException("MIG profile " + name + ": every count must be > 0 and a start given");
    }
  }

  /** The fraction of the GPU's SMs this profile computes with, as the MIG guide writes it (n/7). */
  public double smFraction() {
    return computeSlices / 7.0;
  }
}
