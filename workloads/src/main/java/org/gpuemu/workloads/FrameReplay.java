package org.gpuemu.workloads;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A game replayed frame by frame from a {@link FrameTrace}, looped. Each frame is built as the catalog's games build
 * theirs ({@link GameWorkload#addFrame}): its CPU time in command batches, each batch's launch after its share, then
 * pacing, then Present with the last batch. Pacing is what is left of the frame's interval (the next frame's start
 * minus this one's) after its CPU time, as {@link Scene#fromUsage} does with 1/FPS; so alone, on a GPU that keeps up,
 * the replay presents at the trace's instants. The last frame's interval is the mean of the others (one frame: no
 * pacing). GPU times are scaled by SMs like a traced kernel's ({@link TraceReplay}). The seed is unused: a replay is
 * the trace.
 */
public final class FrameReplay implements Workload {
  private final String name;
  private final String description;
  private final List<Scene> scenes;
  private final List<Integer> batches;

  /**
   * @param batches command batches per frame; 0: one per 2 ms of the frame's GPU time, the catalog's rule
   *                ({@link WorkloadCatalog#batchesOf})
   */
  public FrameReplay(String name, String description, List<FrameTrace.Frame> frames, int traceSms, int gpuSms,
      int batches) {
    if (frames.isEmpty()) throw new IllegalArgumentException(name + ": a frame trace needs at least one frame");
    if (traceSms <= 0 || gpuSms <= 0 || batches < 0) throw new IllegalArgumentException("bad SMs or batches");
    this.name = name;
    this.description = description;
    List<Scene> s = new ArrayList<>();
    List<Integer> b = new ArrayList<>();
    int n = frames.size();
    long meanInterval = n > 1 ? (frames.get(n - 1).startNanos() - frames.get(0).startNanos()) / (n - 1) : 0;
    for (int i = 0; i < n; i++) {
      FrameTrace.Frame f = frames.get(i);
      long interval = i + 1 < n ? frames.get(i + 1).startNanos() - f.startNanos() : meanInterval;
      long gpu = Math.max(1, Math.round(f.gpuNanos() * (double) traceSms / gpuSms));
      Scene scene = new Scene(f.cpuNanos(), gpu, Math.max(0, interval - f.cpuNanos()));
      s.add(scene);
      b.add(batches == 0 ? WorkloadCatalog.batchesOf(scene) : batches);
    }
    this.scenes = List.copyOf(s);
    this.batches = List.copyOf(b);
  }

  @Override public String name() { return name; }

  @Override public String description() { return description; }

  /** The frames as scenes, in order. */
  public List<Scene> scenes() {
    return scenes;
  }

  @Override public Program start(long seed) {
    ArrayDeque<Step> pending = new ArrayDeque<>();
    int[] next = {0};
    return now -> {
      if (pending.isEmpty()) {
        int i = next[0];
        GameWorkload.addFrame(pending, name + "/frame", scenes.get(i), batches.get(i));
        next[0] = (i + 1) % scenes.size();
      }
      return pending.poll();
    };
  }
}
