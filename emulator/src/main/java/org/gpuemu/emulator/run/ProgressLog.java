package org.gpuemu.emulator.run;

import java.util.ArrayList;
import java.util.List;
import org.gpuemu.emulator.clock.FidelityMeter;

/**
 * The run's progress over wall time, one sample per live period (summary.json's {@code fidelity.progress}): the
 * real-time factor and timer lateness over time. At most {@link #MAX} samples: past that every other one is
 * dropped and the period doubles, so an hour's soak keeps as many as a minute's run.
 */
final class ProgressLog {
  static final int MAX = 600;
  private final long wallStart;
  private final List<RunResult.Progress> samples = new ArrayList<>();
  private int every = 1;
  private long seen;

  ProgressLog(long wallStart) {
    this.wallStart = wallStart;
  }

  void add(long reachedNanos, FidelityMeter.Reading f, boolean paused) {
    if (seen++ % every != 0) return;
    samples.add(new RunResult.Progress((System.nanoTime() - wallStart) / 1e9, Math.max(0, reachedNanos) / 1e9,
        f.realTimeFactor(), f.p99Micros(), paused));
    if (samples.size() > MAX) {
      List<RunResult.Progress> kept = new ArrayList<>();
      for (int i = 0; i < samples.size(); i += 2) kept.add(samples.get(i));
      samples.clear();
      samples.addAll(kept);
      every *= 2;
    }
  }

  List<RunResult.Progress> samples() {
    return List.copyOf(samples);
  }
}
