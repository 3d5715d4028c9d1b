package org.gpuemu.emulator.vm;

import org.apache.pekko.actor.typed.ActorRef;
import org.gpuemu.policies.gpu.GpuWork;
import org.gpuemu.workloads.KernelSpec;

/** What a {@link VGpu} keeps of its guest's calls in flight (its state, shared with {@link VgpuFaults}). */
final class VgpuRequests {
  private VgpuRequests() {}

  /**
   * {@code last}: the request's last (or only) part, whose completion completes the guest's call; {@code frame}:
   * the frame the guest was recording; {@code call}: the guest's request id (the run's history, -1: untracked).
   */
  record Pending(GpuWork work, KernelSpec kernel, int vcpu, ActorRef<VCpu.Command> syncReply, boolean last,
      long frame, long call) {}

  /** A blocked Present: who waits, the model time it was issued (-1: untimed) and its request id. */
  record Blocked(VGpu.AnswerTo replyTo, long atNanos, long call) {}

  /** A Flush waiting for every request up to {@code upToId} to have completed on the GPU; {@code call}: its id. */
  record Waiter(long upToId, VGpu.AnswerTo replyTo, long call) {}
}
