package org.gpuemu.workloads;

import java.util.List;

/**
 * A workload that repeats one fixed iteration of steps for ever: a steady benchmark whose call mix does not change
 * (FairGV's Table 3 programs, lengthened by their authors to run about ten seconds of identical iterations). The
 * seed is unused: the iteration is the same every time, as the benchmarks' own loops are.
 *
 * @param iteration the steps of one iteration, in order; never empty
 */
public record StepLoop(String name, String description, List<Step> iteration) implements Workload {
  public StepLoop {
    iteration = List.copyOf(iteration);
    if (iteration.isEmpty()) throw new IllegalArgumentException(name + ": an iteration needs at least one step");
  }

  /**
   * Requests (launches and synchronous calls) per second of one iteration alone. Its CPU work, GPU work and sleeps
   * do not overlap — each iteration ends by waiting for its GPU work, and its CPU work runs while the GPU is idle —
   * so an iteration lasts their sum.
   */
  @Override public java.util.OptionalDouble soloRequestsPerSecond() {
    long nanos = 0;
    int requests = 0;
    for (Step s : iteration) {
      if (s instanceof Step.CpuBurst b) {
        nanos += b.nanos();
      } else if (s instanceof Step.Sleep z) {
        nanos += z.nanos();
      } else if (s instanceof Step.LaunchKernel l) {
        nanos += l.kernel().soloNanos();
        requests++;
      } else if (s instanceof Step.SyncCall c) {
        nanos += c.kernel().soloNanos();
        requests++;
      }
    }
    return requests == 0 || nanos == 0 ? java.util.OptionalDouble.empty()
        : java.util.OptionalDouble.of(requests * 1e9 / nanos);
  }

  @Override public Program start(long seed) {
    int[] next = {0};
    return now -> {
      Step s = iteration.get(next[0]);
      next[0] = (next[0] + 1) % iteration.size();
      return s;
    };
  }
}
