package org.gpuemu.policies.fairgv;

/**
 * A turn on a preemptive GPU (fairgv.txt §3.2.1: a 30 ms slice "when preemptive GPUs are used"): the owner feeds
 * the GPU, up to the hardware queue's depth, until its slice of wall time has passed. Interpretation: the emulated
 * GPU cannot take back a running kernel, so the turn ends when the slice has passed and the owner's last request
 * has finished; the accounting charges what its requests really used, as on the non-preemptive discipline.
 */
final class TimedTurn implements Turn {
  private final long end;
  private final int maxInflight;
  private long usage;

  TimedTurn(long start, long slice, int maxInflight) {
    this.end = start + slice;
    this.maxInflight = maxInflight;
  }

  @Override
  public boolean mayDispatch(long now, int ownInflight) {
    return now < end && ownInflight < maxInflight;
  }

  @Override
  public void dispatched() {}

  @Override
  public void completed(long gpuNanos) {
    usage += gpuNanos;
  }

  @Override
  public void idled(long nanos) {
    usage += nanos;
  }

  @Override
  public boolean over(long now, int ownInflight) {
    return ownInflight == 0 && now >= end;
  }

  @Override
  public long usage() {
    return usage;
  }

  @Override
  public long idleUntil(long idleSince) {
    return end;
  }
}
