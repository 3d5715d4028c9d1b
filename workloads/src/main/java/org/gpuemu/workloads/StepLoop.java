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

  @Override public Program start(long seed) {
    int[] next = {0};
    return now -> {
      Step s = iteration.get(next[0]);
      next[0] = (next[0] + 1) % iteration.size();
      return s;
    };
  }
}
