package org.gpuemu.emulator.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Frame latencies per VM and over all VMs; a VM's histogram exists only once it has a frame. */
class FrameLatenciesTest {

  private static MetricsHub.VmMetrics of(FrameLatencies f, int vm) {
    return f.of(vm, 0, 0, 0, 0, 0, 0, null, null);
  }

  @Test
  void aVmWithoutFrames_reportsZerosAndNoDistribution() {
    FrameLatencies f = new FrameLatencies(2);
    MetricsHub.VmMetrics idle = of(f, 1);
    assertEquals(0, idle.latencyP50Us());
    assertEquals(0, idle.latencyP99Us());
    assertEquals(0, idle.latencyMaxUs());
    assertEquals(List.of(), idle.latencyCdfUs());
    assertEquals(0, f.medianNanos());
  }

  @Test
  void aVmsFrames_areItsOwn_andCountInTheMedianOverAll() {
    FrameLatencies f = new FrameLatencies(3);
    // VM 0: 10, 20, 30 ms; VM 2: one 40 ms frame; VM 1: none. In µs; 3 digits hold these values exactly.
    for (long ms : new long[] {10, 20, 30}) f.record(0, ms * 1_000_000);
    f.record(2, 40_000_000);
    MetricsHub.VmMetrics first = of(f, 0);
    assertEquals(20_000, first.latencyP50Us(), 20); // within the histogram's 3-digit bucket
    assertEquals(30_000, first.latencyMaxUs(), 30);
    assertEquals(101, first.latencyCdfUs().size()); // p0 (the minimum) .. p100
    assertEquals(10_000, first.latencyCdfUs().get(0), 10);
    assertEquals(List.of(), of(f, 1).latencyCdfUs());
    assertEquals(40_000, of(f, 2).latencyP99Us(), 40);
    // over all four frames the median is the second: 20 ms
    assertEquals(20_000_000, f.medianNanos(), 20_000);
  }

  @Test
  void aLatencyUnderOneMicrosecond_countsAsOne() {
    FrameLatencies f = new FrameLatencies(1);
    f.record(0, 400);
    assertEquals(1, of(f, 0).latencyMaxUs());
  }
}
