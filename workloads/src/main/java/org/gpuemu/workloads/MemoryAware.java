package org.gpuemu.workloads;

/**
 * A program that adapts to the GPU memory its VM holds (gballoon.txt §3.1): when its working set does not fit, its
 * guest driver returns memory objects to make room and the application slows down. It learns what it holds from the
 * answers to its {@link Step.Malloc}s: the vCPU calls {@link #held} with the VM's holding after every Malloc answer
 * (granted or not), before it asks the program for its next step. A granted Malloc may be granted in part.
 */
public interface MemoryAware {
  /** The VM now holds {@code bytes} of GPU memory. */
  void held(long bytes);

  /** Memory objects the guest driver returned so far for lack of memory (what it reports to the host). */
  long returns();
}
