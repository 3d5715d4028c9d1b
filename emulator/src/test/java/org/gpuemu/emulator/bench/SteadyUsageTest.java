package org.gpuemu.emulator.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Steady-state GPU usage from timeline rows. */
class SteadyUsageTest {
  @TempDir Path dir;

  @Test
  void firstAndLastPeriods_areLeftOut() {
    // Start-up (10 ms busy) and the drain (95 ms in the last row) would both distort the 50 % in between.
    List<SteadyUsage.Row> rows = List.of(new SteadyUsage.Row(0.1, 10), new SteadyUsage.Row(0.2, 50),
        new SteadyUsage.Row(0.3, 50), new SteadyUsage.Row(0.4, 95));
    assertEquals(0.5, SteadyUsage.of(rows), 1e-12);
  }

  @Test
  void fewerThanThreeRows_haveNoSteadyState() {
    assertTrue(Double.isNaN(SteadyUsage.of(List.of(new SteadyUsage.Row(0.1, 10), new SteadyUsage.Row(0.2, 10)))));
  }

  @Test
  void read_takesTheNamedVmsRows_inOrder() throws IOException {
    Path file = Files.writeString(dir.resolve("timeline.jsonl"), """
        {"t_s":0.1,"vm":"vm","fps":1.0,"gpu_busy_ms":10.0}
        {"t_s":0.1,"vm":"other","gpu_busy_ms":99.0}
        {"t_s":0.2,"vm":"vm","fps":1.0,"gpu_busy_ms":20.5}
        """);
    assertEquals(List.of(new SteadyUsage.Row(0.1, 10.0), new SteadyUsage.Row(0.2, 20.5)),
        SteadyUsage.read(file, "vm"));
  }
}
