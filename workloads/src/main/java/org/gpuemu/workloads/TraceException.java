package org.gpuemu.workloads;

import java.util.List;

/**
 * A trace file that cannot be replayed: one problem per bad row, each {@code file:line: what was expected, got
 * what}, in file order.
 */
public final class TraceException extends Exception {
  private static final long serialVersionUID = 1L;
  private final List<String> problems;

  public TraceException(List<String> problems) {
    super(String.join("; ", problems));
    this.problems = List.copyOf(problems);
  }

  /** Every problem, one line each. */
  public List<String> problems() {
    return problems;
  }
}
