package org.gpuemu.workloads;

import java.util.Objects;

/**
 * One unit of GPU work as the guest issues it: a kernel, a draw batch or a copy.
 *
 * @param name         what it is, for traces ("draw", "gt2-batch", "mm-600")
 * @param type         which GPU unit it runs on
 * @param threadBlocks thread blocks of the grid (used by space sharing and kernel slicing)
 * @param soloNanos    emulated duration when it runs alone on the whole GPU
 * @param memory       how memory-intensive it is, for its co-location gain ({@link MemoryClass})
 */
public record KernelSpec(String name, KernelType type, int threadBlocks, long soloNanos, MemoryClass memory) {
  public KernelSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(memory, "memory");
    if (threadBlocks <= 0) throw new IllegalArgumentException("threadBlocks must be > 0: " + threadBlocks);
    if (soloNanos <= 0) throw new IllegalArgumentException("soloNanos must be > 0: " + soloNanos);
  }

  /** A kernel whose memory intensity is not classified. */
  public KernelSpec(String name, KernelType type, int threadBlocks, long soloNanos) {
    this(name, type, threadBlocks, soloNanos, MemoryClass.UNCLASSIFIED);
  }

  /** A CUDA-core kernel, the default of the graphics and GPGPU papers. */
  public static KernelSpec cd(String name, long soloNanos) {
    return new KernelSpec(name, KernelType.CD, 1, soloNanos);
  }
}
