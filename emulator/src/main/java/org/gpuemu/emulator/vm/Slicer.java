package org.gpuemu.emulator.vm;

import java.util.List;
import org.gpuemu.workloads.KernelSpec;

/**
 * What the host backend queues for a kernel a guest launches: the kernel itself, or the sub-kernels a policy that
 * slices long kernels runs in its place (FairGV's kernel slicing, fairgv.txt §3.3.2). Must be immutable.
 */
@FunctionalInterface
public interface Slicer {
  Slicer NONE = List::of;

  List<KernelSpec> parts(KernelSpec kernel);
}
