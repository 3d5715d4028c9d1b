package org.gpuemu.emulator.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.emulator.run.Runner;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hosts in parallel ({@code fidelity.host-threads}): every host its own causal partition, the actors on a pool of
 * threads. A multi-host scenario with VMs that arrive and leave during the run and a GPU hang healed by the watchdog
 * (what reaches a host from the guardian) gives the same figures and the same timeline with one order for the whole
 * run and with 1, 2 and 4 host threads, with no event out of order anywhere.
 */
@Tag("slow")
class HostThreadsTest {
  private static final Path CONF = Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios", "cluster",
      "three-hosts.conf");

  private static Settings.Scenario scenario(int threads) throws Exception {
    // four times the speed: the order, not the wall clock, decides every figure
    return ScenarioLoader.load(CONF, new ScenarioLoader.Overrides(4.0, 3_000_000_000L, 7L,
        Map.of("fidelity.host-threads", String.valueOf(threads)),
        new FaultPlan.Cli(List.of("gpu-hang@0.7s:game2:300ms"), null, null)));
  }

  /** The figures: summary.json without what measures the machine (fidelity, wall time). */
  private static Map<String, Object> figures(Summary s) {
    Map<String, Object> doc = new LinkedHashMap<>(s.document());
    for (String key : List.of("fidelity", "wall_seconds")) doc.remove(key);
    return doc;
  }

  @Test
  void sameSeed_sameFiguresAndTimeline_withOneOrder_andWithOneTwoAndFourHostThreads(@TempDir Path out)
      throws Exception {
    Summary one = null;
    String timeline = null;
    for (int threads : new int[] {0, 1, 2, 4}) {
      Settings.Scenario s = scenario(threads);
      assertEquals(threads, s.fidelity().hostThreads());
      Path dir = out.resolve("t" + threads);
      Summary summary = new Summary(Runner.run(s, dir, Runner.Options.every(500)));
      assertTrue(summary.brokenInvariants().isEmpty(), summary.brokenInvariants().toString());
      var causality = summary.doc().fidelity().causality();
      assertEquals(0L, causality.violations(), threads + " threads");
      assertEquals(0L, causality.observerViolations(), threads + " threads");
      assertEquals(0L, causality.tieInversions(), threads + " threads");
      if (one == null) {
        one = summary;
        timeline = Files.readString(dir.resolve("timeline.jsonl"));
        assertTrue(((Map<?, ?>) one.document().get("hosts")).size() == 3, "three hosts");
        continue;
      }
      assertEquals(figures(one), figures(summary), threads + " threads");
      assertEquals(timeline, Files.readString(dir.resolve("timeline.jsonl")), threads + " threads");
    }
  }
}
