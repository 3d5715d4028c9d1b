package org.gpuemu.emulator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bench command's bad input (exit 2, one line, nothing measured) and the progress line's fidelity part. */
class BenchCommandTest {
  @TempDir Path dir;

  @Test
  void unknownOption_exits2_withOneLine() {
    MainTest.Result r = MainTest.execute("bench", "--quik");
    assertEquals(2, r.status(), r.toString());
    assertEquals(1, r.errLines().size(), r.err());
    assertTrue(r.err().contains("--quik"), r.err());
  }

  @Test
  void unknownSection_exits2_namingTheValidOnes_withoutMeasuring() {
    Path out = dir.resolve("out");
    MainTest.Result r = MainTest.execute("bench", "--quick", "--only", "timers,frobs", "--out", out.toString());
    assertEquals(2, r.status(), r.toString());
    assertEquals(List.of("--only frobs: unknown section 'frobs'; valid: timers, path, scale, fast-forward, overhead, hosts, host-scale, fidelity"),
        r.errLines());
    assertFalse(Files.exists(out), "nothing measured, nothing written");
  }

  @Test
  void missingReference_exits2_namingTheFile() {
    Path missing = dir.resolve("missing.conf");
    MainTest.Result r = MainTest.execute("bench", "--reference", missing.toString(), "--out",
        dir.resolve("out").toString());
    assertEquals(2, r.status(), r.toString());
    assertEquals(1, r.errLines().size(), r.err());
    assertTrue(r.err().contains(missing.toString()), r.err());
  }

  @Test
  void help_namesTheOptions() {
    MainTest.Result r = MainTest.execute("bench", "--help");
    assertEquals(0, r.status(), r.toString());
    for (String option : List.of("--quick", "--out", "--reference", "--only")) {
      assertTrue(r.out().contains(option), r.out());
    }
  }

  @Test
  void progressLine_showsRealTimeFactorP99AndVerdict_orDashesWhenUnknown() {
    MetricsHub.LiveView view = new MetricsHub.LiveView(1_000_000_000L, List.of("a"), new double[] {60},
        new double[] {1});
    assertEquals("rtf - p99 -", ProgressLine.fidelity(view));
    assertEquals("rtf 0.98x p99 250us faithful", ProgressLine.fidelity(view.withFidelity(0.98, 250, "faithful")));
  }
}
