package org.gpuemu.emulator.gpu;

import org.HdrHistogram.Histogram;

/** What an SM group has done, as its {@link SmGroupModel} accounts it: busy time, switches, kernels completed. */
public final class SmGroupFigures {
  private long kernelBusy;
  private double smBusy;
  private long switchTime;
  private long switches;
  private long completed;
  /**
   * Kernel durations weighted by their GPU time (one count per started microsecond), so that the median is the
   * kernel length half of the GPU's time went to: the fidelity reference. Counted per kernel, a workload's many
   * 1 us transfers (FairGV's synchronous copies) would make the median a transfer and the limit unreachable.
   */
  private final Histogram kernelDurations = new Histogram(3_600_000_000_000L, 2);

  /** {@code dt} of group time during which kernels spanning {@code sms} SMs progressed. */
  void busy(long dt, int sms) {
    kernelBusy += dt;
    smBusy += (double) dt * sms;
  }

  /** {@code dt} of group time spent switching contexts. */
  void switching(long dt) {
    switchTime += dt;
  }

  /** The group switched to another vGPU's context. */
  void switched() {
    switches++;
  }

  /** A kernel completed, {@code took} after it started. */
  void completed(long took) {
    completed++;
    kernelDurations.recordValueWithCount(took, 1 + took / 1_000);
  }

  /** Group time during which at least one kernel progressed. */
  public long kernelBusyNanos() {
    return kernelBusy;
  }

  /** SM time busy: busy time × the SMs spanned (at most those owned). */
  public double smBusyNanos() {
    return smBusy;
  }

  /** Group time spent switching contexts (GTT copies included). */
  public long switchNanos() {
    return switchTime;
  }

  public long contextSwitches() {
    return switches;
  }

  public long kernelsCompleted() {
    return completed;
  }

  /** The kernel duration (start to end) half of the group's kernel time went to; 0 before the first completion. */
  public long medianKernelNanos() {
    return kernelDurations.getTotalCount() == 0 ? 0 : kernelDurations.getValueAtPercentile(50);
  }
}
