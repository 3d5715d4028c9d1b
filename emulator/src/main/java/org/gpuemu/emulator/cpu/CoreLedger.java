package org.gpuemu.emulator.cpu;

import java.util.Map;
import java.util.TreeMap;
import org.gpuemu.emulator.faults.FaultInjector;
import org.slf4j.Logger;

/**
 * What a core keeps outside its {@link CpuScheduler} actor, so that it outlives a crash: its counters, the
 * coscheduling link the GPU scheduler set up, the vCPU stalls in progress, and the time of its latest crash.
 *
 * <p>{@code vcpu-stall} ({@link CpuScheduler.Stall}). Effect: the vCPU gets no core for the duration: taken off the
 * core or never picked, its request waits and the wait is steal time. Recovery: at the end it is runnable again as a
 * waking vCPU (it may preempt) and goes on where it was.
 *
 * <p>{@code cpu-scheduler-crash} ({@link CpuScheduler.Crash}). Effect: the actor fails and supervision restarts it
 * with a fresh CPU policy from the scenario's configuration (the policy's virtual runtimes, its history of who ran,
 * are lost: every vCPU starts even). Every request on the core is answered at the crash with the CPU time left of it
 * ({@code Done.remainingNanos}), so its vCPU, or its SM group for a GTT copy, asks the new incarnation again: nothing
 * is dropped, and the slice in progress ends at the crash. Recovery: from this ledger, the counters go on, the stalls
 * end when they were due, and Pegasus's coscheduling link stays. Nothing fails.
 *
 * <p>A crashed or rebooting vCPU's request is taken back the same way ({@link CpuScheduler.Withdraw}).
 */
final class CoreLedger {
  long busy;
  long switches;
  CpuScheduler.CoscheduleGpu coscheduleGpu;
  /** The stalls in progress, by fault: a stalled vCPU gets no core until the last of its stalls ends. */
  final Map<Integer, CpuScheduler.Stall> stalled = new TreeMap<>();
  /**
   * The core-offline fault in progress (null: online), the vCPUs whose requests went elsewhere meanwhile, and every
   * vCPU that ever asked this core ({@link CoreGate}).
   */
  CpuScheduler.Offline offline;
  final java.util.SortedSet<Integer> moved = new java.util.TreeSet<>();
  final java.util.SortedSet<Integer> seen = new java.util.TreeSet<>();
  /** When the latest crash struck (the new incarnation's clock starts there). */
  long crashedAt;

  /** Pegasus's coscheduling link is set (once; it outlives a crash); returns {@code same}. */
  <T> T coscheduled(CpuScheduler.CoscheduleGpu link, T same) {
    coscheduleGpu = link;
    return same;
  }

  /** The core is online again: nothing goes elsewhere any more. */
  void online() {
    offline = null;
    moved.clear();
  }

  /** The vCPUs with a stall in progress. */
  java.util.SortedSet<Integer> stalledVcpus() {
    java.util.SortedSet<Integer> vcpus = new java.util.TreeSet<>();
    for (CpuScheduler.Stall s : stalled.values()) vcpus.add(s.vcpu());
    return vcpus;
  }

  /** When stall {@code s} ends: its planned end, not shifted by the core's own clock. */
  long stallEnd(CpuScheduler.Stall s) {
    return s.atNanos() + s.nanos();
  }

  /** Records a crash of core {@code core} at {@code at}; restarted at once, so healed then. */
  void crashed(long at, CpuScheduler.Crash msg, Logger log, int core) {
    crashedAt = at;
    msg.outcomes().tell(new FaultInjector.Healed(msg.fault(), at));
    log.warn("core {}'s scheduler crashes at {} s (fault {}); supervision restarts it", core, at / 1e9, msg.fault());
  }
}
