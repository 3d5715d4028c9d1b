package org.gpuemu.policies.fairgv;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * FairGV's CPU-GPU interactive classification (fairgv.txt §3.2.3, §5.1): a vGPU that submits more than 10
 * synchronous calls per 10 ms is CPU-GPU interactive, and the rate is monitored continuously so phase changes
 * are followed. Here: a vGPU is interactive while more than {@code moreThan} of its synchronous calls fall in the
 * last {@code window} of its own time, a sliding window.
 *
 * <p>Interpretation: "its own time" is wall time minus the time the vGPU spent waiting for the GPU (requests in
 * its ring while another vGPU held the GPU). Table 3 measures each program alone; shared, a vGPU waits most of
 * the time (two thirds of it with three equal VMs), and its guest, blocked on a synchronous call, submits nothing
 * while it waits. Counting wall time would then classify BlackScholes (26 synchronous calls per 10 ms alone) as
 * non-interactive exactly when it shares the GPU, and never coschedule it; excluding the waits measures the
 * program's own rate, as Table 3 does, whatever it shares the GPU with. Time the vGPU is idle (its guest computes,
 * sleeps or waits for the CPU) still counts, so a mostly-CPU program such as pathfinder stays non-interactive.
 * A call is stamped when the scheduler learns of it.
 */
public final class InteractivityMonitor {
  private static final class Rate {
    final Deque<Long> calls = new ArrayDeque<>();
    long waited;
    /** When the current wait for the GPU began; -1 while not waiting. */
    long waitingSince = -1;

    long ownTime(long now) {
      return now - waited - (waitingSince >= 0 ? now - waitingSince : 0);
    }
  }

  private final int moreThan;
  private final long window;
  private final Map<Integer, Rate> rates = new HashMap<>();

  /** Interactive: more than {@code moreThan} synchronous calls in {@code window} nanoseconds of own time. */
  public InteractivityMonitor(int moreThan, long window) {
    if (moreThan < 0 || window <= 0) {
      throw new IllegalArgumentException("interactivity: need moreThan >= 0 and window > 0, got " + moreThan + ", "
          + window);
    }
    this.moreThan = moreThan;
    this.window = window;
  }

  /** A vGPU joins. */
  public void add(int vgpu) {
    if (rates.putIfAbsent(vgpu, new Rate()) != null) {
      throw new IllegalArgumentException("interactivity: vGPU " + vgpu + " added twice");
    }
  }

  /** A vGPU leaves. */
  public void remove(int vgpu) {
    rates.remove(vgpu);
  }

  /** The vGPU submitted a synchronous call. */
  public void syncCall(int vgpu, long now) {
    Rate r = rate(vgpu);
    r.calls.addLast(r.ownTime(now));
    evict(r, now);
  }

  /** The vGPU starts ({@code true}) or stops waiting for the GPU; repeating the current state changes nothing. */
  public void waiting(int vgpu, boolean waiting, long now) {
    Rate r = rate(vgpu);
    if (waiting && r.waitingSince < 0) {
      r.waitingSince = now;
    } else if (!waiting && r.waitingSince >= 0) {
      r.waited += now - r.waitingSince;
      r.waitingSince = -1;
    }
  }

  /** Synchronous calls in the last window of the vGPU's own time. */
  public int syncCallsInWindow(int vgpu, long now) {
    Rate r = rate(vgpu);
    evict(r, now);
    return r.calls.size();
  }

  /** Whether the vGPU is CPU-GPU interactive now. */
  public boolean interactive(int vgpu, long now) {
    return syncCallsInWindow(vgpu, now) > moreThan;
  }

  private void evict(Rate r, long now) {
    long oldest = r.ownTime(now) - window;
    while (!r.calls.isEmpty() && r.calls.peekFirst() <= oldest) {
      r.calls.removeFirst();
    }
  }

  private Rate rate(int vgpu) {
    Rate r = rates.get(vgpu);
    if (r == null) {
      throw new IllegalArgumentException("interactivity: unknown vGPU " + vgpu);
    }
    return r;
  }
}
