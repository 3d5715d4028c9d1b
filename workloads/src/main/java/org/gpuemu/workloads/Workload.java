package org.gpuemu.workloads;

/** A named workload of the catalog: a factory of seeded programs. */
public interface Workload {
  /** Stable name used in scenario files ({@code scenario.vms.<name>.workload}). */
  String name();

  /** One line: what it models and where its figures come from. */
  String description();

  /** A new program; the same seed gives the same sequence of steps. */
  Program start(long seed);

  /**
   * How many threads it runs: the VM's first {@code threads()} vCPUs (as many as it has) each run a program of it,
   * the first one the main thread. 1 unless a workload is multi-threaded.
   */
  default int threads() {
    return 1;
  }

  /**
   * GPU requests per emulated second of the workload's steady state when it runs alone on the whole GPU and a core
   * of its own — the solo throughput FairGV normalizes by (§5.4: x_i = T_i / O_i). Empty when it has no fixed rate
   * (games whose scenes vary).
   */
  default java.util.OptionalDouble soloRequestsPerSecond() {
    return java.util.OptionalDouble.empty();
  }
}
