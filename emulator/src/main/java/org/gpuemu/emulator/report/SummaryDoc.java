package org.gpuemu.emulator.report;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.clock.TimerLateness;

/**
 * The {@code summary.json} document (docs/guides/output-files.md), typed: Jackson writes the components in their
 * order under their snake_case names. Unwrapped parts and the policies' own figures (open-ended maps, written under
 * each policy's name between the policy switches and {@code gpu}) keep the document flat where the contract is.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonPropertyOrder({"header", "vms", "policy_switches", "space_sharing", "policy_figures", "policyFigures", "gpu", "cpu",
    "hosts", "placement", "fairness", "fidelity", "invariants", "verdict", "faults", "controls", "benchmarks", "cluster"})
public record SummaryDoc(@JsonUnwrapped Header header, Map<String, Vm> vms, List<PolicySwitch> policySwitches,
    @JsonUnwrapped SpaceSharing spaceSharing, @JsonAnyGetter Map<String, Object> policyFigures, Gpu gpu, Cpu cpu,
    Map<String, HostEntry> hosts, @JsonInclude(JsonInclude.Include.NON_NULL) Placement placement,
    Fairness fairness, Fidelity fidelity, Invariants invariants, CheckerVerdict verdict,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<Fault> faults,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<Control> controls,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, Benchmark> benchmarks,
    @JsonInclude(JsonInclude.Include.NON_NULL) Object cluster) {

  /**
   * The checker's verdict on the run's request history: {@code valid}, {@code invalid} (a request lost,
   * duplicated, or failed without a fault to explain it) or {@code unknown} (outcomes indeterminate: the GPU did not
   * drain, or no history), with the reasons.
   */
  public record CheckerVerdict(String result, List<String> reasons) {}

  /** This document with a {@code cluster} block (a run of several nodes). */
  public SummaryDoc withCluster(Object block) {
    return new SummaryDoc(header, vms, policySwitches, spaceSharing, policyFigures, gpu, cpu, hosts, placement,
        fairness, fidelity, invariants, verdict, faults, controls, benchmarks, block);
  }

  /**
   * One host: its cores and their utilization, its VMs, and each of its GPUs.
   */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record HostEntry(int cores, double cpuUtilization, List<String> vms, List<GpuEntry> gpus) {}

  /**
   * One GPU of a host: its VMs, its utilization and busy time over the run and drain, context switches, and (when
   * the run has several GPUs) its GPU and memory policies' own figures, which a run of one GPU has at the top.
   */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record GpuEntry(List<String> vms, double utilization, double busyMs, long contextSwitches,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, Object> policyFigures,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) List<PolicySwitch> policySwitches) {}

  /** Placement in a scenario of many hosts: the policy and the VMs it found no room for. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Placement(String policy, List<Rejected> rejected) {}

  /** A VM that did not run: no GPU had room for it when it arrived. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Rejected(String vm, @JsonProperty("at_s") double atS, String reason) {}

  /**
   * A change made to the run from outside (docs/guides/report-and-dashboard.md), or a pause: {@code what} (fault,
   * weight, share, pause), on which VM, the fault's kind and heal, the new value, the model time it took effect ({@code
   * at_s}), whether it did ({@code applied}, with a {@code note} when not); a pause: its model time and wall length.
   */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Control(String what, String kind, String target, Number value,
      @JsonProperty("heal_after_s") Double healAfterS, @JsonProperty("at_s") double atS, Boolean applied, String note,
      @JsonProperty("paused_wall_s") Double pausedWallS) {}

  /**
   * A named benchmark over every VM that ran it (gballoon.txt §4; Table 2's VMs run three each): its instances,
   * how many ended within the run, and its performance, the mean over the instances of each one's frames per second
   * (3D) or operations per second (2D: the inverse of its run time), up to the end of the run for one still running.
   */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Benchmark(String unit, int instances, int ended, double performance) {}

  /**
   * One injected fault: what, on which VM, when it struck and healed, {@code recoveryS} the emulated time
   * from the heal until the VM completed a request again (null: it did not), {@code recoveryMs} from the heal until
   * every VM's throughput was back within 5 % of its steady state before the fault (the timeline's measure, to its
   * period; null: not within the run, or no steady state before the fault), and the requests it failed, by reason.
   * Times in emulated seconds; null when it did not happen within the run.
   */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Fault(String kind, String target, @JsonProperty("at_s") Double atS,
      @JsonProperty("healed_at_s") Double healedAtS, @JsonProperty("recovery_s") Double recoveryS,
      @JsonProperty("recovery_ms") Double recoveryMs, Map<String, Long> requestsFailed) {}

  /** The run: what ran, for how long, at which scale and seed. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Header(String scenario, String file, String policy, String cpuPolicy, String memoryPolicy,
      double timeScale, double emulatedSeconds, double wallSeconds, long seed) {}

  /** One VM's figures; {@code runTimeS} only once its finite program ended, {@code game} only for COMBO's game. */
  public record Vm(@JsonUnwrapped VmSetup setup, @JsonUnwrapped VmFrames frames, @JsonUnwrapped VmGpu gpu,
      @JsonUnwrapped VmCpu cpu, @JsonUnwrapped VmMemory memory,
      @JsonProperty("run_time_s") @JsonInclude(JsonInclude.Include.NON_NULL) Double runTimeS,
      @JsonUnwrapped GameFigures game) {}

  /** The VM as configured; {@code share} the policy's (or the configured) GPU share, null without one. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record VmSetup(String workload, int weight, double slaFps, Double share) {}

  /**
   * What the guest presented: frame rate over its own run time, latency between Present returns; {@code fpsMin} and
   * {@code fpsMax} the lowest and highest FPS of the timeline's whole periods, {@code fpsSwing} their difference over
   * the run's FPS (how much the frame rate fluctuates from period to period; left out when none passed or no frame);
   * {@code present} what its Presents cost (left out when its agent returned none).
   */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record VmFrames(double fps, Latency frameLatencyMs, long frames, long framesOverSla,
      double framesOverSlaPct, @JsonInclude(JsonInclude.Include.NON_NULL) Double fpsMin,
      @JsonInclude(JsonInclude.Include.NON_NULL) Double fpsMax,
      @JsonInclude(JsonInclude.Include.NON_NULL) Double fpsSwing,
      @JsonInclude(JsonInclude.Include.NON_NULL) Present present) {}

  /**
   * A VM's Presents as its guest agent saw them (VGRIS Figures 6 and 9): how many returned, what they cost from issue
   * to return (ms), the agent's prediction error on those it had a history for (predicted − actual, ms; negative: the
   * Present took longer than predicted) and the share of them with an error beyond 2 ms (§4.1's prediction failures).
   */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Present(long calls, PresentCost costMs, PresentError predictionErrorMs,
      double predictionFailuresPct) {}

  /** Present cost in ms: mean and longest. */
  public record PresentCost(double mean, double max) {}

  /** Prediction error in ms: mean and largest absolute value, most negative and most positive. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record PresentError(double meanAbs, double maxAbs, double min, double max) {}

  /**
   * Frame latency in ms; {@code cdf} the latency at 0, 1, ..., 100 % of the frames (101 values: the distribution,
   * VGRIS Figures 2 and 7), left out when there is none.
   */
  public record Latency(double p50, double p99, double max,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) List<Double> cdf) {
    public Latency(double p50, double p99, double max) {
      this(p50, p99, max, List.of());
    }
  }

  /** GPU time and throughput while the VM's program ran; {@code normalizedRunTime} only by solo throughput. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record VmGpu(double gpuBusyMs, double gpuShare, double gpuUsage, long kernelsCompleted,
      long requestsCompleted, long requestsFailed, double throughputPerS, double normalizedThroughput,
      Double normalizedRunTime, @JsonInclude(JsonInclude.Include.NON_NULL) Double gpuUsageRangePct) {}

  /** The VM's vCPUs: time run, stolen, and the longest stall. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record VmCpu(double cpuMs, double stealMs, double maxStallMs) {}

  /** Memory: the peak, gBalloon's slots when it keeps them, refusals and object returns when there were any. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record VmMemory(double memoryMaxMb, MemorySlots memorySlots,
      Long memoryRefusals, Long objectReturns) {}

  /** gBalloon's GTT slots: at the end and at most. */
  public record MemorySlots(@JsonProperty("final") int last, int max) {}

  /**
   * COMBO's game VM (combo.txt Figure 15): average and 99th-percentile FPS, headroom, QoS violations; the share of
   * the time no kernel ran on the GPU (Figure 2), the render group's mean share of the SMs under the exact scheme
   * (Table 4; null without exact frames), Eq. 4's error on frames rendered alone (§5.4) and the policy's host work
   * per frame (§6.7).
   */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record GameFigures(Object fpsAvg, @JsonProperty("fps_p99") Object fpsP99, Object framesRendered,
      Object headroomMs, Object qosViolations, Object gpuIdle, Object renderSmShare, Object renderError,
      Object onlineOverheadMs) {}

  /** A VGRIS algorithm switch. */
  public record PolicySwitch(@JsonProperty("t_s") double tS, String from, String to) {}

  /**
   * A space-sharing run's figures at the top (combo.txt Eq. 6's BE throughput, the QoS violations, each BE VM's
   * kernels completed per frame rendered: Table 6).
   */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record SpaceSharing(Object beThroughput, Object qosViolations, Object beKernelsPerFrame) {}

  /** The GPU over the run and its drain. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Gpu(double utilization, double busyMs, long contextSwitches, double contextSwitchMs,
      double medianKernelMs) {}

  /** The host's cores: how busy, and how many context switches they paid for (host.vcpu-switch). */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Cpu(int cores, double utilization, long contextSwitches) {}

  /**
   * FairGV's min/max ratio and overhead, VMCG's lambdas; null where the basis is missing. {@code lambdaByWorkload}:
   * λ among the VMs of each workload two or more VMs run (left out when none does).
   */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Fairness(double mmr, String normalizedBy, Double aggregatedOverhead, Double lambda,
      Double lambdaCrbs, Double lambdaRunTime,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, Double> lambdaByWorkload) {}

  /** The fidelity verdict and what it was judged on. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Fidelity(boolean faithful, String reason, String reference, Double referenceMs, Causality causality,
      Double realTimeFactor, Distribution timerLatenessUs, Distribution messageSkewUs, long timelineRowsDropped,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) List<List<Number>> progress) {}

  /**
   * A histogram in buckets that double: {@code counts[i]} values above {@code up_to_us[i - 1]} up to
   * {@code up_to_us[i]} (µs).
   */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Buckets(@JsonProperty("up_to_us") List<Long> upToUs, List<Long> counts) {
    /** Null when empty (left out). */
    static Buckets of(TimerLateness.Buckets b) {
      return b.counts().isEmpty() ? null : new Buckets(b.upToMicros(), b.counts());
    }
  }

  /** The causal order of the run's events (docs/concepts/time-and-order.md). */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Causality(String order, double horizonWallMs, long eventsOrdered, long eventsHeld,
      long violations, long tieInversions, long observerViolations, ViolationSizes violationUs,
      Double violationLimitUs, Lag lagUs, @JsonProperty("lag_wall_ms_p50") double lagWallMsP50,
      @JsonProperty("lag_wall_ms_p99") double lagWallMsP99, long eventsBeyondHorizon) {}

  /** Sizes of the causality violations in µs; the largest to 0.1 µs. */
  public record ViolationSizes(long p50, long p99, double max) {}

  /** Lag of the causal order in emulated µs; its histogram left out when not measured. */
  public record Lag(long p50, long p99, long max, @JsonInclude(JsonInclude.Include.NON_NULL) Buckets histogram) {
    public Lag(long p50, long p99, long max) {
      this(p50, p99, max, null);
    }
  }

  /** A latency distribution in µs; its histogram left out when not kept. */
  public record Distribution(long p50, long p99, long p999, long max, long count,
      @JsonInclude(JsonInclude.Include.NON_NULL) Buckets histogram) {
    static Distribution of(TimerLateness.Snapshot s) {
      return of(s, TimerLateness.Buckets.EMPTY);
    }

    static Distribution of(TimerLateness.Snapshot s, TimerLateness.Buckets buckets) {
      return new Distribution(s.p50(), s.p99(), s.p999(), s.max(), s.count(), Buckets.of(buckets));
    }
  }

  /** The invariants of docs/guides/output-files.md and what broke them. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Invariants(long requestsSubmitted, long requestsCompleted, long requestsFailed, long requestsLost,
      long requestsDuplicated, long requestsRetried, long requestsOpenAtEnd, boolean gpuTimeConserved, List<String> failureReasons,
      List<String> broken, boolean ok) {}
}
