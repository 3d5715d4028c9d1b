package org.gpuemu.emulator.vm;

import java.util.List;
import org.gpuemu.workloads.BenchmarkRun;

/**
 * A vCPU's final figures; requests here are the memory calls it made itself. {@code memoryRefused} counts the
 * refusals a memory-aware guest handled (they are among the completed, not the failed: see
 * {@link MemoryCalls}); {@code objectReturns} is what its guest driver reports (gballoon.txt §3.1);
 * {@code programNanos} how long its program ran from its first step to its end (-1: it had not ended);
 * {@code benchmarks} the named benchmarks it ran (gballoon.txt §4), from a {@code BenchmarkAware} program;
 * {@code channelFailed} the GPU calls its channel failed before the vGPU took them ({@link GuestChannel}: timed out,
 * or dropped by a reboot), which the vGPU's report does not count.
 */
public record VcpuReport(int vm, int vcpu, long ranNanos, long stealNanos, long memorySubmitted,
    long memoryCompleted, long memoryFailed, List<String> failures, long maxStallNanos, long steps,
    long memoryRefused, long objectReturns, long programNanos, List<BenchmarkRun> benchmarks,
    long channelFailed) {}
