package org.gpuemu.workloads;

import java.util.ArrayDeque;

/**
 * A GPGPU loop (vgris.txt Figure 1's computation model): per iteration some CPU work, a number of asynchronous
 * kernel launches, then one synchronous call that copies the result back and blocks the vCPU until the GPU has
 * done everything queued before it. Used for the request-path tests and benchmarks; the FairGV catalog builds on it.
 *
 * @param cpuNanos      CPU work per iteration
 * @param kernelNanos   solo duration of each asynchronous kernel
 * @param asyncPerIter  asynchronous launches per iteration
 * @param syncNanos     GPU time of the synchronous copy-back
 * @param iterations    iterations before the program ends; {@link Long#MAX_VALUE} for endless
 */
public record ComputeLoop(String name, String description, long cpuNanos, long kernelNanos, int asyncPerIter,
    long syncNanos, long iterations) implements Workload {

  @Override public Program start(long seed) {
    // steps are immutable: every iteration hands out the same three
    Step burst = new Step.CpuBurst(cpuNanos);
    Step launch = new Step.LaunchKernel(KernelSpec.cd(name + "/kernel", kernelNanos));
    Step sync = new Step.SyncCall(KernelSpec.cd(name + "/copy", syncNanos));
    ArrayDeque<Step> pending = new ArrayDeque<>();
    long[] done = {0};
    return now -> {
      if (pending.isEmpty()) {
        if (done[0]++ >= iterations) return null;
        pending.add(burst);
        for (int i = 0; i < asyncPerIter; i++) pending.add(launch);
        pending.add(sync);
      }
      return pending.poll();
    };
  }
}
