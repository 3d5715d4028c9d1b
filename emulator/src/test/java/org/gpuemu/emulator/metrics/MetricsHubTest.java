package org.gpuemu.emulator.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestInbox;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.gpuemu.emulator.ManualTimeKit;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.clock.Timed;
import org.gpuemu.emulator.faults.FaultInjector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metrics hub with its ports under the run's conservative order, on the test's time ({@link ManualTimeKit}): a
 * test actor writes the reports from its own events at chosen model times, as a vCPU, vGPU and guest agent do, and
 * the timeline's rows and the final figures show which period each landed in.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MetricsHubTest {
  private static final long MS = 1_000_000;
  /** The metrics period. */
  private static final long PERIOD = 100 * MS;
  @TempDir static Path tmp;
  private static int runs;
  private final ManualTimeKit time = new ManualTimeKit();
  private final ActorTestKit kit = time.kit();
  private final ObjectMapper json = new ObjectMapper();

  @AfterAll
  void shutdown() {
    time.shutdown();
  }

  /** The driver's event number {@code index}, at model time {@code due}. */
  private record At(long due, int index) implements Timed {}

  /** Arm the driver's events; {@code replyTo} hears once they are armed. */
  private record Arm(ActorRef<Arm> replyTo) {}

  /** One hub of one VM (30 FPS SLA: a frame over 33 ms is over it) and its ports, on a fresh conservative run. */
  private final class Rig {
    final RunContext run = time.conservative();
    final MetricsPorts ports = new MetricsPorts(run);
    final Path timeline = tmp.resolve("timeline-" + (runs++) + ".jsonl");
    final ActorRef<MetricsHub.Command> hub = kit.spawn(MetricsHub.create(
        List.of(new MetricsHub.VmInfo(0, "vm", 30, 1)), PERIOD, timeline, run, ports));
    /** What the driver does at each model time (in one event each), written before it is spawned. */
    final TreeMap<Long, Runnable> events = new TreeMap<>();

    /** Runs {@code what} as an event of the model at {@code atNanos}. */
    Rig at(long atNanos, Runnable what) {
      events.merge(atNanos, what, (a, b) -> () -> {
        a.run();
        b.run();
      });
      return this;
    }

    /** Starts the periods at 1 ms (as the guardian does at time zero), runs the model to {@code untilNanos}. */
    void runTo(long untilNanos) {
      at(MS, () -> hub.tell(MetricsHub.Begin.INSTANCE));
      List<Long> dues = new ArrayList<>(events.keySet());
      List<Runnable> what = new ArrayList<>(events.values());
      TestProbe<Arm> armed = kit.createTestProbe();
      ActorRef<Object> driver = kit.spawn(Behaviors.setup(ctx -> Behaviors.withTimers(timers -> run.causal(
          Behaviors.receive(Object.class)
              .onMessage(Arm.class, m -> {
                // armed inside an event of the run, so that the order counts them before time moves
                for (int i = 0; i < dues.size(); i++) run.arm(timers, "at-" + i, new At(dues.get(i), i), dues.get(i));
                m.replyTo().tell(m);
                return Behaviors.same();
              })
              .onMessage(At.class, a -> {
                run.fired(a.due());
                what.get(a.index()).run();
                return Behaviors.same();
              })
              .build()))));
      driver.tell(new Arm(armed.getRef()));
      armed.receiveMessage();
      Runnable caughtUp = time.caughtUp();
      time.pass(untilNanos - run.clock().nowNanos(), caughtUp);
    }

    /** Ends the hub: its final figures, once the timeline is written. */
    MetricsHub.FinalMetrics finish() {
      TestProbe<MetricsHub.FinalMetrics> probe = kit.createTestProbe();
      hub.tell(new MetricsHub.Finish(probe.getRef()));
      return probe.receiveMessage();
    }

    /** The timeline's rows, by the end of their period in ms. */
    TreeMap<Long, JsonNode> rows() throws Exception {
      TreeMap<Long, JsonNode> rows = new TreeMap<>();
      for (String line : Files.readAllLines(timeline)) {
        JsonNode row = json.readTree(line);
        rows.put(Math.round(row.get("t_s").asDouble() * 1000), row);
      }
      return rows;
    }
  }

  @Test
  void reportAtThePeriodsBoundary_landsInTheNextPeriod_asItsMessageDid() throws Exception {
    Rig rig = new Rig();
    MetricsPorts.Frames frames = rig.ports.frames(0);
    MetricsPorts.GpuTime gpu = rig.ports.gpuTime(0);
    MetricsPorts.Presents presents = rig.ports.presents(0);
    rig.at(50 * MS, () -> {
      frames.frame(10 * MS);
      gpu.used(3 * MS);
    });
    // at the boundary: the period's timer is at (100 ms, 0), a report made by an event at 100 ms at (100 ms, 1)
    rig.at(PERIOD, () -> {
      frames.frame(40 * MS); // over the 30 FPS SLA's 33 ms
      gpu.used(5 * MS);
      presents.returned(2 * MS, -1);
    });
    rig.at(PERIOD + 1, () -> gpu.used(7 * MS));
    rig.runTo(250 * MS);
    MetricsHub.FinalMetrics end = rig.finish();
    TreeMap<Long, JsonNode> rows = rig.rows();
    assertEquals(1, rows.get(100L).get("frames").asLong(), "the frame at 50 ms only");
    assertEquals(3.0, rows.get(100L).get("gpu_busy_ms").asDouble(), 1e-9);
    assertEquals(1, rows.get(200L).get("frames").asLong(), "the frame at 100 ms");
    assertEquals(12.0, rows.get(200L).get("gpu_busy_ms").asDouble(), 1e-9, "5 ms at 100 ms and 7 ms just after");
    MetricsHub.VmMetrics vm = end.vms().get(0);
    assertEquals(2, vm.frames());
    assertEquals(1, vm.framesOverSla());
    assertEquals(15 * MS, vm.gpuBusyNanos());
    assertNotNull(vm.present());
    assertEquals(1, vm.present().calls());
  }

  @Test
  void crash_losesThePeriodsCounts_notTheRunsTotals() throws Exception {
    Rig rig = new Rig();
    MetricsPorts.Frames frames = rig.ports.frames(0);
    MetricsPorts.GpuTime gpu = rig.ports.gpuTime(0);
    TestInbox<FaultInjector.Outcome> outcomes = TestInbox.create();
    rig.at(50 * MS, () -> frames.frame(10 * MS));
    rig.at(120 * MS, () -> {
      frames.frame(10 * MS);
      gpu.used(4 * MS);
    });
    rig.at(150 * MS, () -> rig.hub.tell(new MetricsHub.Crash(1, 150 * MS, outcomes.getRef())));
    rig.at(170 * MS, () -> {
      frames.frame(20 * MS);
      gpu.used(6 * MS);
    });
    rig.runTo(250 * MS);
    MetricsHub.FinalMetrics end = rig.finish();
    TreeMap<Long, JsonNode> rows = rig.rows();
    assertEquals(1, rows.get(100L).get("frames").asLong());
    // the frame and kernel at 120 ms were counted, then lost with the period's counts at 150 ms
    assertEquals(1, rows.get(200L).get("frames").asLong(), "only the frame after the crash");
    assertEquals(6.0, rows.get(200L).get("gpu_busy_ms").asDouble(), 1e-9);
    assertEquals(new FaultInjector.Healed(1, 150 * MS), outcomes.receiveMessage());
    MetricsHub.VmMetrics vm = end.vms().get(0);
    assertEquals(3, vm.frames(), "the run's totals outlive the crash");
    assertEquals(10 * MS, vm.gpuBusyNanos());
  }
}
