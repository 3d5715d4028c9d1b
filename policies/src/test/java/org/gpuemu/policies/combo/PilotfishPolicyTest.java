package org.gpuemu.policies.combo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.gpuemu.workloads.KernelType;
import org.gpuemu.workloads.RenderScene;
import org.junit.jupiter.api.Test;

/**
 * PilotFish's published rule (Zhang et al., ATC 2022; the authors' artifact, see {@link PilotfishPolicy}) replayed on
 * hand-computed frames at the artifact's 60 FPS target: a QoS period of 16,666,667 ns (the artifact writes 16.6 ms).
 * The paper's text could not be read here, so its own worked examples, if any, are not replayed.
 */
class PilotfishPolicyTest {
  private static final long MS = 1_000_000L;
  /** 1/60 s, rounded to the nanosecond. */
  private static final long QOS = 16_666_667L;
  private static final SpaceSetup SETUP =
      new SpaceSetup(82, 60, new RenderTimePredictor(1.0, 1e-6), ColocationTable.combo());

  private long ids;

  private static RenderScene scene() {
    return new RenderScene(1000, 1000, 3, 4 * MS);
  }

  private static PilotfishPolicy attached() {
    PilotfishPolicy p = PilotfishPolicy.create();
    p.attach(SETUP);
    return p;
  }

  private BeKernel be(SpacePolicy policy, int vgpu, KernelType type, long nanos) {
    BeKernel k = new BeKernel(ids++, vgpu, type, nanos);
    policy.beQueued(k, 0);
    return k;
  }

  private static BeKernel launched(SpaceDecision d) {
    SpaceDecision.Launch launch = assertInstanceOf(SpaceDecision.Launch.class, d);
    assertEquals(Placement.WHOLE_GPU, launch.placement(), "PilotFish shares no SM");
    return launch.kernel();
  }

  private static void idle(SpacePolicy policy, long now) {
    assertInstanceOf(SpaceDecision.Idle.class, policy.next(now), "idle at " + now);
  }

  @Test
  void budget_isTheQosPeriodLessTheFramesRenderTime_andAKernelMayEndExactlyAtIt() {
    // pf.h: settime(16.6 - render); a frame rendered in 10 ms leaves 6,666,667 ns; main_PF.h launches while the
    // prediction is not above the budget, with no guard
    PilotfishPolicy fits = attached();
    FramePlan plan = fits.frameReady(0, scene(), 0);
    assertEquals(new FramePlan(0, 0, 0, QOS, new SmLayout.Whole(82), Binding.ORIGINAL, Scheme.TEMPORAL, false, false,
        0), plan);
    BeKernel k = be(fits, 1, KernelType.TC, QOS - 10 * MS);
    fits.frameRendered(0, 10 * MS);
    assertEquals(k, launched(fits.next(10 * MS)));

    PilotfishPolicy tooLong = attached();
    tooLong.frameReady(0, scene(), 0);
    be(tooLong, 1, KernelType.TC, QOS - 10 * MS + 1);
    tooLong.frameRendered(0, 10 * MS);
    idle(tooLong, 10 * MS);
  }

  @Test
  void nothingLaunches_beforeTheFirstFrameHasRendered_norWhileAFrameRenders() {
    PilotfishPolicy p = attached();
    be(p, 1, KernelType.CD, 100_000);
    idle(p, 0); // no idle period known yet
    p.frameReady(0, scene(), 0);
    p.renderPhaseStarted(0, KernelType.CD, 0);
    idle(p, 4 * MS);
    p.renderPhaseStarted(0, KernelType.RT, 4 * MS);
    idle(p, 6 * MS);
    p.frameRendered(0, 7 * MS);
    launched(p.next(7 * MS));
  }

  @Test
  void kernelsUseTheBudgetUpOneAtATime_theOldestThatFitsFirst() {
    PilotfishPolicy p = attached();
    p.frameReady(0, scene(), 0);
    BeKernel dnn1 = be(p, 1, KernelType.TC, 3 * MS);
    BeKernel cd1 = be(p, 2, KernelType.CD, 1 * MS);
    BeKernel dnn2 = be(p, 1, KernelType.TC, 3 * MS);
    BeKernel cd2 = be(p, 2, KernelType.CD, 500_000);
    p.frameRendered(0, 10 * MS); // the idle period ends at 16,666,667 ns
    assertEquals(dnn1, launched(p.next(10 * MS)));
    idle(p, 10 * MS); // one kernel at a time: the two applications share one in-order stream
    p.beFinished(dnn1, 13 * MS);
    assertEquals(cd1, launched(p.next(13 * MS))); // older than dnn2
    p.beFinished(cd1, 14 * MS);
    // 2,666,667 ns left: dnn2's 3 ms does not fit, the younger cd2's 0.5 ms does
    assertEquals(cd2, launched(p.next(14 * MS)));
    p.beFinished(cd2, 14_500_000);
    idle(p, 14_500_000);
    p.frameReady(1, scene(), QOS);
    p.frameRendered(1, QOS + 8 * MS); // 8,666,667 ns of budget
    assertEquals(dnn2, launched(p.next(QOS + 8 * MS)));
    assertEquals(List.of(), p.checkInvariants());
  }

  @Test
  void outstandingKernels_comeOffTheNextBudgetWhole_andMoreThan1msOfThemIsAStraggler() {
    PilotfishPolicy p = attached();
    p.frameReady(0, scene(), 0);
    BeKernel slow = be(p, 1, KernelType.TC, 6 * MS);
    be(p, 2, KernelType.CD, 900_000);
    BeKernel next = be(p, 3, KernelType.CD, 800_000);
    p.frameRendered(0, 10 * MS);
    assertEquals(slow, launched(p.next(10 * MS)));
    p.frameReady(1, scene(), QOS);
    // the 6 ms kernel is still running when frame 1 has rendered (render 26 ms - 16,666,667 = 9,333,333 ns):
    // main_PF.h subtracts its whole prediction, so the idle period ends at 26 + 16.667 - 9.333 - 6 = 27,333,334 ns
    p.frameRendered(1, 26 * MS);
    assertEquals(1, p.stragglers(), "pf.h: more than 1 ms outstanding at a frame's end is preempted");
    p.beFinished(slow, 26_500_000);
    // the older 0.9 ms kernel would end at 27.4 ms, after 27,333,334 ns; the younger 0.8 ms one fits
    assertEquals(next, launched(p.next(26_500_000)));
    p.beFinished(next, 27_300_000);
    idle(p, 27_300_000); // 0.9 ms still does not fit
    assertEquals(List.of(), p.checkInvariants());
  }

  @Test
  void aKernelLongerThanEveryIdlePeriod_waitsForGood_unsplit_andHoldsItsApplicationsLaterKernels() {
    // main_PF.h hkcuLaunchKernel: while (launch_available(prediction)) Sleep(2), launch_available being budget <
    // prediction: no split, no bound on the wait, and the training thread that launches in order blocks in the hook.
    // Every frame here renders in 12 ms, leaving 4,666,667 ns; the training job's 5 ms kernel never fits, so neither
    // it nor its 0.1 ms successor ever runs, while the other application's 1 ms kernels run in every idle period.
    PilotfishPolicy p = attached();
    BeKernel tooLong = be(p, 1, KernelType.TC, 5 * MS);
    BeKernel after = be(p, 1, KernelType.CD, 100_000);
    int frames = 600;
    int launched = 0;
    for (int f = 0; f < frames; f++) {
      long start = f * QOS;
      p.frameReady(f, scene(), start);
      BeKernel cd = be(p, 2, KernelType.CD, 1 * MS);
      p.frameRendered(f, start + 12 * MS);
      BeKernel got = launched(p.next(start + 12 * MS));
      assertEquals(cd, got, "frame " + f);
      launched++;
      p.beFinished(got, start + 13 * MS);
      idle(p, start + 13 * MS); // 3,666,667 ns left: still not the 5 ms kernel, and its successor waits behind it
      idle(p, start + 16 * MS);
    }
    assertEquals(frames, launched);
    assertEquals(0, p.stragglers());
    assertEquals(List.of(), p.checkInvariants());
    // the first idle period long enough (a frame rendered in 11 ms leaves 5,666,667 ns) launches it, whole
    long start = frames * QOS;
    p.frameReady(frames, scene(), start);
    p.frameRendered(frames, start + 11 * MS);
    assertEquals(tooLong, launched(p.next(start + 11 * MS)));
    p.beFinished(tooLong, start + 16 * MS);
    assertEquals(after, launched(p.next(start + 16 * MS)));
  }

  @Test
  void aFrameReadyLate_startsWhenReady_andItsIdlePeriodEndsOnePeriodAfterItsStart() {
    // the last frame's render time predicts the gap: a frame that started 2 ms late predicts an idle period
    // ending 2 ms after the next frame's nominal start (the published rule, not an oracle of the next start)
    PilotfishPolicy p = attached();
    p.frameReady(0, scene(), 0);
    p.frameRendered(0, 5 * MS);
    FramePlan late = p.frameReady(1, scene(), QOS + 2 * MS);
    assertEquals(QOS + 2 * MS, late.startAt());
    assertEquals(33_333_333L, late.deadline()); // 2/60 s
    BeKernel k = be(p, 1, KernelType.CD, 2 * QOS + 2 * MS - (QOS + 9 * MS));
    p.frameRendered(1, QOS + 9 * MS);
    assertEquals(k, launched(p.next(QOS + 9 * MS)));
  }

  @Test
  void misuse_failsWithThePolicysName() {
    PilotfishPolicy p = PilotfishPolicy.create();
    assertEquals("pilotfish: not attached to a GPU yet",
        assertThrows(IllegalStateException.class, () -> p.next(0)).getMessage());
    p.attach(SETUP);
    p.frameReady(5, scene(), 0);
    assertEquals("pilotfish: frame 5 ready after frame 5",
        assertThrows(IllegalArgumentException.class, () -> p.frameReady(5, scene(), 0)).getMessage());
    assertEquals("pilotfish: frame 4 is not planned or already rendered",
        assertThrows(IllegalArgumentException.class, () -> p.frameRendered(4, 0)).getMessage());
    assertThrows(IllegalStateException.class, () -> p.attach(SETUP));
  }
}
