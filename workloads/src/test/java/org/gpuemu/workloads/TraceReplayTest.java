package org.gpuemu.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** A GPU trace becomes guest steps: queued ops back to back, gaps as a sync then CPU or sleep, streams in order. */
class TraceReplayTest {
  private static final TraceReplay.Options SAME_GPU =
      new TraceReplay.Options(82, 82, 0, 0, KernelType.CD, null);

  private static NsysGpuTrace.Op kernel(long start, long duration, long stream, String name) {
    return new NsysGpuTrace.Op(1, start, duration, 8, stream, name, NsysGpuTrace.Kind.KERNEL);
  }

  private static NsysGpuTrace.Op copy(long start, long duration, NsysGpuTrace.Kind kind) {
    return new NsysGpuTrace.Op(1, start, duration, 1, 7, "copy", kind);
  }

  private static String shape(List<Step> steps) {
    StringBuilder b = new StringBuilder();
    for (Step s : steps) {
      if (b.length() > 0) b.append(' ');
      if (s instanceof Step.LaunchKernel l) b.append("L:").append(l.kernel().name());
      else if (s instanceof Step.SyncCall c) b.append("S:").append(c.kernel().name());
      else if (s instanceof Step.CpuBurst c) b.append("cpu").append(c.nanos());
      else if (s instanceof Step.Sleep z) b.append("sleep").append(z.nanos());
    }
    return b.toString();
  }

  @Test
  void backToBackOps_areQueuedLaunches_andThePassEndsWaitingForItsLast() {
    List<Step> steps = TraceReplay.steps("t", List.of(kernel(1_000, 100, 7, "a"), kernel(1_100, 50, 7, "b"),
        kernel(1_150, 20, 7, "c")), SAME_GPU);
    assertEquals("L:a L:b S:c", shape(steps));
  }

  @Test
  void gap_makesTheOpBeforeItSynchronous_thenCpuTimeOfTheGap() {
    List<Step> steps = TraceReplay.steps("t", List.of(kernel(0, 100, 7, "a"), kernel(100, 100, 7, "b"),
        kernel(700, 100, 7, "c")), SAME_GPU);
    // the GPU idled from 200 to 700: the host waited for b, then worked 500 ns
    assertEquals("L:a S:b cpu500 S:c", shape(steps));
  }

  @Test
  void gapsFromSleepAbove_areSleeps_andGapsBelowMinGap_areBackToBack() {
    TraceReplay.Options o = new TraceReplay.Options(82, 82, 1_000, 10, KernelType.CD, null);
    List<Step> steps = TraceReplay.steps("t", List.of(kernel(0, 100, 7, "a"), kernel(105, 100, 7, "b"),
        kernel(705, 100, 7, "c"), kernel(2_805, 100, 7, "d")), o);
    // 5 ns < min-gap: queued; 500 ns < 1,000: CPU; 2,000 ns >= 1,000: sleep
    assertEquals("L:a S:b cpu500 S:c sleep2000 S:d", shape(steps));
  }

  @Test
  void streamOrderIsKept_andAnOverlapAcrossStreamsIsNoGap() {
    // stream 14's op starts while stream 7's runs; then stream 7 goes on after both
    List<Step> steps = TraceReplay.steps("t", List.of(kernel(0, 100, 7, "a7"), kernel(50, 100, 14, "b14"),
        kernel(150, 10, 7, "c7"), kernel(200, 10, 14, "d14")), SAME_GPU);
    // the frontier after b14 is 150: no gap before c7; 160 -> 200 is a gap of 40
    assertEquals("L:a7 L:b14 S:c7 cpu40 S:d14", shape(steps));
  }

  @Test
  void deviceToHostCopies_areSynchronous_othersAsynchronous_andCopiesAreNotScaledBySms() {
    TraceReplay.Options halfTheSms = new TraceReplay.Options(41, 82, 0, 0, KernelType.CD, null);
    List<Step> steps = TraceReplay.steps("t", List.of(copy(0, 100, NsysGpuTrace.Kind.COPY_HOST_TO_DEVICE),
        kernel(100, 400, 7, "k"), copy(500, 80, NsysGpuTrace.Kind.COPY_DEVICE_TO_HOST),
        copy(580, 10, NsysGpuTrace.Kind.MEMSET)), halfTheSms);
    assertInstanceOf(Step.LaunchKernel.class, steps.get(0));
    assertEquals(100, ((Step.LaunchKernel) steps.get(0)).kernel().soloNanos(), "a copy keeps its duration");
    // recorded on 41 SMs, emulated on 82: time x SMs constant, 400 x 41 / 82 = 200
    assertEquals(200, ((Step.LaunchKernel) steps.get(1)).kernel().soloNanos());
    assertEquals(8, ((Step.LaunchKernel) steps.get(1)).kernel().threadBlocks());
    assertInstanceOf(Step.SyncCall.class, steps.get(2));
    assertInstanceOf(Step.SyncCall.class, steps.get(3), "the pass's last op");
  }

  @Test
  void kernelsMatchingTheTensorPattern_areTc_othersTheType() {
    TraceReplay.Options o = new TraceReplay.Options(82, 82, 0, 0, KernelType.CD, Pattern.compile("gemm|hmma"));
    List<Step> steps = TraceReplay.steps("t", List.of(kernel(0, 10, 7, "sgemm_128"), kernel(10, 10, 7, "relu")), o);
    assertEquals(KernelType.TC, ((Step.LaunchKernel) steps.get(0)).kernel().type());
    assertEquals(KernelType.CD, ((Step.SyncCall) steps.get(1)).kernel().type());
  }

  @Test
  void aloneTheReplayKeepsTheTracesLength_soItsSoloRateIsTheTraces() {
    // 3 ops in [0, 800): 300 ns of GPU, 500 ns of CPU, nothing overlapping: 3 requests per 800 ns
    StepLoop loop = TraceReplay.workload("t", "t", List.of(kernel(0, 100, 7, "a"), kernel(100, 100, 7, "b"),
        kernel(700, 100, 7, "c")), SAME_GPU);
    assertEquals(3 / 800e-9, loop.soloRequestsPerSecond().getAsDouble(), 1e-3);
  }
}
