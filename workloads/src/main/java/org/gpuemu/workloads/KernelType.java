package org.gpuemu.workloads;

/** The GPU unit a kernel mainly occupies (COMBO §2): ray-tracing cores, CUDA cores or Tensor cores. */
public enum KernelType {
  /** Ray tracing (RT cores), the render side of COMBO. */
  RT,
  /** CUDA cores: shading, compute, and every kernel of the pre-RTX papers. */
  CD,
  /** Tensor cores: DNN training. */
  TC
}
