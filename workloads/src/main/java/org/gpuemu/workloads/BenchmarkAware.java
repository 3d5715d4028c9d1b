package org.gpuemu.workloads;

import java.util.List;

/**
 * A program that runs named benchmarks (gballoon.txt §4: 3D benchmarks measured by their FPS, 2D traces by their run
 * time; Table 2's VMs run three in a row), so that each one's figure can be reported, not just the VM's.
 */
public interface BenchmarkAware {
  /** The benchmarks started so far, in order, the running one last. */
  List<BenchmarkRun> benchmarks();
}
