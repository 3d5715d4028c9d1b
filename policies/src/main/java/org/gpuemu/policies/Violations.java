package org.gpuemu.policies;

import java.util.ArrayList;
import java.util.List;

/**
 * A policy's record of broken invariants, bounded so a run that repeats one mistake a million times still
 * reports it in a readable list: the first {@value #KEPT} are kept and the rest are counted.
 */
public final class Violations {
  static final int KEPT = 20;

  private final List<String> kept = new ArrayList<>();
  private long dropped;

  /** Remembers one violation. */
  public void add(String violation) {
    if (kept.size() < KEPT) {
      kept.add(violation);
    } else {
      dropped++;
    }
  }

  /** The violations recorded so far, plus one line counting any that were not kept. */
  public List<String> list() {
    List<String> all = new ArrayList<>(kept);
    if (dropped > 0) {
      all.add("... and " + dropped + " more violations");
    }
    return all;
  }
}
