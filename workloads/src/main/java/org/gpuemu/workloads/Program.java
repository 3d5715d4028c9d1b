package org.gpuemu.workloads;

/**
 * A running guest program: a lazy, possibly endless sequence of steps. One program per vCPU; not thread-safe,
 * it is only ever driven by the vCPU that owns it.
 */
public interface Program {
  /**
   * The next step, given how much emulated time has passed since the program started (workloads whose scenes
   * change with time, such as 3DMark's game tests, use it); {@code null} when the program has finished.
   */
  Step next(long emulatedNanos);
}
