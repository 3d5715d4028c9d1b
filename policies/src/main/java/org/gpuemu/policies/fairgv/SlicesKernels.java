package org.gpuemu.policies.fairgv;

import java.util.List;
import org.gpuemu.workloads.KernelSpec;

/**
 * A GPU policy whose backend cuts very long kernels into sub-kernels before they reach the GPU (fairgv.txt §3.3.2,
 * §5.5.2). The emulator's vGPU asks it for every kernel a guest submits and queues the sub-kernels in its place.
 */
public interface SlicesKernels {
  /** The policy's slicing rule: immutable, so the vGPUs may apply it on their own threads. */
  KernelSlicing slicing();

  /** The kernels to run in place of {@code kernel}, in order: the kernel itself when it is not sliced. */
  default List<KernelSpec> slice(KernelSpec kernel) {
    return slicing().slice(kernel);
  }
}
