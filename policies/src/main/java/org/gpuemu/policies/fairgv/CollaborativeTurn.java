package org.gpuemu.policies.fairgv;

/**
 * A turn under FairGV's collaborative scheduling on a non-preemptive GPU (fairgv.txt §3.3.1–3.3.2). The vGPU
 * accounts each request's GPU time by synchronizing after it (Figure 5), samples the first {@code samples}
 * requests of its turn (5 in the paper) one at a time, infers from their mean how many more requests fill the rest
 * of the slice, dispatches those without interposition (pipelined, up to the hardware queue's depth) and
 * synchronizes on the last; it releases the GPU once its usage reaches the slice, during sampling too ("if the sum
 * of the lengths of the requests exceeds the length of time slice, the vGPU is forced to release the GPU").
 *
 * <p>Interpretations: the inferred count is ceil((slice − usage) / mean sample), the number of requests "that may
 * use up the entire length of the time slice"; the surplus or shortage is "compensated by fair queuing" through the
 * charged usage. A batch request's GPU time is accounted at its completion, which sums to what the paper's single
 * synchronization after the last request measures, since the batch runs back to back. Usage also counts the time
 * the vGPU held the GPU with an empty ring (hybrid spinning, or polling without work conserving): the GPU was
 * reserved for it. If the sampled requests took no time at all the batch is unbounded, and the turn ends when the
 * ring runs dry.
 */
final class CollaborativeTurn implements Turn {
  /** Where a turn is: measuring its first requests one by one, or running the inferred rest. */
  enum Phase { SAMPLING, BATCH }

  private final long slice;
  private final int samples;
  private final int maxInflight;
  private Phase phase = Phase.SAMPLING;
  private int sampledDispatched;
  private int sampledCompleted;
  private long sampledNanos;
  private int batch;
  private int batchLeft;
  private long usage;

  CollaborativeTurn(long slice, int samples, int maxInflight) {
    this.slice = slice;
    this.samples = samples;
    this.maxInflight = maxInflight;
  }

  @Override
  public boolean mayDispatch(long now, int ownInflight) {
    if (usage >= slice) return false;
    return phase == Phase.SAMPLING
        ? ownInflight == 0 && sampledDispatched < samples
        : batchLeft > 0 && ownInflight < maxInflight;
  }

  @Override
  public void dispatched() {
    if (phase == Phase.SAMPLING) {
      sampledDispatched++;
    } else {
      batchLeft--;
    }
  }

  @Override
  public void completed(long gpuNanos) {
    usage += gpuNanos;
    if (phase == Phase.SAMPLING) {
      sampledNanos += gpuNanos;
      if (++sampledCompleted == samples) {
        phase = Phase.BATCH;
        batch = inferBatch();
        batchLeft = batch;
      }
    }
  }

  @Override
  public void idled(long nanos) {
    usage += nanos;
  }

  @Override
  public boolean over(long now, int ownInflight) {
    return ownInflight == 0 && (usage >= slice || (phase == Phase.BATCH && batchLeft == 0));
  }

  @Override
  public long usage() {
    return usage;
  }

  @Override
  public long idleUntil(long idleSince) {
    return idleSince + Math.max(0, slice - usage);
  }

  /** Where the turn is. */
  Phase phase() {
    return phase;
  }

  /** Requests inferred to fill the slice after the samples (0 before sampling ended). */
  int batch() {
    return batch;
  }

  private int inferBatch() {
    long remaining = slice - usage;
    if (remaining <= 0) return 0;
    if (sampledNanos == 0) return Integer.MAX_VALUE;
    long fill = Math.floorDiv(Math.multiplyExact(remaining, samples) + sampledNanos - 1, sampledNanos);
    return (int) Math.min(Integer.MAX_VALUE, fill);
  }
}
