package org.gpuemu.workloads;

/**
 * How much a CUDA-core kernel leans on the memory system, which decides how much it gains from sharing an SM with a
 * kernel of another type (COMBO §6.3: "memory-intensive applications ... require more memory resources and their
 * co-runs face more resource contention, leading to lower throughput improvements", consistent with §4.2's Figure
 * 7). Only the co-location gain reads it.
 */
public enum MemoryClass {
  /** Not classified: the co-location table's mean over both classes (render kernels, the pre-COMBO papers). */
  UNCLASSIFIED,
  /** Compute-intensive (COMBO §6.3: cp, mri-fhd, mri-q, fft). */
  COMPUTE,
  /** Memory-intensive (COMBO §6.3: lbm, sgemm register-tiled, cutcp, tpacf; element-wise DNN kernels). */
  MEMORY
}
