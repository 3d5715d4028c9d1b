package org.gpuemu.emulator.gpu;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.gpuemu.emulator.faults.Crashed;
import org.gpuemu.emulator.faults.FaultInjector;
import org.gpuemu.policies.gpu.GpuWork;
import org.slf4j.Logger;

/**
 * How a GPU scheduler comes back from {@code gpu-scheduler-crash}, kept beside the {@link GpuScheduler}.
 *
 * <p>Effect: the actor fails and supervision restarts it with a fresh policy from the scenario's configuration, and
 * fresh parts (VGRIS's controller, VMCG's meter, FairGV's router): everything the policy had learnt (fair-queuing tags
 * and virtual time, credits, budgets and shares, the hybrid's algorithm) is lost, as a scheduler process that dies
 * loses its memory. Recovery: what the scheduler needs to serve again is rebuilt, not kept. From its parent (the host's
 * registry of what joined it, {@link Registry}, outside the actor): the vGPUs and their parameters, the guest agents
 * (each gets its Present mode again), FairGV's vCPUs, VMCG's memory shares. By asking its peers: each vGPU is asked
 * ({@code Scheduling.Resync}) for what it had handed to the driver and what runs on the GPU; the queued requests are
 * queued with the new policy in the order they were handed, the running ones count as in flight until they complete
 * (their completions, dispatched by the dead incarnation, are not the new policy's to account). Nothing fails; no
 * request is lost (a request the dead incarnation had queued is queued again) or runs twice (a request both queued
 * again and still on its way is taken once, {@link #duplicate}; a dead incarnation's dispatch reaching a vGPU after the
 * resync is dropped there).
 */
final class SchedulerRecovery {
  private static final long SECOND = 1_000_000_000L;

  /** What outlives the scheduler's crash: what joined it, its incarnation, its counters. */
  static final class Registry {
    final Map<Integer, Scheduling.Join> joins = new TreeMap<>();
    final Map<Integer, Scheduling.AgentJoin> agents = new TreeMap<>();
    final Map<Integer, CoscheduleRouter.VcpuJoin> vcpus = new TreeMap<>();
    final Map<Integer, VmcgMeter.MemoryShare> memoryShares = new LinkedHashMap<>();
    /** The incarnation: 0 until the first crash. */
    long epoch;
    boolean begun;
    long dispatched;
    long crashedAt;
  }

  final Registry held;
  /** vGPUs whose answer to the resync has not come yet. */
  private final Set<Integer> awaiting = new HashSet<>();
  /** Requests queued with this incarnation while a resync was pending: not queued a second time. */
  private final Set<Long> queued = new HashSet<>();
  /** Requests a vGPU reported running: in flight until they complete. */
  private final Set<Long> running = new HashSet<>();

  SchedulerRecovery(Registry registry) {
    this.held = registry;
  }

  boolean restarted() {
    return held.epoch > 0;
  }

  /**
   * A new incarnation: what joined the dead one joins again ({@code join}, {@code parts}), every vGPU is asked what it
   * has handed on (the answers are awaited), and a per-second part's timer ({@code armSecond}, null: none) is armed
   * at the next whole second. Returns the model time the incarnation starts at (the crash's).
   */
  long rebuild(Consumer<Scheduling.Join> join, CoreParts parts, LongConsumer armSecond) {
    List.copyOf(held.joins.values()).forEach(join);
    parts.replay();
    awaiting.addAll(held.joins.keySet());
    for (Scheduling.Join j : held.joins.values()) j.vgpu().tell(new Scheduling.Resync(held.epoch));
    if (held.begun && armSecond != null) armSecond.accept((held.crashedAt / SECOND + 1) * SECOND);
    return held.crashedAt;
  }

  /** Whether {@code work} was already queued with this incarnation; notes it while answers are awaited. */
  boolean duplicate(GpuWork work) {
    if (awaiting.isEmpty()) return false;
    return !queued.add(work.id());
  }

  /** A vGPU's answer: the requests to queue with the new policy (those not queued already), in order. */
  List<Scheduling.Queued> resynced(Scheduling.Resynced msg) {
    awaiting.remove(msg.vgpu());
    List<Scheduling.Queued> requeue = new ArrayList<>();
    for (Scheduling.Queued q : msg.queued()) if (queued.add(q.work().id())) requeue.add(q);
    for (GpuWork w : msg.running()) running.add(w.id());
    if (awaiting.isEmpty()) queued.clear();
    return requeue;
  }

  /**
   * A completion of a request a dead incarnation dispatched: whether it was counted in flight here (reported running
   * at the resync); either way the new policy never saw it.
   */
  boolean orphanCompleted(GpuWork work) {
    return running.remove(work.id());
  }

  /** The crash at {@code at}: the next incarnation is a new epoch; restarted at once. */
  <T> T crash(long at, Scheduling.Crash msg, Logger log) {
    held.epoch++;
    held.crashedAt = at;
    msg.outcomes().tell(new FaultInjector.Healed(msg.fault(), at));
    log.warn("GPU scheduler crashes at {} s (fault {}); supervision restarts it with a fresh policy", at / 1e9,
        msg.fault());
    throw new Crashed("GPU scheduler", msg.fault());
  }
}
