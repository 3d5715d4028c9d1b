package org.gpuemu.policies.combo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.workloads.KernelType;
import org.gpuemu.workloads.RenderScene;
import org.junit.jupiter.api.Test;

/**
 * The policies' rules replayed on hand-computed frames: 82 SMs, 100 FPS (a 10 ms QoS target), a predictor with
 * a = 1 ns per pixel-sample and b = 1e-6 ns per pixel-triangle on 1000x1000 frames, so {@link #scene} renders in
 * exactly the CD and RT times given. The guard is 1 ns unless a test is about it.
 */
class SpaceSharingPolicyTest {
  private static final long MS = 1_000_000L;
  private static final SpaceSetup SETUP =
      new SpaceSetup(82, 100, new RenderTimePredictor(1.0, 1e-6), ColocationTable.combo());

  private long ids;

  private static RenderScene scene(long cdNanos, long rtNanos) {
    return new RenderScene(1000, 1000, rtNanos / 1e6, cdNanos);
  }

  private static PolicyParams params(long guard, boolean merge, long stateWindow) {
    Map<String, Object> p = new HashMap<>();
    p.put(SpaceSharingPolicy.GUARD, guard);
    p.put(SpaceSharingPolicy.MERGE_HEADROOMS, String.valueOf(merge));
    p.put(SpaceSharingPolicy.STATE_WINDOW, stateWindow);
    p.put(SpaceSharingPolicy.STATE_THRESHOLD, 0.1);
    // the rules below are replayed without §6.7's host work (its own test charges it)
    p.put(SpaceSharingPolicy.PREDICTION_OVERHEAD, 0L);
    p.put(SpaceSharingPolicy.SELECTION_OVERHEAD, 0L);
    return PolicyParams.of(p);
  }

  private static SpacePolicy attached(SpacePolicy policy) {
    policy.attach(SETUP);
    return policy;
  }

  private BeKernel be(SpacePolicy policy, int vgpu, KernelType type, long nanos, long now) {
    BeKernel k = new BeKernel(ids++, vgpu, type, nanos);
    policy.beQueued(k, now);
    return k;
  }

  private static BeKernel launched(SpaceDecision d, Placement placement) {
    SpaceDecision.Launch launch = assertInstanceOf(SpaceDecision.Launch.class, d);
    assertEquals(placement, launch.placement());
    return launch.kernel();
  }

  private static void idle(SpacePolicy policy, long now) {
    assertInstanceOf(SpaceDecision.Idle.class, policy.next(now), "idle at " + now);
  }

  // ------------------------------------------------------------------ PilotFish as COMBO describes it

  @Test
  void pilotfish_launchesOnlyAfterTheFrame_oneKernelAtATime_theOldestThatFitsTheSpare() {
    SpacePolicy p = attached(SpaceSharingPolicy.pilotfishCombo(params(1, false, 1)));
    FramePlan plan = p.frameReady(0, scene(4 * MS, 3 * MS), 0);
    assertEquals(new FramePlan(0, 0, 0, 10 * MS, new SmLayout.Whole(82), Binding.ORIGINAL, Scheme.TEMPORAL, false,
        false, 0), plan);
    BeKernel cd2 = be(p, 1, KernelType.CD, 2 * MS, 0);
    BeKernel tc15 = be(p, 2, KernelType.TC, 1_500_000, 0);
    BeKernel cd05 = be(p, 3, KernelType.CD, 500_000, 0);
    idle(p, 0);
    p.renderPhaseStarted(0, KernelType.RT, 4 * MS);
    idle(p, 4 * MS); // temporal sharing never co-locates with the render
    p.frameRendered(0, 7 * MS);
    // spare = 10 − 7 = 3 ms: the oldest, 2 ms, fits; then nothing beside it
    assertEquals(cd2, launched(p.next(7 * MS), Placement.WHOLE_GPU));
    idle(p, 7 * MS);
    p.beFinished(cd2, 9 * MS);
    // 1 ms left: the 1.5 ms TC kernel does not fit, the younger 0.5 ms one of another application does
    assertEquals(cd05, launched(p.next(9 * MS), Placement.WHOLE_GPU));
    p.beFinished(cd05, 9_500_000);
    idle(p, 9_500_000);
    p.frameReady(1, scene(4 * MS, 3 * MS), 10 * MS);
    p.frameRendered(1, 17 * MS);
    assertEquals(tc15, launched(p.next(17 * MS), Placement.WHOLE_GPU));
    assertEquals(List.of(), p.checkInvariants());
  }

  @Test
  void pilotfish_spareIsQosTargetMinusRenderTime_lessTheGuard() {
    // render 7 ms of 10: a kernel of 3 ms − guard fits exactly, one nanosecond more does not
    for (long guard : new long[] {1, 100_000}) {
      SpacePolicy fits = attached(SpaceSharingPolicy.pilotfishCombo(params(guard, false, 1)));
      fits.frameReady(0, scene(4 * MS, 3 * MS), 0);
      BeKernel k = be(fits, 1, KernelType.CD, 3 * MS - guard, 0);
      fits.frameRendered(0, 7 * MS);
      assertEquals(k, launched(fits.next(7 * MS), Placement.WHOLE_GPU));

      SpacePolicy tooLong = attached(SpaceSharingPolicy.pilotfishCombo(params(guard, false, 1)));
      tooLong.frameReady(0, scene(4 * MS, 3 * MS), 0);
      be(tooLong, 1, KernelType.CD, 3 * MS - guard + 1, 0);
      tooLong.frameRendered(0, 7 * MS);
      idle(tooLong, 7 * MS);
    }
  }

  @Test
  void aFrameThatNeverArrived_isSkipped_theNextKeepsItsNominalStart_anEarlierOneIsRefused() {
    for (SpacePolicy p : List.of(attached(SpaceSharingPolicy.pilotfishCombo(params(1, false, 1))),
        attached(SpaceSharingPolicy.exact(params(1, false, 1))))) {
      p.frameReady(0, scene(4 * MS, 3 * MS), 0);
      p.frameRendered(0, 7 * MS);
      // frame 1's launches were all lost on their way: frame 2 comes next, in its own slot (10 ms frames)
      FramePlan plan = p.frameReady(2, scene(4 * MS, 3 * MS), 20 * MS);
      assertEquals(20 * MS, plan.nominalStart(), p.name());
      assertEquals(30 * MS, plan.deadline(), p.name());
      assertThrows(IllegalArgumentException.class, () -> p.frameReady(1, scene(4 * MS, 3 * MS), 21 * MS), p.name());
      assertThrows(IllegalArgumentException.class, () -> p.frameReady(2, scene(4 * MS, 3 * MS), 21 * MS), p.name());
    }
  }

  @Test
  void beforeTheFirstFrame_beKernelsLaunchWithoutAFitCheck() {
    SpacePolicy p = attached(SpaceSharingPolicy.pilotfishCombo(params(1, false, 1)));
    BeKernel k = be(p, 1, KernelType.TC, 500 * MS, 0);
    assertEquals(k, launched(p.next(0), Placement.WHOLE_GPU));
  }

  @Test
  void anApplicationsKernelsRunInOrder_oneAtATime() {
    SpacePolicy p = attached(SpaceSharingPolicy.exact(params(1, false, 1)));
    BeKernel first = be(p, 1, KernelType.TC, MS, 0);
    BeKernel second = be(p, 1, KernelType.CD, MS, 0);
    assertEquals(first, launched(p.next(0), Placement.WHOLE_GPU));
    idle(p, 0); // its CD kernel waits for its TC kernel although the CD stream is free
    p.beFinished(first, MS);
    assertEquals(second, launched(p.next(MS), Placement.WHOLE_GPU));
  }

  // ------------------------------------------------------------------ exact integrated SM sharing

  @Test
  void exact_figure11_rendersOnEq5Sms_launchesOriginalKernelsWhenTheGroupGrows_andBlocksBeOnEveryChange() {
    SpacePolicy p = attached(SpaceSharingPolicy.exact(params(1, false, 1)));
    long needs50 = 6_097_000; // 82 × 6.097 / 10 = 49.99 → 50 SMs
    long needs60 = 7_317_000; // 59.99 → 60 SMs
    BeKernel cd = be(p, 1, KernelType.CD, 5 * MS, 0);
    BeKernel tc = be(p, 2, KernelType.TC, 5 * MS, 0);

    FramePlan f0 = p.frameReady(0, scene(needs50 - 2 * MS, 2 * MS), 0);
    assertEquals(new SmLayout.Split(50, 32), f0.layout());
    // the first split: BE kernels could hold any SM, so original kernels, and BE waits for the frame; the BE group is
    // empty, nothing to suspend
    assertEquals(Binding.ORIGINAL, f0.binding());
    assertFalse(f0.suspendBe());
    idle(p, 0);
    p.frameRendered(0, needs50);
    assertEquals(cd, launched(p.next(needs50), Placement.BE_GROUP));
    assertEquals(tc, launched(p.next(needs50), Placement.BE_GROUP)); // CD and TC side by side (Figure 9)
    idle(p, needs50);

    FramePlan f1 = p.frameReady(1, scene(needs50 - 2 * MS, 2 * MS), 10 * MS);
    assertEquals(new SmLayout.Split(50, 32), f1.layout());
    assertEquals(Binding.SM_BOUND, f1.binding());
    assertFalse(f1.suspendBe(), "the same split: nothing changes");
    BeKernel next = be(p, 1, KernelType.CD, MS, 11 * MS);
    p.beFinished(cd, 11 * MS);
    assertEquals(next, launched(p.next(11 * MS), Placement.BE_GROUP), "the BE group runs on beside the frame");
    p.frameRendered(1, 10 * MS + needs50);

    // Figure 11: the second frame needs 60 SMs; BE kernels may still hold SMs 51-60, so the original kernel (11c)
    FramePlan f2 = p.frameReady(2, scene(needs60 - 2 * MS, 2 * MS), 20 * MS);
    assertEquals(new SmLayout.Split(60, 22), f2.layout());
    assertEquals(Binding.ORIGINAL, f2.binding());
    // §5.2: "each time a change occurs, the BE task is blocked during the frame": its running kernels too
    assertTrue(f2.suspendBe());
    p.beFinished(next, 21 * MS);
    be(p, 1, KernelType.CD, MS, 21 * MS);
    idle(p, 21 * MS); // §5.2: the BE application is sacrificed in the frame the allocation changes
    p.frameRendered(2, 20 * MS + needs60);
    launched(p.next(20 * MS + needs60), Placement.BE_GROUP);

    // back to 50 SMs: the render group shrinks, so SM-bound kernels are safe, but BE still waits for the frame
    FramePlan f3 = p.frameReady(3, scene(needs50 - 2 * MS, 2 * MS), 30 * MS);
    assertEquals(Binding.SM_BOUND, f3.binding());
    assertEquals(new SmLayout.Split(50, 32), f3.layout());
    assertTrue(f3.suspendBe(), "every change, growing or shrinking");
    assertEquals(Scheme.EXACT, p.scheme());
    assertEquals(List.of(), p.switches());
    assertEquals(List.of(), p.checkInvariants());
  }

  @Test
  void exact_aFrameNeedingTheWholeGpu_leavesTheBeGroupEmpty() {
    SpacePolicy p = attached(SpaceSharingPolicy.exact(params(1, false, 1)));
    FramePlan f = p.frameReady(0, scene(6 * MS, 4 * MS), 0);
    assertEquals(new SmLayout.Split(82, 0), f.layout());
    be(p, 1, KernelType.CD, MS, 0);
    p.frameRendered(0, 10 * MS);
    idle(p, 10 * MS);
  }

  @Test
  void exact_sizesTheRenderGroupForTheTargetLessTheGuard() {
    // 4.97 ms of 10 ms: 82 × 0.497 = 40.75, so 41 SMs; with a 100 µs guard the target is 9.9 ms: 41.17, so 42
    SpacePolicy tiny = attached(SpaceSharingPolicy.exact(params(1, false, 1)));
    assertEquals(new SmLayout.Split(41, 41), tiny.frameReady(0, scene(2_970_000, 2 * MS), 0).layout());
    SpacePolicy guarded = attached(SpaceSharingPolicy.exact(params(100_000, false, 1)));
    assertEquals(new SmLayout.Split(42, 40), guarded.frameReady(0, scene(2_970_000, 2 * MS), 0).layout());
  }

  @Test
  void section6_7_predictionAndSelection_delayTheFramesLaunch_andEq5SizesForTheTimeLeft() {
    // 4.97 ms of 10 ms: 41 SMs with no host work (above); §6.7's 0.06 ms prediction + 0.02 ms selection start the
    // frame at 80 us and leave 9.92 ms: 82 × 4.97 / 9.92 = 41.08, so 42 SMs
    Map<String, Object> p = new HashMap<>();
    p.put(SpaceSharingPolicy.GUARD, 1L);
    p.put(SpaceSharingPolicy.MERGE_HEADROOMS, "false");
    p.put(SpaceSharingPolicy.STATE_WINDOW, 1L);
    p.put(SpaceSharingPolicy.STATE_THRESHOLD, 0.1);
    p.put(SpaceSharingPolicy.PREDICTION_OVERHEAD, 60_000L);
    p.put(SpaceSharingPolicy.SELECTION_OVERHEAD, 20_000L);
    SpacePolicy combo = attached(SpaceSharingPolicy.combo(PolicyParams.of(p)));
    FramePlan f = combo.frameReady(0, scene(2_970_000, 2 * MS), 0);
    assertEquals(80_000, f.startAt());
    assertEquals(80_000, f.hostNanos());
    assertEquals(new SmLayout.Split(42, 40), f.layout());
    // the exact scheme alone predicts but selects nothing: 60 us
    SpacePolicy exact = attached(SpaceSharingPolicy.exact(PolicyParams.of(p)));
    assertEquals(60_000, exact.frameReady(0, scene(2_970_000, 2 * MS), 0).startAt());
    // a frame ready early enough starts at its nominal time: the host work is done by then
    combo.frameRendered(0, 9 * MS);
    assertEquals(10 * MS, combo.frameReady(1, scene(2_970_000, 2 * MS), 9 * MS).startAt());
    // PilotFish as COMBO describes it runs no COMBO predictor
    SpacePolicy pilotfish = attached(SpaceSharingPolicy.pilotfishCombo(PolicyParams.of(p)));
    assertEquals(0, pilotfish.frameReady(0, scene(2_970_000, 2 * MS), 0).hostNanos());
  }

  @Test
  void exact_aFrameReadyLate_getsTheSmsItNeedsForTheTimeLeft() {
    // 4.9 ms of 10: 82 × 0.49 = 40.2, so 41 SMs on time; ready 2.5 ms late it has 7.5 ms: 53.6, so 54 SMs
    SpacePolicy p = attached(SpaceSharingPolicy.exact(params(1, false, 1)));
    assertEquals(new SmLayout.Split(41, 41), p.frameReady(0, scene(2_900_000, 2 * MS), 0).layout());
    p.frameRendered(0, 9 * MS);
    FramePlan late = p.frameReady(1, scene(2_900_000, 2 * MS), 12_500_000);
    assertEquals(new SmLayout.Split(54, 28), late.layout());
    assertEquals(Binding.ORIGINAL, late.binding(), "the render group grew");
    // ready after its target: every SM
    p.frameRendered(1, 19 * MS);
    assertEquals(new SmLayout.Split(82, 0), p.frameReady(2, scene(2_900_000, 2 * MS), 31 * MS).layout());
  }

  // ------------------------------------------------------------------ relaxed intra-SM sharing

  @Test
  void relaxed_coLocatesABeCdKernelWithTheRtPhase_onlyWhileTheFrameStaysWithinQos() {
    // frame: 4 ms CD then 4 ms RT of a 10 ms target. Beside RT a CD kernel of d stretches the frame by
    // (1 − 2 × 13.7 %) × d = 0.726 d: 2 ms fits (9.452 ms), 2.75 ms fits (9.9965 ms), 2.76 ms does not (10.0038)
    for (long d : new long[] {2 * MS, 2_750_000, 2_760_000}) {
      SpacePolicy p = attached(SpaceSharingPolicy.relaxed(params(1, false, 1)));
      p.frameReady(0, scene(4 * MS, 4 * MS), 0);
      BeKernel k = be(p, 1, KernelType.CD, d, 0);
      p.renderPhaseStarted(0, KernelType.CD, 0);
      idle(p, 0); // never beside the game's CD kernels
      p.renderPhaseStarted(0, KernelType.RT, 4 * MS);
      if (d < 2_760_000) {
        assertEquals(k, launched(p.next(4 * MS), Placement.WHOLE_GPU), d + " ns");
      } else {
        idle(p, 4 * MS);
      }
      assertEquals(List.of(), p.checkInvariants());
    }
  }

  @Test
  void relaxed_neverCoLocatesTcWithRt_butRunsItBetweenFrames() {
    SpacePolicy p = attached(SpaceSharingPolicy.relaxed(params(1, false, 1)));
    p.frameReady(0, scene(4 * MS, 4 * MS), 0);
    BeKernel tc = be(p, 1, KernelType.TC, 100_000, 0);
    p.renderPhaseStarted(0, KernelType.RT, 4 * MS);
    idle(p, 4 * MS); // Figure 7: RT+TC gains nothing
    p.frameRendered(0, 8 * MS);
    assertEquals(tc, launched(p.next(8 * MS), Placement.WHOLE_GPU));
  }

  @Test
  void relaxed_betweenFrames_addsATcKernelBesideTheCdKernel_onlyIfBothStillEndBeforeTheNextFrame() {
    // after an 8 ms frame, 2 ms to the next. CD+TC (35.7 %) progress at 1/(2 × 0.643) = 0.7776 each: a 0.5 ms TC
    // kernel ends after 0.643 ms and pushes a 1.95 ms CD kernel to 10.093 ms (too late), a 1.8 ms one to 9.943 ms
    for (long cdNanos : new long[] {1_950_000, 1_800_000}) {
      SpacePolicy p = attached(SpaceSharingPolicy.relaxed(params(1, false, 1)));
      p.frameReady(0, scene(4 * MS, 4 * MS), 0);
      BeKernel cd = be(p, 1, KernelType.CD, cdNanos, 0);
      BeKernel tc = be(p, 2, KernelType.TC, 500_000, 0);
      p.frameRendered(0, 8 * MS);
      assertEquals(cd, launched(p.next(8 * MS), Placement.WHOLE_GPU), "the CUDA stream first (§5.1.2)");
      if (cdNanos == 1_800_000) {
        assertEquals(tc, launched(p.next(8 * MS), Placement.WHOLE_GPU));
      } else {
        idle(p, 8 * MS);
      }
    }
  }

  // ------------------------------------------------------------------ headroom merging

  @Test
  void merging_delaysTheNextFrameBy1OverFpsMinusRenderTime_soAKernelTooLongForOneHeadroomFits() {
    // frames of 8 ms (5 CD + 3 RT): 2 ms headroom. A 3 ms BE CD kernel fits neither beside RT (10.18 ms) nor after
    SpacePolicy none = attached(SpaceSharingPolicy.relaxed(params(1, false, 1)));
    none.frameReady(0, scene(5 * MS, 3 * MS), 0);
    be(none, 1, KernelType.CD, 3 * MS, 0);
    none.renderPhaseStarted(0, KernelType.RT, 5 * MS);
    idle(none, 5 * MS);
    none.frameRendered(0, 8 * MS);
    idle(none, 8 * MS);

    SpacePolicy p = attached(SpaceSharingPolicy.relaxed(params(1, true, 1)));
    p.frameReady(0, scene(5 * MS, 3 * MS), 0);
    BeKernel k = be(p, 1, KernelType.CD, 3 * MS, 0);
    p.frameRendered(0, 8 * MS);
    // frame 1 will start 2 ms − guard late: 8 to 12 ms is one headroom now
    assertEquals(k, launched(p.next(8 * MS), Placement.WHOLE_GPU));
    FramePlan f1 = p.frameReady(1, scene(5 * MS, 3 * MS), 10 * MS);
    assertEquals(new FramePlan(1, 10 * MS, 12 * MS - 1, 20 * MS, new SmLayout.Whole(82), Binding.SM_BOUND,
        Scheme.RELAXED, true, false, 0), f1);
    p.beFinished(k, 11 * MS);
    be(p, 1, KernelType.CD, 3 * MS, 11 * MS);
    p.frameRendered(1, 20 * MS - 1);
    // frames pair up: the frame after a delayed one starts on time
    FramePlan f2 = p.frameReady(2, scene(5 * MS, 3 * MS), 20 * MS);
    assertEquals(20 * MS, f2.startAt());
    assertFalse(f2.merged());
    assertEquals(List.of(), p.checkInvariants());
  }

  @Test
  void merging_aDelayedFrameHeavierThanAssumed_startsEarlyEnoughForItsTarget() {
    SpacePolicy p = attached(SpaceSharingPolicy.relaxed(params(1, true, 1)));
    p.frameReady(0, scene(5 * MS, 3 * MS), 0);
    be(p, 1, KernelType.CD, 3 * MS, 0);
    p.frameRendered(0, 8 * MS);
    // assumed 8 ms, but it needs 9 ms: it starts at 20 ms − guard − 9 ms
    assertEquals(11 * MS - 1, p.frameReady(1, scene(6 * MS, 3 * MS), 10 * MS).startAt());
  }

  @Test
  void merging_onlyWhenBeWorkWaits() {
    SpacePolicy p = attached(SpaceSharingPolicy.relaxed(params(1, true, 1)));
    p.frameReady(0, scene(5 * MS, 3 * MS), 0);
    p.frameRendered(0, 8 * MS);
    FramePlan f1 = p.frameReady(1, scene(5 * MS, 3 * MS), 10 * MS);
    assertEquals(10 * MS, f1.startAt());
    assertFalse(f1.merged());
  }

  // ------------------------------------------------------------------ scheme switching

  @Test
  void combo_switchesToExactWhenTheLoadIsStatic_andBackWhenItMoves_withOriginalKernelsOnEachSwitchFrame() {
    SpacePolicy p = attached(SpaceSharingPolicy.comboNoMerge(params(1, false, 3)));
    long t = 0;
    for (int k = 0; k < 2; k++, t += 10 * MS) {
      FramePlan f = p.frameReady(k, scene(4 * MS, 4 * MS), t);
      assertEquals(Scheme.RELAXED, f.scheme(), "the window is not full yet");
      p.frameRendered(k, t + 8 * MS);
    }
    FramePlan exact = p.frameReady(2, scene(4 * MS, 4 * MS), t);
    // state = 0 < 10 %: exact, 82 × 8 / 10 = 65.6 → 66 SMs
    assertEquals(Scheme.EXACT, exact.scheme());
    assertEquals(new SmLayout.Split(66, 16), exact.layout());
    assertEquals(Binding.ORIGINAL, exact.binding());
    assertFalse(exact.suspendBe(), "a scheme switch is no exact layout change");
    be(p, 1, KernelType.CD, MS, t);
    idle(p, t);
    p.frameRendered(2, t + 10 * MS - 1);
    launched(p.next(t + 10 * MS - 1), Placement.BE_GROUP);
    t += 10 * MS;
    // 9.6 ms after three 8 ms frames: (9.6 − 8) / 8.53 = 18.75 % ≥ 10 %: relaxed
    FramePlan relaxed = p.frameReady(3, scene(5_600_000, 4 * MS), t);
    assertEquals(Scheme.RELAXED, relaxed.scheme());
    assertEquals(new SmLayout.Whole(82), relaxed.layout());
    assertEquals(Binding.ORIGINAL, relaxed.binding());
    // §5.3: BE-group kernels still running are handled by the original render kernels, not suspended
    assertFalse(relaxed.suspendBe());
    assertEquals(List.of(new SchemeSwitch(2, 20 * MS, Scheme.RELAXED, Scheme.EXACT),
        new SchemeSwitch(3, 30 * MS, Scheme.EXACT, Scheme.RELAXED)), p.switches());
    // the switch frame blocks BE even beside its RT phase, where the relaxed scheme would co-locate
    p.renderPhaseStarted(3, KernelType.RT, t + 5_600_000);
    be(p, 2, KernelType.CD, 10_000, t);
    idle(p, t + 5_600_000);
  }

  @Test
  void combo_aSwitchToExactFallingOnADelayedFrameWaitsOneFrame() {
    SpacePolicy p = attached(SpaceSharingPolicy.combo(params(1, true, 2)));
    p.frameReady(0, scene(5 * MS, 3 * MS), 0);
    be(p, 1, KernelType.CD, 3 * MS, 0);
    p.frameRendered(0, 8 * MS);
    FramePlan delayed = p.frameReady(1, scene(5 * MS, 3 * MS), 10 * MS);
    assertTrue(delayed.merged());
    assertEquals(Scheme.RELAXED, delayed.scheme(), "the window is full and static, but the frame is delayed");
    p.frameRendered(1, 20 * MS - 1);
    assertEquals(Scheme.EXACT, p.frameReady(2, scene(5 * MS, 3 * MS), 20 * MS).scheme());
  }

  // ------------------------------------------------------------------ protocol

  @Test
  void protocolErrors_areRefusedWithTheirReason() {
    SpacePolicy p = SpaceSharingPolicy.pilotfishCombo(params(1, false, 1));
    assertEquals("pilotfish-combo: not attached to a GPU yet",
        assertThrows(IllegalStateException.class, () -> p.next(0)).getMessage());
    p.attach(SETUP);
    assertThrows(IllegalStateException.class, () -> p.attach(SETUP));
    p.frameReady(5, scene(MS, MS), 0);
    assertEquals("pilotfish-combo: frame 5 ready after frame 5",
        assertThrows(IllegalArgumentException.class, () -> p.frameReady(5, scene(MS, MS), 10 * MS)).getMessage());
    assertEquals("pilotfish-combo: frame 4 is not planned or already rendered",
        assertThrows(IllegalArgumentException.class, () -> p.frameRendered(4, MS)).getMessage());
    BeKernel k = be(p, 1, KernelType.CD, MS, 0);
    assertThrows(IllegalArgumentException.class, () -> p.beQueued(k, 0));
    assertThrows(IllegalArgumentException.class, () -> p.beFinished(k, 0));
    assertThrows(IllegalArgumentException.class, () -> new BeKernel(99, 1, KernelType.RT, MS));
    assertThrows(IllegalArgumentException.class, () -> new BeKernel(-1, 1, KernelType.CD, MS));
  }

  @Test
  void aFrameReadyLate_startsAtOnce_withoutBeingMerged() {
    SpacePolicy p = attached(SpaceSharingPolicy.relaxed(params(1, true, 1)));
    p.frameReady(0, scene(MS, MS), 0);
    p.frameRendered(0, 2 * MS);
    FramePlan late = p.frameReady(1, scene(MS, MS), 10_500_000);
    assertEquals(10 * MS, late.nominalStart());
    assertEquals(10_500_000, late.startAt());
    assertEquals(20 * MS, late.deadline());
    assertFalse(late.merged());
  }
}
