package org.gpuemu.emulator.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.TestInbox;
import org.gpuemu.emulator.faults.RequestHistory;
import org.gpuemu.emulator.gpu.Scheduling;
import org.gpuemu.emulator.gpu.SmGroup;
import org.gpuemu.policies.gpu.VgpuParams;
import org.gpuemu.workloads.KernelSpec;
import org.gpuemu.workloads.WorkloadCatalog;
import org.junit.jupiter.api.Test;

/**
 * vgris.txt Figure 6's three Present costs replayed against the pure model of a Present: the vGPU's ring
 * ({@link VgpuModel}: the runtime's queue, the driver's buffer of 2 requests, at most 2 unfinished frames) and the
 * call's own CPU time ({@link WorkloadCatalog#D3D9_PRESENT_CPU}). One guest records a frame's batches after its CPU
 * work, pays the Present's own CPU time, and hands the Present to the vGPU; a first-come first-served GPU runs the
 * batches in order, after {@code others} of other guests' work before each one under contention (the default
 * dispatch's batch round robin). A Present's cost is its own CPU time plus the wait until the vGPU answers.
 *
 * <p>What the model guarantees, asserted exactly: after a Flush that waited for the frame's batches, Present costs its
 * own CPU time, 0.48 ms, Figure 6's with-Flush number (fitted on it: that row is {@code calibrated}); a guest whose
 * CPU work covers its GPU work pays the same alone; a GPU-bound guest pays, in the steady state, the GPU time of its
 * frame that its CPU work does not cover, and under contention the others' work in between as well. Figure 6's
 * 2.37 ms alone and 11.70 ms under contention are the means over the paper's unnamed games; the full reproduction
 * (rows {@code vgris/alone} and {@code vgris/sla-aware}, Figure 6) measures 5.7 and 21.4 ms for the trio of Figure
 * 2, and the reason is this test's third case: 3DMark05 GT2 alone is GPU-bound (16.7 ms of GPU a frame at 60 FPS,
 * scenes 0.8-1.3 times as heavy, 3 ms of CPU), so its Present waits 15.9-16.5 ms each frame where the paper's mean
 * of 2.37 ms leaves room for about 1.9 ms (docs/papers/vgris.md).
 */
class PresentCostTest {
  private static final long MS = 1_000_000;
  private static final long PRESENT = WorkloadCatalog.D3D9_PRESENT_CPU;

  private final RequestHistory history = new RequestHistory(List.of("vm"));
  private final List<Scheduling.Command> toScheduler = new ArrayList<>();
  private final TestInbox<VCpu.Command> guest = TestInbox.create();
  // the testbed's Direct3D: 2 frames ahead, the driver's buffer 2 requests (vgris scenario defaults)
  private final VgpuModel vgpu = new VgpuModel(new VGpu.Settings(new VgpuParams(0, "vm", 1), 2, 2, Long.MAX_VALUE,
      Slicer.NONE, true), new VgpuLedger(Long.MAX_VALUE, history, 0), toScheduler::add);
  /** Requests the GPU has run, in the order they were handed to the driver. */
  private int ran;
  private long gpuFree;
  /** Other guests' GPU work run before each of this guest's requests (contention). */
  private long others;
  /** The model time of the latest event (a completion, or the guest's own step). */
  private long now;

  @Test
  void withFlush_presentCostsItsOwnCpuTime_figure6s048ms() {
    List<Long> costs = play(20, 3 * MS, 8, 2 * MS, true);
    for (long c : costs) assertEquals(PRESENT, c, "the Flush waited for the frame's batches; nothing is left");
    assertEquals(0.48, PRESENT / 1e6, 1e-9);
  }

  @Test
  void alone_aGuestWhoseCpuWorkCoversItsGpuWork_paysOnlyThePresentsOwnCpuTime() {
    List<Long> costs = play(20, 8 * MS, 2, 2 * MS, false);
    for (long c : costs) assertEquals(PRESENT, c);
  }

  @Test
  void alone_aGpuBoundGuest_paysTheGpuTimeItsCpuWorkDoesNotCover() {
    // 16 ms of GPU in 8 batches and 3 ms of CPU (its Present's included) per frame: GT2's shape
    List<Long> costs = play(20, 3 * MS, 8, 2 * MS, false);
    // the first frame's Present returns once 6 of its 8 batches have run (the last two then fit the driver's
    // buffer): 12 ms after they were recorded, the Present's own CPU time running in the first of them
    assertEquals(12 * MS, costs.get(0));
    for (long c : costs.subList(1, costs.size())) {
      assertEquals(PRESENT + 16 * MS - 3 * MS, c, "steady state: one frame of GPU time less the frame's CPU work");
    }
  }

  @Test
  void underContention_theWaitGrowsByTheOthersWork_andAFlushStillLeavesOnlyTheCpuTime() {
    others = 4 * MS; // two other guests' 2 ms batches before each of this guest's
    List<Long> contended = play(20, 3 * MS, 8, 2 * MS, false);
    long steady = PRESENT + 8 * (2 * MS + others) - 3 * MS;
    for (long c : contended.subList(1, contended.size())) assertEquals(steady, c);
    assertTrue(steady > PRESENT + 16 * MS - 3 * MS, "contention raises the cost (Figure 6: 2.37 -> 11.70 ms)");
  }

  @Test
  void underContention_withFlush_presentCostsItsOwnCpuTime() {
    others = 4 * MS;
    for (long c : play(20, 3 * MS, 8, 2 * MS, true)) assertEquals(PRESENT, c);
  }

  /**
   * Plays {@code frames} frames: the guest's CPU work ({@code cpu}, the Present's own time included), its
   * {@code batches} requests of {@code batchGpu} each, an optional waiting Flush, the Present. Returns each Present's
   * cost: its own CPU time and its wait.
   */
  private List<Long> play(int frames, long cpu, int batches, long batchGpu, boolean flush) {
    List<Long> costs = new ArrayList<>();
    long t = 0;
    for (int f = 0; f < frames; f++) {
      long recorded = t + cpu - PRESENT;
      runGpuUntil(recorded);
      for (int b = 0; b < batches; b++) vgpu.call(KernelSpec.cd("f" + f + "b" + b, batchGpu), 0, null, recorded, -1);
      long presentStart = recorded;
      if (flush) {
        vgpu.flush(VGpu.AnswerTo.of(guest.getRef()), -1, recorded);
        presentStart = waitFor(VCpu.FlushReturned.class, recorded);
      }
      long handedOn = presentStart + PRESENT; // the call's own CPU work, then the vGPU
      runGpuUntil(handedOn);
      now = Math.max(now, handedOn);
      vgpu.present(VGpu.AnswerTo.of(guest.getRef()), handedOn, -1);
      long answered = waitFor(VCpu.PresentReturned.class, handedOn);
      costs.add(PRESENT + answered - handedOn);
      t = answered;
    }
    return costs;
  }

  /** Runs the GPU until the guest's answer of type {@code type} comes; the model time it came at. */
  private long waitFor(Class<? extends VCpu.Command> type, long from) {
    now = Math.max(now, from);
    while (true) {
      while (guest.hasMessages()) {
        VCpu.Command m = guest.receiveMessage();
        if (m instanceof VCpu.PresentReturned p && type == VCpu.PresentReturned.class) return p.atNanos();
        if (type.isInstance(m)) return now;
      }
      assertTrue(runNext(), "the guest waits for an answer but the GPU has nothing to run");
    }
  }

  /** Completes every request the GPU finishes by {@code until}. */
  private void runGpuUntil(long until) {
    while (ran < queued().size() && finishOf(queued().get(ran)) <= until) runNext();
  }

  private boolean runNext() {
    List<Scheduling.Queued> q = queued();
    if (ran >= q.size()) return false;
    Scheduling.Queued r = q.get(ran++);
    long end = finishOf(r);
    vgpu.finished(new SmGroup.Finished(r.work().id(), 0, r.work().soloNanos(), end - r.work().soloNanos(), end));
    gpuFree = end;
    now = Math.max(now, end);
    vgpu.roomAt(end);
    return true;
  }

  private long finishOf(Scheduling.Queued r) {
    return Math.max(gpuFree, r.atNanos()) + others + r.work().soloNanos();
  }

  private List<Scheduling.Queued> queued() {
    return toScheduler.stream().filter(Scheduling.Queued.class::isInstance).map(Scheduling.Queued.class::cast)
        .toList();
  }
}
