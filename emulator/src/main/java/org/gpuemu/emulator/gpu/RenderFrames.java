package org.gpuemu.emulator.gpu;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.gpuemu.emulator.gpu.RenderFrame.Held;

/**
 * The game's frames the {@link SpaceScheduler} holds, by index: each with its plan and held kernels, which frame
 * each render kernel belongs to, and the kernel counts of Presents that came before their frame's first kernel.
 */
final class RenderFrames {
  private final TreeMap<Long, RenderFrame> frames = new TreeMap<>();
  private final Map<Long, Integer> presented = new HashMap<>();
  private final Map<Long, RenderFrame> frameOf = new HashMap<>();

  /** Frame {@code index}, or null before its first kernel. */
  RenderFrame get(long index) {
    return frames.get(index);
  }

  /** A frame just planned; it learns its kernel count if its Present came first. */
  void add(RenderFrame f) {
    frames.put(f.index, f);
    Integer kernels = presented.remove(f.index);
    if (kernels != null) f.expected = kernels;
  }

  /** A render kernel of {@code f} arrived. */
  void hold(RenderFrame f, Held h) {
    f.kernels.add(h);
    frameOf.put(h.work().id(), f);
  }

  /** The guest presented frame {@code index} of {@code kernels}: the frame, or null when none of it arrived yet. */
  RenderFrame presented(long index, int kernels) {
    RenderFrame f = frames.get(index);
    if (f == null) {
      presented.put(index, kernels);
    } else {
      f.expected = kernels;
    }
    return f;
  }

  /** Request {@code id} completed: its frame, or null when it was no render kernel. */
  RenderFrame completed(long id) {
    return frameOf.remove(id);
  }

  /** The earliest frame with a kernel still held, or null. */
  RenderFrame next() {
    for (RenderFrame f : frames.values()) {
      if (!f.kernels.isEmpty()) return f;
    }
    return null;
  }

  void rendered(RenderFrame f) {
    frames.remove(f.index);
  }
}
