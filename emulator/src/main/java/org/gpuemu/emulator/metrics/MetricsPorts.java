package org.gpuemu.emulator.metrics;

import java.util.ArrayList;
import java.util.List;
import org.gpuemu.emulator.clock.RunContext;

/**
 * Where the frequent reports reach the metrics hub without being events: a frame's latency (the vCPU), the GPU time
 * of a kernel (the vGPU), a Present's cost and its prediction (the guest agent). Each reporting actor gets its own port
 * at wiring, and writes each report with the level (model time, generation) of the event that makes it into the port's
 * {@link ReportLog}; the hub drains every port when it closes a period, crashes or finishes. A message per report made
 * three of a game frame's fifteen causal events; the hub's held queue of them was most of its thread's load.
 *
 * <p>Why a drain sees what a message would have delivered. A report written by an event at level (t, g) is what a
 * message sent by it was: at level (t, g + 1). The hub handles its event at level L (the period's timer, a crash, the
 * end) only when nothing below L is outstanding in any partition; an event is done in its frontier (under the
 * frontier's lock) only after its actor handled it, so every report below L was written, and published, before the
 * hub's event began: it drains the reports below L ({@link #drain}), as the messages below L were handled before it.
 * Partitions ahead of L append reports at or after L meanwhile; the drain leaves them for the next. The period's timer
 * is at (B, 0) and a report at least at (B, 1): a report at the boundary's nanosecond falls in the next period, as
 * its message did. Under the arrival order a report written after its period closed is counted in the next, as a
 * late message was.
 *
 * <p>Outlives the hub's crashes (created at wiring, as {@link MetricsStore} is): a crash loses the period's counts,
 * not what the ports hold.
 */
public final class MetricsPorts {
  private final RunContext run;
  /**
   * Every port handed out, registered under this object's lock as VMs are wired (on their hosts' threads); a list, not
   * a copy-on-write one, which copied every port so far for each new one (quadratic in the VMs at wiring).
   */
  private final List<Port> registered = new ArrayList<>();
  /** The hub's copy of {@link #registered}, brought up to date under the lock when it has grown. */
  private Port[] ports = new Port[0];

  /** The ports of a run ordered by {@code run}'s causality. */
  public MetricsPorts(RunContext run) {
    this.run = run;
  }

  /** A new port for the frames of VM {@code vm} (one per vCPU). */
  public Frames frames(int vm) {
    return register(new Frames(vm, run));
  }

  /** A new port for the GPU time of VM {@code vm}'s kernels (its vGPU). */
  public GpuTime gpuTime(int vm) {
    return register(new GpuTime(vm, run));
  }

  /** A new port for the Presents of VM {@code vm} (its guest agent). */
  public Presents presents(int vm) {
    return register(new Presents(vm, run));
  }

  private synchronized <P extends Port> P register(P port) {
    registered.add(port);
    return port;
  }

  /** The ports handed out so far (the hub's side). */
  private synchronized Port[] ports() {
    if (ports.length != registered.size()) ports = registered.toArray(ports);
    return ports;
  }

  /**
   * Hands every report below level ({@code stamp}, {@code generation}), and those at it when {@code inclusive}, to
   * {@code h}; returns how many.
   */
  int drain(MetricsStore h, long stamp, int generation, boolean inclusive) {
    int n = 0;
    for (Port p : ports()) n += p.log.drain(stamp, generation, inclusive, p.into(h));
    return n;
  }

  /** One reporting actor's port: its VM and its log; written only from that actor's events. */
  public abstract static sealed class Port permits Frames, GpuTime, Presents {
    final int vm;
    final ReportLog log = new ReportLog();
    private final RunContext run;

    Port(int vm, RunContext run) {
      this.vm = vm;
      this.run = run;
    }

    /** Writes ({@code a}, {@code b}) at the level of the event being handled. */
    final void write(long a, long b) {
      log.append(run.now(), run.causality().generation() + 1, a, b);
    }

    /** What takes this port's entries into {@code h}. */
    abstract ReportLog.Entries into(MetricsStore h);
  }

  /** A vCPU's frames. */
  public static final class Frames extends Port {
    Frames(int vm, RunContext run) {
      super(vm, run);
    }

    /** A frame was presented {@code latencyNanos} after it began. */
    public void frame(long latencyNanos) {
      write(latencyNanos, 0);
    }

    @Override ReportLog.Entries into(MetricsStore h) {
      return (latency, unused) -> h.frame(vm, latency);
    }
  }

  /** A vGPU's kernels' GPU time. */
  public static final class GpuTime extends Port {
    GpuTime(int vm, RunContext run) {
      super(vm, run);
    }

    /** A kernel finished after {@code gpuNanos} on the GPU. */
    public void used(long gpuNanos) {
      write(gpuNanos, 0);
    }

    @Override ReportLog.Entries into(MetricsStore h) {
      return (gpu, unused) -> h.gpuUsed(vm, gpu);
    }
  }

  /** A guest agent's Presents (VGRIS Figures 6 and 9). */
  public static final class Presents extends Port {
    Presents(int vm, RunContext run) {
      super(vm, run);
    }

    /** A Present returned {@code costNanos} after its issue, predicted {@code predictionNanos} (-1: none). */
    public void returned(long costNanos, long predictionNanos) {
      write(costNanos, predictionNanos);
    }

    @Override ReportLog.Entries into(MetricsStore h) {
      return (cost, prediction) -> h.presents.record(vm, cost, prediction);
    }
  }
}
