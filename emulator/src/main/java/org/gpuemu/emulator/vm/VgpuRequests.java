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
   * The vGPU's own record, never in a message: once its request finished, the next request the model records fills
   * it again ({@link VgpuModel#finished}), so a request costs no record of its own.
   */
  static final class Pending {
    private GpuWork work;
    private KernelSpec kernel;
    private int vcpu;
    private ActorRef<VCpu.Command> syncReply;
    private boolean last;
    private long frame;
    private long call;

    /** This record, holding a request. */
    Pending fill(GpuWork work, KernelSpec kernel, int vcpu, ActorRef<VCpu.Command> syncReply, boolean last,
        long frame, long call) {
      this.work = work;
      this.kernel = kernel;
      this.vcpu = vcpu;
      this.syncReply = syncReply;
      this.last = last;
      this.frame = frame;
      this.call = call;
      return this;
    }

    GpuWork work() {
      return work;
    }

    KernelSpec kernel() {
      return kernel;
    }

    int vcpu() {
      return vcpu;
    }

    ActorRef<VCpu.Command> syncReply() {
      return syncReply;
    }

    boolean last() {
      return last;
    }

    long frame() {
      return frame;
    }

    long call() {
      return call;
    }
  }

  /** A blocked Present: who waits, the model time it was issued (-1: untimed) and its request id. */
  record Blocked(VGpu.AnswerTo replyTo, long atNanos, long call) {}

  /** A Flush waiting for every request up to {@code upToId} to have completed on the GPU; {@code call}: its id. */
  record Waiter(long upToId, VGpu.AnswerTo replyTo, long call) {}
}
