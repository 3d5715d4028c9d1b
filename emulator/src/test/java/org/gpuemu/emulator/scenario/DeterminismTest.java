package org.gpuemu.emulator.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.RunsAlone;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.emulator.run.Runner;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conservative order's guarantee on a whole run (docs/concepts/time-and-order.md): the same scenario and seed give
 * the same figures and the same timeline whatever the threads do — run again, run at another time scale, or with the
 * emulator itself stalled on purpose for a while (the {@code emulator-stall} fault blocks a dispatcher thread).
 * A stall shorter than the horizon (100 ms of wall time) leaves the run faithful; a longer one makes it unfaithful
 * by lag — its figures still exact, since a late thread delays the model instead of reordering it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("slow")
class DeterminismTest {
  private static final Path CONF = Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios", "baseline",
      "default-contention.conf");
  private static final long RUN_NANOS = 1_500_000_000L;

  private static Settings.Scenario scenario(double scale, List<String> faults) throws Exception {
    return ScenarioLoader.load(CONF, new ScenarioLoader.Overrides(scale, RUN_NANOS, 7L, Map.of(),
        new FaultPlan.Cli(faults, null, null)));
  }

  private static Summary run(Settings.Scenario s, Path out) throws Exception {
    Summary summary = new Summary(Runner.run(s, out, Runner.Options.every(500)));
    assertTrue(summary.brokenInvariants().isEmpty(), summary.brokenInvariants().toString());
    return summary;
  }

  /** The figures: summary.json without what measures the machine (fidelity, wall time) or names the run's setup. */
  private static Map<String, Object> figures(Summary s) {
    Map<String, Object> doc = new LinkedHashMap<>(s.document());
    for (String key : List.of("fidelity", "wall_seconds", "time_scale", "faults")) doc.remove(key);
    return doc;
  }

  @BeforeAll
  void warmUp() throws Exception {
    // the verdict's lag rule reads wall time: compile the actors' paths first, as `run` does (docs/performance.md)
    Runner.warmUp(scenario(1, List.of()), 1_000_000_000L);
  }

  @Test
  void sameSeed_sameFiguresAndTimeline_runAgain_andAtFourTimesTheSpeed(@TempDir Path out) throws Exception {
    Summary a = run(scenario(1, List.of()), out.resolve("a"));
    Summary b = run(scenario(1, List.of()), out.resolve("b"));
    Summary fast = run(scenario(4, List.of()), out.resolve("fast"));
    assertEquals(figures(a), figures(b));
    assertEquals(figures(a), figures(fast));
    String timeline = Files.readString(out.resolve("a/timeline.jsonl"));
    assertEquals(timeline, Files.readString(out.resolve("b/timeline.jsonl")));
    assertEquals(timeline, Files.readString(out.resolve("fast/timeline.jsonl")));
    assertEquals(0L, a.doc().fidelity().causality().violations());
    assertEquals(0L, a.doc().fidelity().causality().tieInversions());
  }

  @Test
  @RunsAlone // faithful at time scale 1: the wall clock's pace
  void emulatorStall_underTheHorizon_changesNothing_andTheRunStaysFaithful(@TempDir Path out) throws Exception {
    Summary plain = run(scenario(1, List.of()), out.resolve("plain"));
    // 40 ms of wall time with the emulator stopped: under the 100 ms horizon
    Summary stalled = run(scenario(1, List.of("emulator-stall@0.5s:dirt3:40ms")), out.resolve("stalled"));
    assertEquals(figures(plain), figures(stalled));
    assertTrue(stalled.faithful(), stalled.reason());
    assertTrue(stalled.doc().fidelity().causality().lagUs().max() >= 30_000,
        "the stall shows as lag: " + stalled.doc().fidelity().causality().lagUs());
  }

  @Test
  void emulatorStall_overTheHorizon_changesNoFigure_butTheRunIsUnfaithfulByLag(@TempDir Path out)
      throws Exception {
    Summary plain = run(scenario(1, List.of()), out.resolve("plain"));
    // 1 s of wall time stopped at 0.5 s of a 1.5 s run: the model catches up afterwards, but every event of the
    // next second or so is handled more than 100 ms late, far over 1 % of the run's events
    Summary stalled = run(scenario(1, List.of("emulator-stall@0.5s:dirt3:1s")), out.resolve("stalled"));
    assertEquals(figures(plain), figures(stalled));
    assertFalse(stalled.faithful());
    assertTrue(stalled.reason().startsWith("lag:"), stalled.reason());
    assertEquals(0L, stalled.doc().fidelity().causality().violations(), "a late thread reorders nothing");
  }
}
