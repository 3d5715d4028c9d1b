package org.gpuemu.emulator.vm;

import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.gpuemu.emulator.gpu.GpuMemory;
import org.gpuemu.policies.memory.MemoryDecision;
import org.gpuemu.workloads.BenchmarkRun;
import org.slf4j.Logger;

/**
 * A vCPU's GPU memory calls and how they were answered, for its report. A refusal is a failure, with its reason,
 * unless the guest is memory-aware: then its driver handles it by returning memory objects and runs on, slower
 * (gballoon.txt §3.1: the returns are what it reports, and what gBalloon expands on), and it counts as answered.
 */
final class MemoryCalls {
  private static final int MAX_REASONS = 10;

  private final int vm;
  private final String name;
  private final boolean memoryAware;
  private final Logger log;
  private final List<String> failures = new ArrayList<>();
  private long submitted;
  private long completed;
  private long failed;
  private long refused;
  private long seq;

  MemoryCalls(int vm, String name, boolean memoryAware, Logger log) {
    this.vm = vm;
    this.name = name;
    this.memoryAware = memoryAware;
    this.log = log;
  }

  /** The allocation of {@code bytes} to send; its answer goes to {@code replyTo}. */
  GpuMemory.Allocate allocate(long bytes, ActorRef<GpuMemory.Answer> replyTo) {
    submitted++;
    return new GpuMemory.Allocate(vm, seq++, bytes, replyTo);
  }

  /** The release of {@code bytes} to send: it completes at once. */
  GpuMemory.Free free(long bytes) {
    submitted++;
    completed++;
    return new GpuMemory.Free(vm, bytes);
  }

  void answered(MemoryDecision decision) {
    if (decision instanceof MemoryDecision.Rejected rejected && memoryAware) {
      completed++;
      refused++;
      log.debug("vm {} memory request refused: {}", name, rejected.reason());
    } else if (decision instanceof MemoryDecision.Rejected rejected) {
      failed++;
      if (failures.size() < MAX_REASONS) failures.add(rejected.reason());
      log.info("vm {} memory request failed: {}", name, rejected.reason());
    } else {
      completed++;
    }
  }

  /** The vCPU's report with these calls' figures. */
  VcpuReport report(int vcpu, long ran, long steal, long maxStall, long steps, long objectReturns,
      long programNanos, List<BenchmarkRun> benchmarks, long channelFailed) {
    return new VcpuReport(vm, vcpu, ran, steal, submitted, completed, failed, List.copyOf(failures), maxStall,
        steps, refused, objectReturns, programNanos, List.copyOf(benchmarks), channelFailed);
  }
}
