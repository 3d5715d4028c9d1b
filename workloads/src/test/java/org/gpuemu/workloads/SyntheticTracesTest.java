package org.gpuemu.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The sample traces under conf/traces are the generator's output, and they parse. */
class SyntheticTracesTest {
  private static final Path TRACES = Path.of(System.getProperty("conf.dir", "../conf"), "traces");

  @Test
  void shippedSamples_areTheGeneratorsOutput() throws Exception {
    assertEquals(SyntheticTraces.nsys(), Files.readString(TRACES.resolve(SyntheticTraces.NSYS_FILE)));
    assertEquals(SyntheticTraces.frames(), Files.readString(TRACES.resolve(SyntheticTraces.FRAMES_FILE)));
  }

  @Test
  void samplesParse_24GpuOpsAnd60Frames() throws Exception {
    List<NsysGpuTrace.Op> ops = NsysGpuTrace.parse(SyntheticTraces.nsys().lines().toList(), "nsys");
    // 4 iterations of 2 copies and 4 kernels
    assertEquals(24, ops.size());
    assertEquals(60, FrameTrace.parse(SyntheticTraces.frames().lines().toList(), "frames").size());
  }
}
