package org.gpuemu.emulator.config;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every scenario file under conf/scenarios loads without a problem and opens by naming what it reproduces (the paper,
 * or for custom/ that it reproduces none).
 */
@Tag("slow")
class EveryScenarioFileTest {
  private static final Path CONF = Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios");

  static List<Path> files() throws Exception {
    try (Stream<Path> walk = Files.walk(CONF)) {
      return walk.filter(p -> p.toString().endsWith(".conf")).sorted().toList();
    }
  }

  @ParameterizedTest
  @MethodSource("files")
  void loads_andSaysWhatItReproduces(Path file) throws Exception {
    Settings.Scenario s = assertDoesNotThrow(() -> ScenarioLoader.load(file, ScenarioLoader.Overrides.none()),
        () -> file + " does not load");
    assertFalse(s.vms().isEmpty(), file + " has no VM");
    String head = Files.readString(file).lines().findFirst().orElse("");
    // custom/ holds scenarios of no paper (workloads defined without Java): they say so instead
    // cluster/ holds scenarios of many hosts, of no paper either
    String folder = file.getParent().getFileName().toString();
    boolean custom = folder.equals("custom");
    assertTrue(custom ? head.startsWith("# Custom workloads:")
            : folder.equals("cluster") ? head.startsWith("# Many hosts")
            // sharing/ holds the vendor's sharing modes (NVIDIA vGPU, MIG, MPS): no paper, the documentation instead
            : folder.equals("sharing") ? head.startsWith("# Sharing modes (NVIDIA's documentation)")
            : head.matches("# .*\\b(vgris|fairgv|vmcg|combo|gballoon)\\.txt\\b.*"),
        file + " should open with a comment naming the paper and figure it reproduces: " + head);
  }
}
