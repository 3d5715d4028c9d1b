package org.gpuemu.workloads;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Writes the sample traces shipped under {@code conf/traces/}. They are SYNTHETIC: made up here, in the formats the
 * replay reads, not recorded on any GPU. {@code inference-nsys.csv} has the columns and row shapes of
 * {@code nsys stats --report cuda_gpu_trace --format csv} (the newer layout, with GreenCtx) for a made-up inference
 * loop: per iteration a host-to-device copy, four kernels on stream 7 queued back to back (2 µs apart, as launch
 * latency leaves them), one kernel on stream 14, a device-to-host copy, then the host working 1.5 ms (every other
 * iteration 4 ms: the sample's sleeps). {@code game-frames.csv} is a made-up game of 40 frames aiming at 60 FPS and 20
 * heavier frames at about 45 FPS. Every figure below is chosen, none measured. Run
 * {@code java -cp workloads/target/classes org.gpuemu.workloads.SyntheticTraces conf/traces} to write them again;
 * {@code SyntheticTracesTest} checks the shipped files are this output.
 */
public final class SyntheticTraces {
  static final String NSYS_FILE = "inference-nsys.csv";
  static final String FRAMES_FILE = "game-frames.csv";
  private static final String DEVICE = "Synthetic GPU (0)";

  private SyntheticTraces() {}

  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args.length > 0 ? args[0] : "conf/traces");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(NSYS_FILE), nsys());
    Files.writeString(dir.resolve(FRAMES_FILE), frames());
  }

  /** The synthetic cuda_gpu_trace export. */
  static String nsys() {
    List<String> rows = new ArrayList<>();
    rows.add("# SYNTHETIC sample in the format of `nsys stats --report cuda_gpu_trace --format csv`, written by "
        + "org.gpuemu.workloads.SyntheticTraces; not recorded on a GPU");
    rows.add("Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),DymSMem (MB),"
        + "Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name");
    // nsys times count from the start of the session; the replay ignores the offset
    Export e = new Export(rows, 1_000_000_000L, 100);
    for (int iteration = 0; iteration < 4; iteration++) {
      e.copy(120_000, 4.0, "Pageable", "Device", "[CUDA memcpy Host-to-Device]").idle(2_000);
      e.kernel(350_000, new Grid(128, 1, 1, 256), 7, "conv2d_fprop_kernel").idle(2_000);
      e.kernel(420_000, new Grid(64, 8, 1, 128), 7, "sgemm_tensorop_128x64_nn").idle(2_000);
      e.kernel(40_000, new Grid(256, 1, 1, 256), 7, "relu_kernel").idle(2_000);
      e.kernel(60_000, new Grid(32, 1, 1, 256), 14, "softmax_kernel").idle(2_000);
      e.copy(80_000, 0.5, "Device", "Pageable", "[CUDA memcpy Device-to-Host]");
      e.idle(iteration % 2 == 0 ? 1_500_000 : 4_000_000);
    }
    return String.join("\n", rows) + "\n";
  }

  /** A kernel's launch shape: a grid of {@code x} × {@code y} × {@code z} blocks of {@code blockX} threads. */
  private record Grid(int x, int y, int z, int blockX) {}

  /** The export being written: its rows, the time its next row starts, and the next correlation id. */
  private static final class Export {
    private final List<String> rows;
    private long t;
    private int corr;

    Export(List<String> rows, long start, int firstCorr) {
      this.rows = rows;
      this.t = start;
      this.corr = firstCorr;
    }

    /** A kernel of {@code duration} ns on {@code stream}, from now on. */
    Export kernel(long duration, Grid grid, int stream, String name) {
      rows.add(t + "," + duration + "," + corr++ + "," + grid.x() + "," + grid.y() + "," + grid.z() + ","
          + grid.blockX() + ",1,1,32,0.000," + "0.000,,,,," + DEVICE + ",1,," + stream + "," + name);
      return idle(duration);
    }

    /** A copy of {@code megabytes} taking {@code duration} ns, from memory kind {@code from} to {@code to}. */
    Export copy(long duration, double megabytes, String from, String to, String name) {
      double throughput = megabytes / (duration / 1e9);
      rows.add(t + "," + duration + "," + corr++ + ",,,,,,,,,," + String.format(Locale.ROOT, "%.3f,%.3f",
          megabytes, throughput) + "," + from + "," + to + "," + DEVICE + ",1,,7," + name);
      return idle(duration);
    }

    /** Nothing on the GPU for {@code nanos}. */
    Export idle(long nanos) {
      t += nanos;
      return this;
    }
  }

  /** The synthetic per-frame trace. */
  static String frames() {
    SplittableRandom random = new SplittableRandom(22);
    List<String> rows = new ArrayList<>();
    rows.add("# SYNTHETIC per-frame trace written by org.gpuemu.workloads.SyntheticTraces; not recorded on a GPU");
    rows.add("start_ms,cpu_ms,gpu_ms");
    double start = 0;
    for (int f = 0; f < 60; f++) {
      boolean heavy = f >= 40;
      double interval = heavy ? 22.0 : 16.667;   // 60 FPS, then about 45
      double cpu = (heavy ? 5.5 : 4.0) * (1 + 0.1 * (random.nextDouble() * 2 - 1));
      double gpu = (heavy ? 11.0 : 7.5) * (1 + 0.1 * (random.nextDouble() * 2 - 1));
      rows.add(String.format(Locale.ROOT, "%.3f,%.3f,%.3f", start, cpu, gpu));
      start += interval * (1 + 0.02 * (random.nextDouble() * 2 - 1));
    }
    return String.join("\n", rows) + "\n";
  }
}
