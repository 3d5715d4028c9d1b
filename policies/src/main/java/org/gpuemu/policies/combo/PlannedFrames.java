package org.gpuemu.policies.combo;

import java.util.TreeMap;

/**
 * The game's frames as a space-sharing policy planned them: the fixed rate they are due at, counted from the first
 * frame's readiness, the planned frames not yet rendered, and the last one planned.
 */
final class PlannedFrames {
  /** A planned frame and the Eq. 4 estimate it was planned on. */
  record Frame(FramePlan plan, RenderTimePredictor.Estimate estimate) {}

  /** Planned frames not yet rendered, by index. */
  private final TreeMap<Long, Frame> unrendered = new TreeMap<>();
  private Frame last;
  private long firstFrame;
  private long origin;

  /** The last frame planned, or null before the first. */
  Frame last() {
    return last;
  }

  /** Frame {@code frame} is ready at {@code now}; the first one fixes where the game's rate counts from. */
  void ready(long frame, long now) {
    if (last != null) return;
    firstFrame = frame;
    origin = now;
  }

  /** {@code frame} is planned, the latest so far. */
  void planned(Frame frame) {
    last = frame;
    unrendered.put(frame.plan().frame(), frame);
  }

  /** Planned frame {@code frame} if not rendered yet, else null. */
  Frame unrendered(long frame) {
    return unrendered.get(frame);
  }

  void rendered(long frame) {
    unrendered.remove(frame);
  }

  /** The frame at the game's fixed rate of {@code fps}: the first frame's readiness + (k − first)/fps. */
  long nominal(long frame, double fps) {
    return origin + Math.round((frame - firstFrame) * 1e9 / fps);
  }

  /** The earliest planned frame that has started and not rendered, or null. */
  Frame rendering(long now) {
    for (Frame f : unrendered.values()) {
      if (f.plan().startAt() <= now) return f;
    }
    return null;
  }

  /**
   * When the next frame starts: a planned frame after the rendering one (its start may have passed while the one
   * before it still renders), else the one after the last planned, {@code mergeDelay} late (-1: not merged).
   */
  long nextStart(long now, double fps, long mergeDelay) {
    Frame rendering = rendering(now);
    for (Frame f : unrendered.values()) {
      if (f != rendering) return f.plan().startAt();
    }
    if (last == null) return Long.MAX_VALUE;
    return nominal(last.plan().frame() + 1, fps) + Math.max(0, mergeDelay);
  }
}
