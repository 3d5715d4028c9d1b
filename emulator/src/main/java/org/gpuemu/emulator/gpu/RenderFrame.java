package org.gpuemu.emulator.gpu;

import java.util.ArrayDeque;
import org.gpuemu.policies.combo.FramePlan;
import org.gpuemu.policies.gpu.GpuWork;
import org.gpuemu.workloads.KernelSpec;

/** A frame of the game as the {@link SpaceScheduler} holds it: its plan, its held kernels, how far it rendered. */
final class RenderFrame {

  /** A request the space scheduler holds until it dispatches it, queued at {@code atNanos}. */
  record Held(GpuWork work, KernelSpec kernel, long atNanos) {}

  final long index;
  final FramePlan plan;
  final ArrayDeque<Held> kernels = new ArrayDeque<>();
  boolean started;
  boolean cdStarted;
  boolean rtStarted;
  int completed;
  /** Requests the frame holds, from its Present (-1: not presented yet). */
  int expected = -1;
  long lastFinish;
  /** The layout that suspended the BE group for this frame, or -1. */
  long suspendedBy = -1;
  /** When its first kernel started. */
  long firstStart;
  /** Whether a BE kernel ran beside it on the render group's SMs, or held SMs of its whole layout. */
  boolean colocated;
  /** Whether it started on another layout than the frame before it. */
  boolean layoutChanged;

  RenderFrame(long index, FramePlan plan) {
    this.index = index;
    this.plan = plan;
  }
}
