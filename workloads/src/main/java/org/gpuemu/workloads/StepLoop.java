package org.gpuemu.workloads;

import java.util.List;

/**
 * A workload that repeats one fixed iteration of steps for ever: a steady benchmark whose call mix does not change
 * (FairGV's Table 3 programs, lengthened by their authors to run about ten seconds of identical iterations). The
 * seed is unused: the iteration is the same every time, as the benchmarks' own loops are.
 *
 * <p>An iteration may be a whole program run whose first {@code steadySteps} steps are its steady state and whose
 * rest closes the run (FairGV's non-interactive benchmarks: a GPU-saturating stream of launches, then the CPU work
 * of writing and checking the results). The solo rate is the steady state's: what a VM measures while the
 * programs run side by side.
 *
 * @param iteration   the steps of one iteration, in order; never empty
 * @param steadySteps how many of its first steps the solo rate describes (1 to the iteration's size)
 */
public record StepLoop(String name, String description, List<Step> iteration, int steadySteps) implements Workload {
  public StepLoop {
    iteration = List.copyOf(iteration);
    if (iteration.isEmpty()) throw new IllegalArgumentException(name + ": an iteration needs at least one step");
    if (steadySteps < 1 || steadySteps > iteration.size()) {
      throw new IllegalArgumentException(name + ": steady steps " + steadySteps + " not within 1.."
          + iteration.size());
    }
  }

  /** A loop whose whole iteration is steady. */
  public StepLoop(String name, String description, List<Step> iteration) {
    this(name, description, iteration, iteration.size());
  }

  /**
   * Requests (launches and synchronous calls) per second of the iteration's steady steps alone. Their CPU work, GPU
   * work and sleeps do not overlap — each group of launches ends by waiting for its GPU work, and CPU work runs
   * while the GPU is idle — so they last their sum.
   */
  @Override public java.util.OptionalDouble soloRequestsPerSecond() {
    long nanos = 0;
    int requests = 0;
    for (Step s : iteration.subList(0, steadySteps)) {
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
