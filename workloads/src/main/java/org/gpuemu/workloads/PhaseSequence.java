package org.gpuemu.workloads;

import java.util.List;

/**
 * Workloads one after another, each for its phase's emulated duration (a game, then a training job, then the game
 * again), looped or not. A phase starts its workload's program afresh, seeded from the run's seed and the phase's
 * position; the previous phase's program is dropped at the first step asked for after its phase ended (a frame or
 * iteration in progress is cut there). A program that ends before its phase does sleeps out the phase. Memory-aware
 * programs (gBalloon's) keep adapting: the sequence passes the VM's holding on to the running one.
 */
public final class PhaseSequence implements Workload {
  /** One phase: {@code workload} for {@code durationNanos}. */
  public record Phase(Workload workload, long durationNanos) {
    public Phase {
      if (durationNanos <= 0) throw new IllegalArgumentException("a phase lasts > 0 ns: " + durationNanos);
      if (workload.threads() != 1) {
        throw new IllegalArgumentException(workload.name() + " runs " + workload.threads() + " threads; a phase runs one");
      }
    }
  }

  private final String name;
  private final String description;
  private final List<Phase> phases;
  private final boolean loop;
  private final long totalNanos;

  public PhaseSequence(String name, String description, List<Phase> phases, boolean loop) {
    if (phases.isEmpty()) throw new IllegalArgumentException(name + ": a sequence needs at least one phase");
    this.name = name;
    this.description = description;
    this.phases = List.copyOf(phases);
    this.loop = loop;
    long total = 0;
    for (Phase p : phases) total = Math.addExact(total, p.durationNanos());
    this.totalNanos = total;
  }

  @Override public String name() { return name; }

  @Override public String description() { return description; }

  public List<Phase> phases() {
    return phases;
  }

  @Override public Program start(long seed) {
    return new Sequence(seed);
  }

  private final class Sequence implements Program, MemoryAware {
    private final long seed;
    private long startedAt = -1;
    private long round = -1;
    private int index = -1;
    private Program current;
    private long returnsBefore;

    private Sequence(long seed) {
      this.seed = seed;
    }

    @Override public Step next(long now) {
      if (startedAt < 0) startedAt = now;
      long t = now - startedAt;
      if (!loop && t >= totalNanos) return null;
      long r = t / totalNanos;
      long inRound = t % totalNanos;
      int i = 0;
      long phaseEnd = phases.get(0).durationNanos();
      while (inRound >= phaseEnd) phaseEnd += phases.get(++i).durationNanos();
      if (r != round || i != index) {
        returnsBefore += current instanceof MemoryAware m ? m.returns() : 0;
        round = r;
        index = i;
        current = phases.get(i).workload().start(seed + 104_723L * (r * phases.size() + i + 1));
      }
      Step s = current.next(now);
      return s != null ? s : new Step.Sleep(phaseEnd - inRound);
    }

    @Override public void held(long bytes) {
      if (current instanceof MemoryAware m) m.held(bytes);
    }

    @Override public long returns() {
      return returnsBefore + (current instanceof MemoryAware m ? m.returns() : 0);
    }
  }
}
