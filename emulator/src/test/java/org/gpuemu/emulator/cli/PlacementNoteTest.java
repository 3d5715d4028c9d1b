package org.gpuemu.emulator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A run says, before it starts, which VMs placement turned away: they do not run. */
class PlacementNoteTest {

  private static Settings.Scenario load(Path file) throws Exception {
    return ScenarioLoader.load(file, new ScenarioLoader.Overrides(1000.0, 3_000_000_000L, null, Map.of()));
  }

  @Test
  void aVmThatFitsNoHost_isNamedWithItsReason(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("full.conf");
    Files.writeString(file, """
        scenario {
          hosts { only { cores = 2, gpus = 1 } }
          vms {
            big   { workload = cuda-loop, share = 0.8, vcpus = 1, stop-after = 1s }
            small { workload = cuda-loop, share = 0.3, vcpus = 1 }
            later { workload = cuda-loop, share = 0.3, vcpus = 1, start-delay = 2s }
          }
        }
        """);
    Settings.Scenario s = load(file);
    String reason = s.rejected().get(0).reason();
    assertEquals("warning: 1 of 3 VMs fit no host and do not run (first: small at 0.000 s: " + reason
        + "); summary.json's placement.rejected lists them all", RunCommand.placementNote(s));
  }

  @Test
  void everyVmPlaced_saysNothing(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("ok.conf");
    Files.writeString(file, """
        scenario {
          hosts { only { cores = 2, gpus = 1 } }
          vms { a { workload = cuda-loop, share = 0.3, vcpus = 1 } }
        }
        """);
    assertNull(RunCommand.placementNote(load(file)));
  }
}
