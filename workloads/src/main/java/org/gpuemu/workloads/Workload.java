package org.gpuemu.workloads;

/** A named workload of the catalog: a factory of seeded programs. */
public interface Workload {
  /** Stable name used in scenario files ({@code scenario.vms.<name>.workload}). */
  String name();

  /** One line: what it models and where its figures come from. */
  String description();

  /** A new program; the same seed gives the same sequence of steps. */
  Program start(long seed);
}
