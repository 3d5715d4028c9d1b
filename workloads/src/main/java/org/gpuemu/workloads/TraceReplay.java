package org.gpuemu.workloads;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Turns a CUDA GPU trace ({@link NsysGpuTrace}) into a guest program that, alone on the traced GPU, puts the same
 * operations on the GPU at the same times; then loops it. A GPU trace records when the GPU ran each operation, not
 * when the host issued it, so the host side is reconstructed:
 *
 * <ul>
 *   <li>Operations that follow each other without a gap on the GPU were queued: they are asynchronous launches
 *       issued back to back (no CPU between them). The guest issues them in start order, so the order within each
 *       stream is kept. Streams that overlapped on the traced GPU run one after another here, as every kernel of a
 *       VM does on the emulated GPU's FIFO (one context, {@code max-concurrent-kernels = 1}).
 *   <li>An idle gap on the GPU (the next start later than the end of everything before it) means the host was not
 *       feeding it: the host waited for the operation before (which becomes a synchronous call) and then worked
 *       for the gap — CPU time, or a sleep when the gap is at least {@code sleepAboveNanos}. Gaps shorter than
 *       {@code minGapNanos} count as back to back.
 *   <li>Device-to-host copies are synchronous calls ({@code cudaMemcpy} to host memory returns once the copy is
 *       done); other copies and memsets are asynchronous.
 *   <li>A pass ends by waiting for its last operation, so a looping replay never piles passes up on a busy GPU.
 * </ul>
 *
 * Kernel durations are the traced GPU's; on the emulated GPU a kernel's solo duration is scaled by SMs the way the
 * SM group scales a kernel's work ({@code FluidModel.workNanos}: time × SMs is constant), here from the traced
 * GPU's {@code traceSms} to the emulated {@code gpuSms}: solo = duration × traceSms / gpuSms. Copies and memsets keep
 * their duration (a copy engine and the bus set it, not SMs). Kernels are {@code type}, or TC where the name matches
 * {@code tensorPattern}.
 */
public final class TraceReplay {
  private TraceReplay() {}

  /**
   * How to replay.
   *
   * @param traceSms        SMs of the GPU the trace was recorded on
   * @param gpuSms          SMs of the emulated GPU
   * @param sleepAboveNanos gaps at least this long are sleeps, shorter ones CPU time; 0: every gap is CPU time
   * @param minGapNanos     gaps shorter than this count as back to back
   * @param type            the type of every kernel ...
   * @param tensorPattern   ... but those whose name this finds, which are TC; null: none
   */
  public record Options(int traceSms, int gpuSms, long sleepAboveNanos, long minGapNanos, KernelType type,
      Pattern tensorPattern) {
    public Options {
      if (traceSms <= 0 || gpuSms <= 0) throw new IllegalArgumentException("SM counts must be > 0");
      if (sleepAboveNanos < 0 || minGapNanos < 0) throw new IllegalArgumentException("gaps must be >= 0");
    }
  }

  /** The workload: one pass of {@link #steps} repeated for ever. */
  public static StepLoop workload(String name, String description, List<NsysGpuTrace.Op> ops, Options options) {
    return new StepLoop(name, description, steps(name, ops, options));
  }

  /** One pass over the trace as guest steps. */
  public static List<Step> steps(String name, List<NsysGpuTrace.Op> ops, Options o) {
    if (ops.isEmpty()) throw new IllegalArgumentException(name + ": a trace needs at least one operation");
    List<Step> steps = new ArrayList<>();
    long frontier = ops.get(0).startNanos();
    int lastGpuStep = -1;
    for (NsysGpuTrace.Op op : ops) {
      long gap = op.startNanos() - frontier;
      if (lastGpuStep >= 0 && gap > 0 && gap >= o.minGapNanos()) {
        steps.set(lastGpuStep, synchronous(steps.get(lastGpuStep)));
        steps.add(o.sleepAboveNanos() > 0 && gap >= o.sleepAboveNanos() ? new Step.Sleep(gap) : new Step.CpuBurst(gap));
      }
      KernelSpec spec = spec(op, o);
      steps.add(op.kind() == NsysGpuTrace.Kind.COPY_DEVICE_TO_HOST ? new Step.SyncCall(spec) : new Step.LaunchKernel(spec));
      lastGpuStep = steps.size() - 1;
      frontier = Math.max(frontier, op.endNanos());
    }
    steps.set(lastGpuStep, synchronous(steps.get(lastGpuStep)));
    return steps;
  }

  /** The kernel an operation becomes on the emulated GPU. */
  static KernelSpec spec(NsysGpuTrace.Op op, Options o) {
    if (op.kind().isTransfer()) return new KernelSpec(op.name(), KernelType.CD, 1, op.durationNanos());
    long solo = Math.max(1, Math.round(op.durationNanos() * (double) o.traceSms() / o.gpuSms()));
    KernelType type = o.tensorPattern() != null && o.tensorPattern().matcher(op.name()).find() ? KernelType.TC : o.type();
    return new KernelSpec(op.name(), type, (int) Math.min(Integer.MAX_VALUE, op.blocks()), solo);
  }

  private static Step synchronous(Step s) {
    return s instanceof Step.LaunchKernel l ? new Step.SyncCall(l.kernel()) : s;
  }
}
