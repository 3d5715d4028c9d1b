package org.gpuemu.emulator.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.clock.Causality;
import org.gpuemu.emulator.clock.TimerLateness;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.gpu.GpuMemory;
import org.gpuemu.emulator.gpu.GpuScheduler;
import org.gpuemu.emulator.gpu.Scheduling;
import org.gpuemu.emulator.gpu.SmGroup;
import org.gpuemu.emulator.cpu.CpuScheduler;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.run.Control;
import org.gpuemu.emulator.run.RunResult;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.vm.VCpu;
import org.gpuemu.emulator.vm.VcpuReport;
import org.gpuemu.emulator.vm.VGpu;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.vgris.Algorithm;
import org.gpuemu.policies.vgris.AlgorithmSwitch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole summary.json of two hand-made runs, text for text, against files captured from the map-building summary
 * the typed one replaced: summary.json is a contract (docs/guides/output-files.md), its keys, nesting, order and
 * values must not move.
 */
public class SummaryGoldenTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000 * MS;

  private static Settings.Vm vm(int index, String name, String workload, int weight, long startDelay, long stopAfter,
      double share) {
    return Settings.Vm.builder(index, name, workload, List.of(index)).weight(weight).memoryCap(1L << 30)
        .syncWait(Settings.SyncWait.HYBRID, 100_000).buffers(2, 2).window(startDelay, stopAfter).slaFps(30)
        .share(share).build();
  }

  private static Settings.Scenario scenario(String name, String gpuPolicy, String memoryPolicy, List<Settings.Vm> vms) {
    return Settings.Scenario.oneHost(name, new Settings.Host(2), new Settings.Gpu(82, 1L << 32, 25_000, 1), vms)
        .file("conf/" + name + ".conf").run(0.5, 10 * S, 42)
        .policies(new Settings.PolicyChoice(gpuPolicy, PolicyParams.empty()),
            new Settings.PolicyChoice("fcfs", PolicyParams.empty()),
            new Settings.PolicyChoice(memoryPolicy, PolicyParams.empty()))
        .fidelity(Settings.Fidelity.defaults(5 * S), S).build();
  }

  private static Causality.Snapshot order() {
    return new Causality.Snapshot(Causality.Order.CONSERVATIVE, 9_990, 30, 3, 1, 0, 1_234_567,
        new TimerLateness.Snapshot(3, 400, 1_100, 1_200, 1_234), new TimerLateness.Snapshot(10_000, 70, 900, 950, 990),
        50_000_000, 4);
  }

  /**
   * VGRIS-like time sharing, 10 s: two algorithm switches, a policy share for {@code a} and a configured one for
   * {@code b} (which runs from 2 s to 6 s and whose program ended), gBalloon's slots and figures, and broken
   * invariants of every kind (lost requests, a policy violation, a core's violation, a stall, dropped timeline rows);
   * since issue 19 also {@code a}'s frame-latency distribution, controls from outside (a weight applied, a share
   * refused, a fault, a pause), progress samples (one paused) and the lateness and lag histograms.
   */
  public static RunResult timeSharing() {
    List<Settings.Vm> vms = List.of(vm(0, "a", "dirt3", 1, 0, Long.MAX_VALUE, Double.NaN),
        vm(1, "b", "dirt3", 2, 2 * S, 4 * S, 0.4));
    List<VGpu.VgpuReport> vgpus = List.of(new VGpu.VgpuReport(0, 120, 110, 4, 3, 400, 3_100 * MS, 380, 3_000 * MS, List.of()),
        new VGpu.VgpuReport(1, 90, 90, 0, 0, 250, 2_050 * MS, 240, 2_000 * MS, List.of()));
    List<List<VcpuReport>> vcpus = List.of(
        List.of(new VcpuReport(0, 0, 4 * S, 300 * MS, 10, 9, 1, List.of("oom: 64 MiB over the cap"), 40 * MS,
            500, 0, 0, -1, List.of(), 0), new VcpuReport(0, 1, 0, 0, 0, 0, 0, List.of(), 0, 0, 0, 0, -1, List.of(), 0)),
        List.of(new VcpuReport(1, 0, 2 * S, 100 * MS, 5, 5, 0, List.of(), 6 * S, 300, 2, 7, 3_500 * MS, List.of(), 0)));
    MetricsHub.FinalMetrics metrics = new MetricsHub.FinalMetrics(List.of(
        new MetricsHub.VmMetrics(600, 12, 16_500, 33_400, 51_234, 3_000 * MS, 300L << 20, cdf(), 55,
            65, null, null),
        new MetricsHub.VmMetrics(130, 130, 30_100, 45_000, 70_000, 2_000 * MS, 123_456_789, List.of(), Double.NaN, Double.NaN, null, null)),
        20 * MS, 20, 2, "disk full");
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("mode", "sla-aware");
    figures.put("controller_periods", 10);
    List<Control.Record> controls = List.of(
        new Control.Record(new Control.Weight("a", 3), 1_001 * MS, true, null, 0),
        new Control.Record(new Control.Share("b", 0.7), 2_500 * MS, false, "vgris-hybrid: the shares are computed "
            + "by the policy, not configured", 0),
        Control.Record.pause(3_200_123_456L, 4_250 * MS),
        new Control.Record(new Control.Fault(FaultPlan.Kind.GPU_HANG, "b", 2 * S), 4 * S, true, null, 0));
    List<RunResult.Progress> progress = List.of(new RunResult.Progress(0.25, 0.1, Double.NaN, -1, false),
        new RunResult.Progress(0.5, 0.35, 0.9987, 420, false), new RunResult.Progress(0.75, 0.35, 0, -1, true));
    return RunResult.builder(scenario("golden-vgris", "vgris-hybrid", "gballoon", vms), 10 * S, 20.5, false)
        .guests(vgpus, vcpus)
        .oneGpu(List.of(new CpuScheduler.CoreReport(0, 6 * S, 40, List.of()),
            new CpuScheduler.CoreReport(1, 2 * S, 10, List.of("runnable vCPU left waiting"))),
            List.of(new SmGroup.GroupReport(82, 5_020 * MS, 30 * MS, 120, 640, 2_500_000, 10_400 * MS,
                82, 82.0 * 5_020 * MS)),
            new Scheduling.SchedulerReport("vgris-hybrid", 640, List.of("share over 1"), List.of(
                new AlgorithmSwitch(3 * S, Algorithm.PROPORTIONAL_SHARE, Algorithm.SLA_AWARE),
                new AlgorithmSwitch(7_250 * MS, Algorithm.SLA_AWARE, Algorithm.PROPORTIONAL_SHARE)),
                Map.of(0, 1.0 / 3), figures),
            new GpuMemory.MemoryReport("gballoon", 5, 1, List.of(), Map.of(1, List.of(16, 32)), Map.of("moves", 3)))
        .metrics(metrics)
        .timing(new TimerLateness.Snapshot(1000, 20, 500, 900, 1000), new TimerLateness.Snapshot(50, 1, 2, 3, 4),
            order())
        .runningWallSeconds(12.5).controls(controls).progress(progress)
        .histograms(new TimerLateness.Buckets(List.of(1L, 2L, 4L, 8L, 1024L), List.of(400L, 300L, 200L, 99L, 1L)),
            new TimerLateness.Buckets(List.of(16L, 32L), List.of(9_000L, 990L)))
        .build();
  }

  /** A frame-latency distribution: 101 latencies (µs), 16 ms to 51.234 ms. */
  private static List<Long> cdf() {
    List<Long> cdf = new java.util.ArrayList<>();
    for (int p = 0; p < 100; p++) cdf.add(16_000L + 170L * p);
    cdf.add(51_234L);
    return cdf;
  }

  /**
   * COMBO-like space sharing, 10 s: a game and two best-effort jobs (all with a solo throughput, so normalised by
   * it), two SM groups, the space scheduler's figures (Eq. 6's throughput, the game's FPS and headroom), no frames
   * median (the reference is the kernel median).
   */
  static RunResult spaceSharing() {
    List<Settings.Vm> vms = List.of(vm(0, "game", "combo-resnet50", 1, 250 * MS, Long.MAX_VALUE, Double.NaN),
        vm(1, "dnn", "combo-resnet50", 1, 0, Long.MAX_VALUE, Double.NaN),
        vm(2, "parboil", "combo-tpacf", 2, 0, Long.MAX_VALUE, Double.NaN));
    List<VGpu.VgpuReport> vgpus = List.of(new VGpu.VgpuReport(0, 1_000, 1_000, 0, 0, 1_000, 900 * MS, 990, 890 * MS, List.of()),
        new VGpu.VgpuReport(1, 5_000, 5_000, 0, 0, 5_000, 3 * S, 4_900, 2_950 * MS, List.of()),
        new VGpu.VgpuReport(2, 2_000, 2_000, 0, 0, 2_000, 3_600 * MS, 1_950, 3_500 * MS, List.of()));
    List<List<VcpuReport>> vcpus = List.of(
        List.of(new VcpuReport(0, 0, S, 0, 0, 0, 0, List.of(), MS, 1_000, 0, 0, -1, List.of(), 0)),
        List.of(new VcpuReport(1, 0, 2 * S, 0, 0, 0, 0, List.of(), MS, 5_000, 0, 0, -1, List.of(), 0)),
        List.of(new VcpuReport(2, 0, 3 * S, 0, 0, 0, 0, List.of(), MS, 2_000, 0, 0, -1, List.of(), 0)));
    MetricsHub.VmMetrics none = new MetricsHub.VmMetrics(0, 0, 0, 0, 0, 0, 0, List.of(), Double.NaN, Double.NaN, null, null);
    MetricsHub.FinalMetrics metrics = new MetricsHub.FinalMetrics(List.of(
        new MetricsHub.VmMetrics(1_100, 3, 8_300, 9_000, 12_000, 890 * MS, 0, List.of(), Double.NaN,
            Double.NaN, null, null), none, none), 0, 10, 0, null);
    Map<String, Object> be = new LinkedHashMap<>();
    be.put("cd", 120.5);
    be.put("tc", 300.25);
    be.put("total", 420.75);
    Map<String, Object> headroom = new LinkedHashMap<>();
    headroom.put("count", 1_099L);
    headroom.put("mean", 2.5);
    headroom.put("p50", 2.4);
    headroom.put("p90", 4.0);
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("be_throughput", be);
    figures.put("game_vm", 0);
    figures.put("frames_rendered", 1_100L);
    figures.put("qos_violations", 2);
    figures.put("fps_avg", 119.5);
    figures.put("fps_p99", null);
    figures.put("merged_frames", 4);
    figures.put("headroom_ms", headroom);
    figures.put("gpu_idle", 0.0712);
    figures.put("render_sm_share", 0.7195);
    Map<String, Object> error = new LinkedHashMap<>();
    error.put("frames", 900L);
    error.put("mean", 0.0);
    error.put("max", 0.00001);
    figures.put("render_error", error);
    figures.put("online_overhead_ms", 0.08);
    Map<String, Object> perFrame = new LinkedHashMap<>();
    perFrame.put("1", 2.5);
    perFrame.put("2", 1.25);
    figures.put("be_kernels_per_frame", perFrame);
    figures.put("scheme_switches", 1);
    return RunResult.builder(scenario("golden-combo", "combo", "fcfs", vms), 10 * S, 41.0, true)
        .guests(vgpus, vcpus)
        .oneGpu(List.of(new CpuScheduler.CoreReport(0, 6 * S, 40, List.of()),
            new CpuScheduler.CoreReport(1, 0, 0, List.of())),
            List.of(new SmGroup.GroupReport(41, 3_000 * MS, 0, 0, 5_000, 0, 10 * S, 82, 1.5e11),
                new SmGroup.GroupReport(41, 4_290 * MS, 0, 0, 3_000, 1_800_000, 10_200 * MS, 82, 1.2e11)),
            new Scheduling.SchedulerReport("combo", 8_000, List.of(), List.of(), Map.of(), figures),
            new GpuMemory.MemoryReport("fcfs", 0, 0, List.of(), Map.of(), Map.of()))
        .metrics(metrics)
        .timing(new TimerLateness.Snapshot(1000, 20, 500, 900, 1000), new TimerLateness.Snapshot(0, 0, 0, 0, 0), order())
        .build();
  }

  private static String golden(String name) throws IOException {
    try (InputStream in = SummaryGoldenTest.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static String written(RunResult result, Path dir) throws IOException {
    Path file = dir.resolve("summary.json");
    new Summary(result).write(file);
    return Files.readString(file);
  }

  /**
   * The text written for {@code name}; with {@code -Dgolden.update=true} it also replaces the golden file in the
   * source tree (after a deliberate change of the contract: read the diff before committing it).
   */
  private static String checked(String name, RunResult result, Path dir) throws IOException {
    String text = written(result, dir);
    if (Boolean.getBoolean("golden.update")) {
      Files.writeString(Path.of("src/test/resources/org/gpuemu/emulator/report", name), text);
    }
    return text;
  }

  @Test
  void timeSharing_summaryJson_isTheContractsTextToTheCharacter(@TempDir Path dir) throws IOException {
    assertEquals(golden("summary-time-sharing.json"), checked("summary-time-sharing.json", timeSharing(), dir));
  }

  @Test
  void spaceSharing_summaryJson_isTheContractsTextToTheCharacter(@TempDir Path dir) throws IOException {
    assertEquals(golden("summary-space-sharing.json"), checked("summary-space-sharing.json", spaceSharing(), dir));
  }

  @Test
  void document_theMapsCallersRead_writeTheSameText() throws IOException {
    // compare, the bench and the scenario tests read document(): it must be summary.json, number types included
    // (a long stays a Long), so that written back it gives the same text
    ObjectMapper json = new ObjectMapper();
    Map<String, Object> doc = new Summary(spaceSharing()).document();
    assertEquals(golden("summary-space-sharing.json"), json.writerWithDefaultPrettyPrinter().writeValueAsString(doc));
    Map<?, ?> game = (Map<?, ?>) ((Map<?, ?>) doc.get("vms")).get("game");
    assertEquals(1_100L, game.get("frames"), "VmMetrics.frames is a long");
    assertEquals(List.of("game", "dnn", "parboil"), List.copyOf(((Map<?, ?>) doc.get("vms")).keySet()));
  }
}
