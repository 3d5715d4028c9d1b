package org.gpuemu.emulator.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.clock.Causality;
import org.gpuemu.emulator.clock.TimerLateness;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.gpu.GpuMemory;
import org.gpuemu.emulator.gpu.Scheduling;
import org.gpuemu.emulator.gpu.SmGroup;
import org.gpuemu.emulator.cpu.CpuScheduler;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.run.RunResult;
import org.gpuemu.emulator.run.FidelityVerdict;
import org.gpuemu.emulator.vm.VCpu;
import org.gpuemu.emulator.vm.VcpuReport;
import org.gpuemu.emulator.vm.VGpu;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.vgris.Algorithm;
import org.gpuemu.policies.vgris.AlgorithmSwitch;
import org.junit.jupiter.api.Test;

/** The summary's verdicts from hand-made final reports: fidelity, per-VM run time, policy switches. */
class SummaryTest {
  private static final long MS = 1_000_000L;
  private static final long S = 1_000 * MS;
  /** reference.conf's rules, under the arrival order (the size and rate rules apply to it only). */
  private static final Settings.Fidelity ARRIVAL_RULES = new Settings.Fidelity(Causality.Order.ARRIVAL, 100 * MS,
      0.01, 0.1, 0.001, 5 * S);

  private static Settings.Vm vm(int index, String name, long startDelay, long stopAfter) {
    return Settings.Vm.builder(index, name, "dirt3", List.of(0)).memoryCap(1L << 30)
        .syncWait(Settings.SyncWait.HYBRID, 100_000).buffers(2, 2).window(startDelay, stopAfter).slaFps(30).build();
  }

  /** A 10 s run of two VMs, 2 ms median kernel, the given median frame and p99 lateness. */
  private static Summary summary(long medianFrameNanos, long p99Us, List<Settings.Vm> vms,
      List<AlgorithmSwitch> switches) {
    return summary(medianFrameNanos, p99Us, vms, switches, -1, -1);
  }

  /** As above; the VMs' programs ran {@code programNanosA} and {@code programNanosB} (-1: had not ended). */
  private static Summary summary(long medianFrameNanos, long p99Us, List<Settings.Vm> vms,
      List<AlgorithmSwitch> switches, long programNanosA, long programNanosB) {
    Settings.PolicyChoice none = new Settings.PolicyChoice("fcfs", PolicyParams.empty());
    Settings.Scenario s = Settings.Scenario.oneHost("t", new Settings.Host(1), new Settings.Gpu(82, 1L << 32, 0, 1),
        vms).file("t.conf").run(1.0, 10 * S, 1).policies(none, none, none).fidelity(ARRIVAL_RULES, S).build();
    List<VGpu.VgpuReport> vgpus = List.of(new VGpu.VgpuReport(0, 10, 10, 0, 0, 10, 2 * S, 10, 2 * S, List.of()),
        new VGpu.VgpuReport(1, 10, 10, 0, 0, 10, 2 * S, 10, 2 * S, List.of()));
    List<List<VcpuReport>> vcpus = List.of(
        List.of(new VcpuReport(0, 0, S, 0, 0, 0, 0, List.of(), MS, 100, 0, 0, programNanosA, List.of(), 0)),
        List.of(new VcpuReport(1, 1, S, 0, 0, 0, 0, List.of(), MS, 100, 0, 0, programNanosB, List.of(), 0)));
    MetricsHub.VmMetrics m = new MetricsHub.VmMetrics(100, 0, 30_000, 40_000, 50_000, 2 * S, 0, List.of(),
        Double.NaN, Double.NaN, null, null);
    MetricsHub.FinalMetrics metrics = new MetricsHub.FinalMetrics(List.of(m, m), medianFrameNanos, 20, 0, null);
    return new Summary(RunResult.builder(s, 10 * S, 10.0, true)
        .guests(vgpus, vcpus)
        .oneGpu(List.of(new CpuScheduler.CoreReport(0, S, 0, List.of())),
            List.of(new SmGroup.GroupReport(82, 4 * S, 0, 0, 20, 2 * MS, 10 * S, 82, 82.0 * 4 * S)),
            new Scheduling.SchedulerReport("fcfs", 20, List.of(), switches, Map.of(), Map.of()),
            new GpuMemory.MemoryReport("static", 0, 0, List.of(), Map.of(), Map.of()))
        .metrics(metrics)
        .timing(new TimerLateness.Snapshot(1000, 20, 500, 900, 1000), new TimerLateness.Snapshot(0, 0, 0, 0, 0),
            order(p99Us, 1, 0))
        .build());
  }

  /**
   * The causal order (arrival) of 10,000 events of which {@code violations} arrived too late, the largest by
   * {@code largestUs}, with a median lag of {@code lagUs} (emulated µs).
   */
  private static Causality.Snapshot order(long largestUs, long violations, long lagUs) {
    return order(Causality.Order.ARRIVAL, largestUs, violations, 0);
  }

  /** 10,000 events under {@code order}; {@code beyond} of them handled beyond the horizon. */
  private static Causality.Snapshot order(Causality.Order order, long largestUs, long violations, long beyond) {
    return new Causality.Snapshot(order, 10_000 - violations, 0, violations, 0, 0, largestUs * 1_000,
        new TimerLateness.Snapshot(violations, largestUs, largestUs, largestUs, largestUs),
        new TimerLateness.Snapshot(10_000, 50, 900, 950, 990), 100 * MS, beyond);
  }

  @Test
  void fidelity_violationSize_isJudgedAgainstTheMedianFrame_whenGuestsPresentFrames() {
    List<Settings.Vm> vms = List.of(vm(0, "a", 0, Long.MAX_VALUE), vm(1, "b", 0, Long.MAX_VALUE));
    Summary ok = summary(20 * MS, 1_900, vms, List.of());
    assertTrue(ok.faithful(), "one event 1.9 ms out of order is under 10 % of a 20 ms frame");
    assertEquals("median frame", ok.doc().fidelity().reference());
    assertEquals(2000.0, ok.doc().fidelity().causality().violationLimitUs(), "10 % of the 20 ms frame");
    assertNull(ok.doc().fidelity().reason());
    Summary late = summary(20 * MS, 2_100, vms, List.of());
    assertFalse(late.faithful(), "2.1 ms is over 10 % of a 20 ms frame");
    assertTrue(late.reason().contains("2100 us after a later one, more than 10.0 % of the median frame"),
        late.reason());
    assertEquals(late.reason(), late.doc().fidelity().reason());
  }

  @Test
  void fidelity_violationSize_isJudgedAgainstTheMedianKernel_withoutFrames() {
    List<Settings.Vm> vms = List.of(vm(0, "a", 0, Long.MAX_VALUE), vm(1, "b", 0, Long.MAX_VALUE));
    Summary s = summary(0, 210, vms, List.of());
    assertFalse(s.faithful(), "210 us is over 10 % of a 2 ms kernel");
    assertEquals("GPU-time median kernel", s.doc().fidelity().reference());
    assertEquals(200.0, s.doc().fidelity().causality().violationLimitUs(), "10 % of the 2 ms kernel");
  }

  @Test
  void verdict_violationRate_isARuleOfItsOwn_underTheArrivalOrder() {
    assertTrue(FidelityVerdict.of(order(10, 10, 0), 20 * MS, "median frame", ARRIVAL_RULES, 1).faithful(),
        "10 small violations in 10,000 events are 0.1 %, at the limit");
    FidelityVerdict many = FidelityVerdict.of(order(10, 11, 0), 20 * MS, "median frame", ARRIVAL_RULES, 1);
    assertFalse(many.faithful(), "11 in 10,000 are over 0.1 %");
    assertTrue(many.reason().startsWith("causality: 11 of 10000 events"), many.reason());
    assertEquals("causality", many.rule());
  }

  @Test
  void verdict_underTheConservativeOrder_failsOnAnyViolation() {
    Settings.Fidelity rules = Settings.Fidelity.defaults(5 * S);
    assertTrue(FidelityVerdict.of(order(Causality.Order.CONSERVATIVE, 0, 0, 0), 20 * MS, "median frame", rules, 1)
        .faithful());
    FidelityVerdict one = FidelityVerdict.of(order(Causality.Order.CONSERVATIVE, 1, 1, 0), 20 * MS, "median frame", rules, 1);
    assertFalse(one.faithful(), "one violation of 1 us: the order was bypassed, its effect has no bound");
    assertEquals("causality", one.rule());
    assertTrue(one.reason().startsWith("causality: 1 events were handled after a later one"), one.reason());
  }

  @Test
  void verdict_lag_failsWhenMoreThanTheLagShareOfEventsWereBeyondTheHorizon() {
    Settings.Fidelity rules = Settings.Fidelity.defaults(5 * S);
    assertTrue(FidelityVerdict.of(order(Causality.Order.CONSERVATIVE, 0, 0, 100), 20 * MS, "median frame", rules, 1)
        .faithful(), "100 of 10,000 events beyond the horizon are 1 %, at the limit");
    FidelityVerdict behind = FidelityVerdict.of(order(Causality.Order.CONSERVATIVE, 0, 0, 101), 20 * MS, "median frame", rules,
        1);
    assertFalse(behind.faithful(), "101 of 10,000 are over 1 %");
    assertEquals("lag", behind.rule());
    assertTrue(behind.reason().startsWith("lag: 101 of 10000 events (1.01 %) were handled more than 100 ms"),
        behind.reason());
  }

  @Test
  void fps_isOverEachVmsOwnRunTime_andSwitchesAreListed() {
    // b starts at 2 s and stops 4 s later: its 100 frames are over 4 s
    List<Settings.Vm> vms = List.of(vm(0, "a", 0, Long.MAX_VALUE), vm(1, "b", 2 * S, 4 * S));
    Summary s = summary(20 * MS, 100, vms, List.of(
        new AlgorithmSwitch(7 * S, Algorithm.PROPORTIONAL_SHARE, Algorithm.SLA_AWARE)));
    assertEquals(10.0, s.doc().vms().get("a").frames().fps());
    assertEquals(25.0, s.doc().vms().get("b").frames().fps());
    assertEquals(List.of(new SummaryDoc.PolicySwitch(7.0, "proportional-share", "sla-aware")),
        s.doc().policySwitches());
    assertTrue(s.table().contains("policy switches: 7.0s proportional-share->sla-aware"), s.table());
  }

  @Test
  void lambdaRunTime_isFromTheInverseRunTimes_onceEveryProgramEnded() {
    // vmcg.txt Table 2 computes lambda from run times: 1 s and 2 s give shares 2/3 and 1/3, lambda 1/3
    List<Settings.Vm> vms = List.of(vm(0, "a", 0, Long.MAX_VALUE), vm(1, "b", 0, Long.MAX_VALUE));
    SummaryDoc.Fairness ended = summary(20 * MS, 100, vms, List.of(), S, 2 * S).doc().fairness();
    assertEquals(0.3333, ended.lambdaRunTime());
    SummaryDoc.Fairness running = summary(20 * MS, 100, vms, List.of(), S, -1).doc().fairness();
    assertNull(running.lambdaRunTime(), "b still runs");
    assertEquals(0.0, running.lambda(), "both VMs' frame rates are equal");
  }
}
