package org.gpuemu.emulator.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.gpuemu.emulator.RunsAlone;
import org.gpuemu.emulator.clock.Frontier;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.emulator.report.SummaryDoc;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A running emulation paused, resumed and changed from outside ({@link Runner.Session}), on real actors at time scale
 * 1: while paused neither the model nor its clock moves, and after the resume no timer falls due for the pause (no
 * lag); a paused run's figures are those of the same run unpaused. A control requested live becomes an event just
 * after the model's present, is recorded in summary.json, and replayed from that record gives the same run.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("slow")
class LiveSessionTest {
  private static final Path CONF = Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios", "baseline",
      "default-contention.conf");
  private static final long MS = 1_000_000L;

  private static Settings.Scenario scenario(long durationNanos) throws Exception {
    return ScenarioLoader.load(CONF, new ScenarioLoader.Overrides(1.0, durationNanos, 7L, Map.of(),
        FaultPlan.Cli.NONE));
  }

  /** The figures: summary.json without what measures the machine (fidelity, wall time) or what was done to it. */
  static Map<String, Object> figures(Summary s) {
    Map<String, Object> doc = new LinkedHashMap<>(s.document());
    for (String key : List.of("fidelity", "wall_seconds", "controls")) doc.remove(key);
    return doc;
  }

  @BeforeAll
  void warmUp() throws Exception {
    Runner.warmUp(scenario(1_000 * MS), 1_000_000_000L); // the lag figures read wall time: compile first
  }

  /** Runs {@code s} with {@code attach}; {@code context} gets the run's context. */
  private static Summary run(Settings.Scenario s, Path out, Runner.Attach attach,
      AtomicReference<RunContext> context) throws Exception {
    Summary summary = new Summary(Runner.run(s, out, Runner.Options.every(100, v -> { })
        .withStarted(context::set).withAttach(attach)));
    assertTrue(summary.brokenInvariants().isEmpty(), summary.brokenInvariants().toString());
    return summary;
  }

  @Test
  @RunsAlone // a lag bound and a real-time factor at time scale 1: the wall clock's pace
  void pause_stopsTheModelAndItsClockTogether_resumeGoesOnWithoutLag_andTheFiguresAreTheUnpausedRuns(
      @TempDir Path out) throws Exception {
    Settings.Scenario s = scenario(1_500 * MS);
    AtomicReference<RunContext> context = new AtomicReference<>();
    CompletableFuture<Runner.Session> session = new CompletableFuture<>();
    CompletableFuture<Summary> paused = CompletableFuture.supplyAsync(() -> {
      try {
        return run(s, out.resolve("paused"), new Runner.Attach(session::complete, r -> { }, List.of()), context);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    Runner.Session live = session.get(30, TimeUnit.SECONDS);
    Poll.until("the run reached 500 ms of model time", Duration.ofSeconds(60),
        () -> context.get() != null && context.get().clock().nowNanos() >= 500 * MS);
    long at = live.pause();
    assertTrue(live.paused());
    long clockAt = context.get().clock().nowNanos();
    long reachedAt = context.get().lateness().reachedNanos();
    Frontier frontier = context.get().causality().frontier();
    Frontier.Level pausedAt = frontier.pausedAt();
    // events at the present already handed over finish, so the bound may still move up to the pause's level and just
    // past it (what they caused waits there), but nothing later than the pause is handed over: once past the pause's
    // level, the bound stands. The pause is long against the lag bound below (had the clock gone on, every event after
    // it would be late by it), so it is held that long, checked throughout
    AtomicReference<Frontier.Level> past = new AtomicReference<>();
    Poll.holdsFor(1_100 * MS, () -> {
      assertEquals(clockAt, context.get().clock().nowNanos(), "the clock stands still while paused");
      Frontier.Level bound = frontier.bound();
      if (bound.compareTo(pausedAt) > 0) {
        past.compareAndSet(null, bound);
        assertEquals(past.get(), bound, "the model does not move past the pause at " + pausedAt);
      }
      assertTrue(context.get().lateness().reachedNanos() <= Math.max(reachedAt, at), "no timer fires past the pause");
    });
    long stood = live.resume();
    assertFalse(live.paused());
    assertTrue(stood >= 1_100 * MS, "paused for " + stood + " ns");
    Summary withPause = paused.get(60, TimeUnit.SECONDS);

    Summary plain = run(s, out.resolve("plain"), Runner.Attach.NONE, new AtomicReference<>());
    assertEquals(figures(plain), figures(withPause), "a pause changes no figure");
    List<SummaryDoc.Control> controls = withPause.doc().controls();
    assertEquals(1, controls.size(), controls.toString());
    assertEquals("pause", controls.get(0).what());
    assertEquals(at / 1e9, controls.get(0).atS(), 1e-6);
    assertTrue(controls.get(0).pausedWallS() >= 1.1, controls.toString());
    // had the clock gone on during the pause, every event after it would be handled over a second (the pause)
    // late; the bound is half that, not the verdict's 100 ms, so that a loaded machine's own lag does not fail it
    SummaryDoc.Causality order = withPause.doc().fidelity().causality();
    assertTrue(order.lagWallMsP99() < 500, "lag p99 " + order.lagWallMsP99() + " ms wall");
    assertEquals(0, order.violations());
    assertTrue(withPause.doc().fidelity().realTimeFactor() > 0.8,
        "the real-time factor leaves the pause out: " + withPause.doc().fidelity().realTimeFactor());
  }

  @Test
  void liveControl_isAnEventJustAfterThePresent_recorded_andItsReplayIsTheSameRun(@TempDir Path out)
      throws Exception {
    Settings.Scenario s = scenario(1_500 * MS);
    AtomicReference<RunContext> context = new AtomicReference<>();
    CompletableFuture<Runner.Session> session = new CompletableFuture<>();
    CompletableFuture<Summary> controlled = CompletableFuture.supplyAsync(() -> {
      try {
        return run(s, out.resolve("live"), new Runner.Attach(session::complete, r -> { }, List.of()), context);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    Runner.Session live = session.get(30, TimeUnit.SECONDS);
    Poll.until("the run reached 400 ms of model time", Duration.ofSeconds(60),
        () -> context.get() != null && context.get().clock().nowNanos() >= 400 * MS);
    Control stall = new Control.Fault(FaultPlan.Kind.VCPU_STALL, "nba2012", 300 * MS);
    long present = context.get().now();
    long at = live.control(stall).toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertTrue(at > present && at % MS == 0, "at " + at + ", the present " + present + ": after it, a whole ms");
    Summary live1 = controlled.get(60, TimeUnit.SECONDS);

    List<SummaryDoc.Control> controls = live1.doc().controls();
    assertEquals(1, controls.size(), controls.toString());
    assertEquals("fault", controls.get(0).what());
    assertEquals("vcpu-stall", controls.get(0).kind());
    assertEquals(at / 1e9, controls.get(0).atS());
    assertEquals(Boolean.TRUE, controls.get(0).applied());
    assertEquals(1, live1.doc().faults().size(), "the fault is in the faults too");
    assertEquals(at / 1e9, live1.doc().faults().get(0).atS(), 1e-9);

    Summary replay = run(s, out.resolve("replay"), new Runner.Attach(x -> { }, r -> { },
        List.of(new Control.Planned(at, stall))), new AtomicReference<>());
    assertEquals(figures(live1), figures(replay), "replayed from its record, the same run");
    assertEquals(live1.doc().controls(), replay.doc().controls());
    Summary plain = run(s, out.resolve("plain"), Runner.Attach.NONE, new AtomicReference<>());
    assertNotEquals(figures(plain).get("vms"), figures(live1).get("vms"), "the stall changed the run");
    assertTrue(Files.exists(out.resolve("live/timeline.jsonl")));
  }
}
