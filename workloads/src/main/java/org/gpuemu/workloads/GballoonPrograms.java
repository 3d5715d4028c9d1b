package org.gpuemu.workloads;

import static org.gpuemu.workloads.GballoonWorkloads.ASK_INTERVAL;
import static org.gpuemu.workloads.GballoonWorkloads.EVICTION_BYTES;
import static org.gpuemu.workloads.GballoonWorkloads.OBJECT_BYTES;
import static org.gpuemu.workloads.GballoonWorkloads.PAGE_NANOS;
import static org.gpuemu.workloads.GballoonWorkloads.READBACK;
import static org.gpuemu.workloads.GballoonWorkloads.REPLAYS;
import static org.gpuemu.workloads.GballoonWorkloads.THROTTLE;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.gpuemu.workloads.GballoonWorkloads.Bench2d;
import org.gpuemu.workloads.GballoonWorkloads.Bench3d;
import org.gpuemu.workloads.GballoonWorkloads.Stage;

/**
 * What a gBalloon workload ({@link GballoonWorkloads}) runs: the guest driver's view of its memory
 * ({@link GuestMemory}) and the programs of a 3D benchmark ({@link Frames}), a 2D trace replay ({@link Operations}) and
 * a VM's sequence of benchmarks ({@link Chain}), each taking a memory step when one is due before its next frame or
 * operation.
 */
final class GballoonPrograms {
  private GballoonPrograms() {}

  /**
   * What a benchmark's guest driver knows of its memory: what its VM holds, when it may ask again, the objects it
   * returned.
   */
  static final class GuestMemory {
    private long held;
    private long nextAsk = Long.MIN_VALUE;
    private long returns;

    /** The memory step to take before the next frame or operation: free what is not needed, or ask for more. */
    Optional<Step> adjust(long now, long demand) {
      if (held > demand) {
        long extra = held - demand;
        held = demand;
        return Optional.of(new Step.Free(extra));
      }
      if (held < demand && now >= nextAsk) {
        nextAsk = now + ASK_INTERVAL;
        return Optional.of(new Step.Malloc(demand - held));
      }
      return Optional.empty();
    }

    /**
     * One frame or operation of {@code batches} batches with this demand: what returning objects costs it
     * ({@link ObjectReturns}); the objects are counted.
     */
    ObjectReturns.Cost frame(long demand, int batches) {
      ObjectReturns.Cost cost = ObjectReturns.of(demand, held, OBJECT_BYTES, EVICTION_BYTES, PAGE_NANOS, batches);
      returns += cost.objects();
      return cost;
    }

    /** An eviction round's wait for the GPU before a batch. */
    static Step evictionWait(String name) {
      return new Step.SyncCall(KernelSpec.cd(name + "/evict", READBACK));
    }

    /** Frees everything held, once the benchmark is done. */
    Optional<Step> release() {
      if (held == 0) return Optional.empty();
      long all = held;
      held = 0;
      return Optional.of(new Step.Free(all));
    }

    void held(long bytes) {
      held = bytes;
    }

    long returns() {
      return returns;
    }
  }

  /**
   * What the 3D and 2D programs share: the guest's memory (asks and returns), the steps planned ahead, and handing
   * the memory back once when the work is done.
   */
  private abstract static class MemoryProgram implements Program, MemoryAware, BenchmarkAware {
    final GuestMemory memory = new GuestMemory();
    final ArrayDeque<Step> pending = new ArrayDeque<>();
    private boolean released;
    private long startedAt = -1;
    private long endedAt = -1;
    /** Frames or operations issued. */
    long count;

    /** The model time of the program's first step (at most once). */
    void started(long now) {
      if (startedAt < 0) startedAt = now;
    }

    /** The program's last step: give the memory back, once; then the end (its work ended at {@code now}). */
    Step finish(long now) {
      if (endedAt < 0) endedAt = now;
      if (released) return null;
      released = true;
      return memory.release().orElse(null);
    }

    abstract String benchmark();

    abstract boolean byFrames();

    @Override public List<BenchmarkRun> benchmarks() {
      if (startedAt < 0) return List.of();
      return List.of(new BenchmarkRun(benchmark(), byFrames(), startedAt, endedAt, count));
    }

    @Override public void held(long bytes) {
      memory.held(bytes);
    }

    @Override public long returns() {
      return memory.returns();
    }
  }

  /** A 3D benchmark running: a memory step when one is due, else the next frame. */
  static final class Frames extends MemoryProgram {
    private final Bench3d bench;
    private long startedAt = -1;

    Frames(Bench3d bench) {
      this.bench = bench;
    }

    @Override String benchmark() {
      return bench.name();
    }

    @Override boolean byFrames() {
      return true;
    }

    @Override public Step next(long now) {
      if (startedAt < 0) startedAt = now;
      started(now);
      if (!pending.isEmpty()) return pending.poll();
      Optional<Stage> stage = bench.stageAt(now - startedAt);
      if (stage.isEmpty()) return finish(now);
      Optional<Step> memoryStep = memory.adjust(now, stage.get().demandBytes());
      if (memoryStep.isPresent()) return memoryStep.get();
      Stage s = stage.get();
      String name = bench.name() + "/" + s.name();
      int batches = WorkloadCatalog.batchesOf(s.frame());
      ObjectReturns.Cost cost = memory.frame(s.demandBytes(), batches);
      if (cost.waits() == 0) {
        GameWorkload.addFrame(pending, name, s.frame(), batches);
      } else {
        addFrameEvicting(pending, name, s.frame(), batches, cost.waits(), cost.rebindNanos());
      }
      count++;
      return pending.poll();
    }

  }

  /**
   * A frame as {@link GameWorkload#addFrame} builds it (per batch its CPU work, then its launch; the last batch goes
   * with Present), with an eviction round's wait before the batches {@link ObjectReturns#waitsBefore} names.
   */
  static void addFrameEvicting(ArrayDeque<Step> out, String name, Scene s, int batches, int waits,
      long rebindNanos) {
    long cpuEach = Math.max(1, s.cpuNanos() / batches);
    long gpuEach = Math.max(1, s.gpuNanos() / batches);
    long rebindEach = rebindNanos / waits;
    KernelSpec batch = KernelSpec.cd(name, gpuEach);
    for (int i = 0; i < batches; i++) {
      if (ObjectReturns.waitsBefore(i, batches, waits)) {
        out.add(GuestMemory.evictionWait(name));
        // the round's returned objects are bound again, their GTT entries written (and mirrored by the mediator)
        if (rebindEach > 0) out.add(new Step.CpuBurst(rebindEach));
      }
      out.add(new Step.CpuBurst(cpuEach));
      if (i < batches - 1) out.add(new Step.LaunchKernel(batch));
    }
    out.add(new Step.Present(batch));
  }

  /** A 2D trace replay running: a memory step when one is due, else the next operation. */
  static final class Operations extends MemoryProgram {
    private final Bench2d bench;
    private long done;
    /** When the last wait for the GPU returned (the throttle's 20 ms count from there). */
    private long lastWait = -1;
    private boolean waitPending;

    Operations(Bench2d bench) {
      this.bench = bench;
    }

    @Override String benchmark() {
      return bench.name();
    }

    @Override boolean byFrames() {
      return false;
    }

    @Override public Step next(long now) {
      started(now);
      if (lastWait < 0) lastWait = now;
      if (!pending.isEmpty()) return pending.poll();
      if (waitPending) {
        lastWait = now;
        waitPending = false;
      }
      if (done == bench.ops()) return finish(now);
      Optional<Step> memoryStep = memory.adjust(now, bench.demandBytes());
      if (memoryStep.isPresent()) return memoryStep.get();
      ObjectReturns.Cost cost = memory.frame(bench.demandBytes(), 1);
      if (cost.waits() > 0) pending.add(GuestMemory.evictionWait(bench.name()));
      if (cost.rebindNanos() > 0) pending.add(new Step.CpuBurst(cost.rebindNanos()));
      pending.add(new Step.CpuBurst(bench.cpuNanos()));
      done++;
      count = done;
      boolean replayEnds = done * REPLAYS / bench.ops() != (done - 1) * REPLAYS / bench.ops();
      if (!replayEnds && now - lastWait >= THROTTLE) {
        // the throttle, before this operation's submission: wait for what was submitted before it
        pending.add(new Step.SyncCall(KernelSpec.cd(bench.name() + "/throttle", READBACK)));
        waitPending = true;
      }
      pending.add(new Step.LaunchKernel(KernelSpec.cd(bench.name() + "/draw", bench.gpuNanos())));
      if (replayEnds) {
        // the end of a replay: the read-back waits for everything submitted
        pending.add(new Step.SyncCall(KernelSpec.cd(bench.name() + "/readback", READBACK)));
        waitPending = true;
      }
      return pending.poll();
    }

  }

  /**
   * A {@link GballoonWorkloads.Sequence} running: each part's program until it ends, then the next; memory answers go
   * to the one running.
   */
  static final class Chain implements Program, MemoryAware, BenchmarkAware {
    private final List<Workload> parts;
    private final long seed;
    private int index;
    private Program current;
    private long finishedReturns;
    private final List<BenchmarkRun> finished = new ArrayList<>();

    Chain(List<Workload> parts, long seed) {
      this.parts = parts;
      this.seed = seed;
    }

    @Override public Step next(long now) {
      while (index < parts.size()) {
        if (current == null) current = parts.get(index).start(seed);
        Step step = current.next(now);
        if (step != null) return step;
        finishedReturns += returnsOf(current);
        if (current instanceof BenchmarkAware b) finished.addAll(b.benchmarks());
        current = null;
        index++;
      }
      return null;
    }

    @Override public void held(long bytes) {
      if (current instanceof MemoryAware aware) aware.held(bytes);
    }

    @Override public long returns() {
      return finishedReturns + returnsOf(current);
    }

    @Override public List<BenchmarkRun> benchmarks() {
      List<BenchmarkRun> all = new ArrayList<>(finished);
      if (current instanceof BenchmarkAware b) all.addAll(b.benchmarks());
      return List.copyOf(all);
    }

    private static long returnsOf(Program program) {
      return program instanceof MemoryAware aware ? aware.returns() : 0;
    }
  }
}
