package org.gpuemu.workloads;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A game or 3D benchmark as a frame loop (vgris.txt Figure 1 and 5a): per frame, the CPU computes objects and
 * records draw calls, handing the GPU one batch after each share of CPU work (the runtime's command queue filled);
 * then the game paces itself and calls {@code Present}, which submits the last batch. Phases run in order (3DMark's game tests) and the sequence loops when {@code loop} is set.
 */
public final class GameWorkload implements Workload {
  private final String name;
  private final String description;
  private final List<GamePhase> phases;
  private final boolean loop;
  private final long presentCpuNanos;

  public GameWorkload(String name, String description, List<GamePhase> phases, boolean loop) {
    this(name, description, phases, loop, 0);
  }

  /**
   * {@code presentCpuNanos}: the CPU time of each Present call itself ({@link Step.Present#cpuNanos}), part of the
   * frame's CPU time (a game's measured CPU usage includes it), so the frame's other CPU work is that much shorter.
   */
  public GameWorkload(String name, String description, List<GamePhase> phases, boolean loop, long presentCpuNanos) {
    if (phases.isEmpty()) throw new IllegalArgumentException("a game needs at least one phase");
    if (presentCpuNanos < 0) throw new IllegalArgumentException("presentCpuNanos must be >= 0");
    this.name = name;
    this.description = description;
    this.phases = List.copyOf(phases);
    this.loop = loop;
    this.presentCpuNanos = presentCpuNanos;
  }

  /** The CPU time of each Present call itself (0: not modelled). */
  public long presentCpuNanos() { return presentCpuNanos; }

  @Override public String name() { return name; }

  @Override public String description() { return description; }

  public List<GamePhase> phases() { return phases; }

  @Override public Program start(long seed) {
    return new FrameLoop(new SplittableRandom(seed ^ name.hashCode()));
  }

  /** The phase running at {@code sinceStart} emulated nanoseconds, or null after the last one without loop. */
  GamePhase phaseAt(long sinceStart) {
    long total = 0;
    for (GamePhase p : phases) {
      if (p.durationNanos() == Long.MAX_VALUE) return p;
      total += p.durationNanos();
    }
    long t = loop ? sinceStart % total : sinceStart;
    for (GamePhase p : phases) {
      if (t < p.durationNanos()) return p;
      t -= p.durationNanos();
    }
    return null;
  }

  private final class FrameLoop implements Program {
    private final SplittableRandom random;
    private final ArrayDeque<Step> pending = new ArrayDeque<>();
    private GamePhase samplerPhase;
    private Variation.Sampler sampler;
    private long startedAt = -1;
    private long frame;

    private FrameLoop(SplittableRandom random) {
      this.random = random;
    }

    @Override public Step next(long emulatedNanos) {
      if (startedAt < 0) startedAt = emulatedNanos;
      if (pending.isEmpty() && !planFrame(emulatedNanos)) return null;
      return pending.poll();
    }

    private boolean planFrame(long now) {
      GamePhase phase = phaseAt(now - startedAt);
      if (phase == null) return false;
      if (phase != samplerPhase) {
        samplerPhase = phase;
        sampler = phase.variation().sampler(random);
      }
      Scene s = phase.scene().scaled(sampler.factor(now - startedAt));
      addFrame(pending, name + "/" + phase.name(), s, phase.batches(), presentCpuNanos);
      frame++;
      return true;
    }
  }

  /**
   * Appends one frame of scene {@code s} recorded in {@code batches} command batches: each batch's share of the CPU
   * work followed by its launch, the last batch going with Present after the frame's pacing.
   */
  static void addFrame(Collection<Step> out, String kernelName, Scene s, int batches) {
    addFrame(out, kernelName, s, batches, 0);
  }

  /**
   * As above, with a Present that costs {@code presentCpuNanos} of CPU of its own, taken from the frame's CPU work
   * (at most all of it but 1 ns per batch).
   */
  static void addFrame(Collection<Step> out, String kernelName, Scene s, int batches, long presentCpuNanos) {
    long present = Math.min(presentCpuNanos, Math.max(0, s.cpuNanos() - batches));
    long cpuEach = Math.max(1, (s.cpuNanos() - present) / batches);
    long gpuEach = Math.max(1, s.gpuNanos() / batches);
    KernelSpec batch = KernelSpec.cd(kernelName, gpuEach);
    for (int i = 0; i < batches; i++) {
      out.add(new Step.CpuBurst(cpuEach));
      if (i < batches - 1) out.add(new Step.LaunchKernel(batch));
    }
    if (s.pacingNanos() > 0) out.add(new Step.Sleep(s.pacingNanos()));
    out.add(new Step.Present(batch, present));
  }
}
