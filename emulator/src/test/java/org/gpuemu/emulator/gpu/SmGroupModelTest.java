package org.gpuemu.emulator.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.gpuemu.emulator.gpu.SmGroupModel.Completion;
import org.gpuemu.emulator.gpu.SmGroupModel.CopyRequest;
import org.gpuemu.emulator.gpu.SmGroupModel.Handover;
import org.gpuemu.emulator.gpu.SmGroupModel.Kernel;
import org.gpuemu.emulator.gpu.SmGroupModel.Step;
import org.gpuemu.policies.combo.ColocationTable;
import org.gpuemu.workloads.KernelSpec;
import org.gpuemu.workloads.KernelType;
import org.junit.jupiter.api.Test;

/**
 * The SM group's rules replayed exactly in model time: every expected time is a whole nanosecond derived in the
 * comment beside it. Work is solo duration × 82 SM-nanoseconds; a kernel spanning s SMs at co-location rate r does
 * r·s of it per nanosecond; a completion is due at the ceiling of its exact end.
 */
class SmGroupModelTest {
  private static final long MS = 1_000_000;
  private static final int SMS = 82;
  /** combo.txt Figure 11's BE kernel: 3,902,439 ns × 82 = 319,999,998 SM-ns, 10 ms on 32 SMs. */
  private static final KernelSpec FIG11_TC = new KernelSpec("tc", KernelType.TC, 656, 3_902_439);
  /** Figure 11's render kernel: 7,317,073 ns × 82 = 599,999,986 SM-ns, 10 ms on 60 SMs, 12 ms on 50. */
  private static final KernelSpec FIG11_RT = new KernelSpec("rt", KernelType.RT, 28_800, 7_317_073);

  private static SmGroupModel<String> wholeGpu(int maxConcurrent, long contextSwitchNanos) {
    return new SmGroupModel<>(SMS, SMS, maxConcurrent, contextSwitchNanos, FluidModel.sharedEqually(), false);
  }

  private static Kernel<String> cd(String tag, int vgpu, long soloNanos) {
    return new Kernel<>(tag, vgpu, KernelSpec.cd(tag, soloNanos), 0);
  }

  private static Completion<String> only(Step<String> step) {
    assertEquals(1, step.completed().size(), "one completion: " + step);
    return step.completed().get(0);
  }

  private static long next(SmGroupModel<?> group) {
    OptionalLong at = group.nextEventAt();
    assertTrue(at.isPresent(), "an event is due");
    return at.getAsLong();
  }

  @Test
  void alone_aKernelEndsItsSoloDurationAfterItArrives_andIsAccountedAllOfIt() {
    SmGroupModel<String> g = wholeGpu(1, 0);
    assertTrue(g.execute(cd("a", 0, 7_654_321), 1_234_567).completed().isEmpty());
    // 7,654,321 × 82 SM-ns at rate 1 on 82 SMs: 7,654,321 ns from its arrival at 1,234,567
    assertEquals(8_888_888, next(g));
    Completion<String> a = only(g.eventDue(8_888_888));
    assertEquals(new Completion<>("a", 0, 7_654_321, 1_234_567, 8_888_888), a);
    assertEquals(OptionalLong.empty(), g.nextEventAt(), "nothing left to do");
    assertEquals(7_654_321, g.figures().kernelBusyNanos(), "busy only while the kernel ran");
    assertEquals(7_654_321.0 * SMS, g.figures().smBusyNanos(), "on all 82 SMs");
    assertEquals(1, g.figures().kernelsCompleted());
  }

  @Test
  void halfTheSms_doubleTheDuration() {
    SmGroupModel<String> g = new SmGroupModel<>(41, SMS, 1, 0, FluidModel.sharedEqually(), false);
    g.execute(cd("a", 0, 3 * MS), 0);
    // 3 ms × 82 = 246 SM-ms on 41 SMs: 6 ms
    assertEquals(6 * MS, next(g));
    assertEquals(6 * MS, only(g.eventDue(6 * MS)).gpuNanos());
    assertEquals(6.0 * MS * 41, g.figures().smBusyNanos(), "41 SMs busy for 6 ms");
  }

  @Test
  void twoEqualKernelsSharing_endTogetherAfterTwiceTheirDuration_eachAccountedHalf() {
    SmGroupModel<String> g = wholeGpu(2, 0);
    g.execute(cd("a", 0, 4 * MS), 0);
    g.execute(cd("b", 0, 4 * MS), 0);
    // each does 4 ms of work at rate 1/2: 8 ms
    assertEquals(8 * MS, next(g));
    Step<String> s = g.eventDue(8 * MS);
    assertEquals(List.of(new Completion<>("a", 0, 4 * MS, 0, 8 * MS), new Completion<>("b", 0, 4 * MS, 0, 8 * MS)),
        s.completed(), "both at 8 ms, each accounted 8 ms / 2, in the order they started");
    assertEquals(8 * MS, g.figures().kernelBusyNanos());
  }

  @Test
  void aKernelArrivingMidRun_slowsTheRunningOne_andTheirAccountedTimesAddUpToBusyTime() {
    SmGroupModel<String> g = wholeGpu(2, 0);
    g.execute(cd("a", 0, 4 * MS), 0);
    assertEquals(4 * MS, next(g));
    g.execute(cd("b", 0, 2 * MS), MS);
    // at 1 ms a has 3 ms of work left, b 2 ms; at rate 1/2 b ends 4 ms later, at 5 ms (a would need 6 ms)
    assertEquals(5 * MS, next(g));
    Completion<String> b = only(g.eventDue(5 * MS));
    assertEquals(new Completion<>("b", 0, 2 * MS, MS, 5 * MS), b, "accounted half of the 4 ms it shared");
    // a did 1 ms alone and 2 ms at rate 1/2: its last 1 ms alone ends at 6 ms
    assertEquals(6 * MS, next(g));
    Completion<String> a = only(g.eventDue(6 * MS));
    // 1 ms alone + 4 ms / 2 shared + 1 ms alone
    assertEquals(new Completion<>("a", 0, 4 * MS, 0, 6 * MS), a);
    assertEquals(a.gpuNanos() + b.gpuNanos(), g.figures().kernelBusyNanos(), "GPU time conserved");
  }

  @Test
  void atMostMaxConcurrentKernelsRun_theRestWaitInTheFifo() {
    SmGroupModel<String> g = wholeGpu(2, 0);
    g.execute(cd("a", 0, MS), 0);
    g.execute(cd("b", 0, MS), 0);
    g.execute(cd("c", 0, MS), 0);
    assertEquals(2, g.runningCount());
    assertEquals(1, g.queuedCount());
    // a and b share: 2 ms; c starts then and runs 1 ms alone
    assertEquals(2 * MS, next(g));
    assertEquals(2, g.eventDue(2 * MS).completed().size());
    assertEquals(3 * MS, next(g));
    assertEquals(new Completion<>("c", 0, MS, 2 * MS, 3 * MS), only(g.eventDue(3 * MS)));
  }

  @Test
  void contextSwitch_waitsForTheRunningKernel_thenCostsItsTimeBeforeTheOtherVgpusKernelStarts() {
    SmGroupModel<String> g = wholeGpu(1, MS / 2);
    g.execute(cd("a", 0, 2 * MS), 0);
    g.execute(cd("b", 1, MS), 0);
    assertEquals(2 * MS, next(g), "a first: non-preemptive FIFO");
    assertEquals("a", only(g.eventDue(2 * MS)).tag());
    // the switch to vGPU 1 runs from 2 ms to 2.5 ms
    assertEquals(2_500_000, next(g));
    assertTrue(g.eventDue(2_500_000).completed().isEmpty());
    // b then runs its 1 ms
    assertEquals(3_500_000, next(g));
    assertEquals(new Completion<>("b", 1, MS, 2_500_000, 3_500_000), only(g.eventDue(3_500_000)));
    assertEquals(1, g.figures().contextSwitches());
    assertEquals(MS / 2, g.figures().switchNanos(), "the switch's time, attributed to no kernel");
    assertEquals(3 * MS, g.figures().kernelBusyNanos(), "2 ms + 1 ms of kernels, the switch not included");
  }

  @Test
  void contextSwitch_aFreeSlotDoesNotLetAnotherVgpuRunAlongside_andTheFifoKeepsItsOrder() {
    SmGroupModel<String> g = wholeGpu(4, MS / 2);
    g.execute(cd("a", 0, 2 * MS), 0);
    g.execute(cd("b", 1, MS), 0);
    g.execute(cd("c", 0, MS), 0);
    assertEquals(1, g.runningCount(), "b waits for a to drain; c, though of a's vGPU, stays behind b");
    assertEquals(2, g.queuedCount());
    g.eventDue(2 * MS); // a ends; switch to vGPU 1 until 2.5 ms
    g.eventDue(2_500_000); // b starts; c (vGPU 0) waits for b to drain
    assertEquals(1, g.runningCount());
    assertEquals(3_500_000, next(g));
    assertEquals("b", only(g.eventDue(3_500_000)).tag());
    // switch back to vGPU 0 from 3.5 to 4 ms, then c's 1 ms
    assertEquals(4 * MS, next(g));
    g.eventDue(4 * MS);
    assertEquals(5 * MS, next(g));
    assertEquals(new Completion<>("c", 0, MS, 4 * MS, 5 * MS), only(g.eventDue(5 * MS)));
    assertEquals(2, g.figures().contextSwitches());
    assertEquals(MS, g.figures().switchNanos(), "two switches of 0.5 ms");
  }

  @Test
  void aFreeContextSwitch_isCountedButNeitherWaitsNorDrains() {
    SmGroupModel<String> g = wholeGpu(2, 0);
    g.execute(cd("a", 0, MS), 0);
    g.execute(cd("b", 1, MS), 0);
    assertEquals(2, g.runningCount(), "b runs beside a at once");
    assertEquals(1, g.figures().contextSwitches());
    // sharing: both end at 2 ms
    assertEquals(2 * MS, next(g));
    assertEquals(0, g.figures().switchNanos());
  }

  @Test
  void gttCopy_theSwitchWaitsForTheCopy_whoseTimeCountsAsSwitchTime_thenPaysItsFixedCost() {
    SmGroupModel<String> g = new SmGroupModel<>(SMS, SMS, 1, MS / 2, FluidModel.sharedEqually(), true);
    g.execute(cd("a", 0, 2 * MS), 0);
    g.execute(cd("b", 1, MS), 0);
    Step<String> aEnds = g.eventDue(2 * MS);
    assertEquals("a", only(aEnds).tag());
    assertEquals(Optional.of(new CopyRequest(1, 2 * MS)), aEnds.copy(), "vGPU 1's GTT copy, from a's end");
    assertEquals(2 * MS, g.copyStartedAt());
    assertEquals(OptionalLong.empty(), g.nextEventAt(), "no timer while the copy runs on a host core");
    // a 3 ms copy ends at 5 ms; the 0.5 ms switch follows, then b's 1 ms
    assertTrue(g.copied(5 * MS).completed().isEmpty());
    assertEquals(5_500_000, next(g));
    g.eventDue(5_500_000);
    assertEquals(6_500_000, next(g));
    assertEquals(new Completion<>("b", 1, MS, 5_500_000, 6_500_000), only(g.eventDue(6_500_000)));
    assertEquals(3_500_000, g.figures().switchNanos(), "3 ms of copy + 0.5 ms of switch");
    assertEquals(1, g.figures().contextSwitches());
  }

  @Test
  void gttCopy_ofNoCpuTime_startsTheSwitchWhenItWasAskedFor() {
    SmGroupModel<String> g = new SmGroupModel<>(SMS, SMS, 1, MS / 2, FluidModel.sharedEqually(), true);
    g.execute(cd("a", 0, 2 * MS), 0);
    g.execute(cd("b", 1, MS), 0);
    g.eventDue(2 * MS);
    g.copied(g.copyStartedAt());
    // 2 ms + the 0.5 ms switch
    assertEquals(2_500_000, next(g));
  }

  @Test
  void table3Colocation_cdAndTcOverlap_theirMakespanShrinksByTable3sReduction() {
    SmGroupModel<String> g = new SmGroupModel<>(SMS, SMS, 2, 0, FluidModel.of(ColocationTable.table3()), false);
    g.execute(new Kernel<>("tc", 0, new KernelSpec("tc", KernelType.TC, 1, MS), 0), 0);
    g.execute(new Kernel<>("cd", 0, new KernelSpec("cd", KernelType.CD, 1, 3 * MS), 0), 0);
    // CD+TC: r = 0.4412, each at 1 / (2 × 0.5588) = 0.894774516821761; tc's 1 ms of work takes 1,117,600 ns
    // (the double quotient is 1,117,599.9999999998; its ceiling is the due time)
    assertEquals(1_117_600, next(g));
    Completion<String> tc = only(g.eventDue(1_117_600));
    assertEquals(new Completion<>("tc", 0, 558_800, 0, 1_117_600), tc, "accounted half of the 1,117,600 ns shared");
    // cd did as much work, 1 ms, and has 2 ms left alone
    assertEquals(3_117_600, next(g));
    assertEquals(new Completion<>("cd", 0, 2_558_800, 0, 3_117_600), only(g.eventDue(3_117_600)),
        "558,800 shared + 2,000,000 alone");
  }

  @Test
  void medianKernel_isTheLengthHalfOfTheKernelTimeWentTo_notTheMedianOfTheCount() {
    SmGroupModel<String> g = wholeGpu(1, 0);
    assertEquals(0, g.figures().medianKernelNanos(), "no kernel yet");
    g.execute(cd("short1", 0, 10_000), 0);
    g.execute(cd("short2", 0, 10_000), 0);
    g.execute(cd("long", 0, 3 * MS), 0);
    g.eventDue(10_000);
    g.eventDue(20_000);
    g.eventDue(3_020_000);
    // two of three kernels are 10 us, but the 3 ms one took 3,000 of the 3,020 us: counts of 1 + 10 each
    // against 1 + 3,000; the histogram keeps 2 significant digits, hence the 1 % tolerance
    assertEquals(3 * MS, g.figures().medianKernelNanos(), 3 * MS / 100);
  }

  @Test
  void anEventStampedBeforeTheGroupsLatestEvent_isTakenAtTheLatestEvent() {
    SmGroupModel<String> g = wholeGpu(1, 0);
    g.execute(cd("a", 0, MS), 0);
    g.eventDue(MS);
    g.execute(cd("b", 0, MS), MS / 2);
    assertEquals(MS, g.lastEventAt());
    // b starts at 1 ms, not at its 0.5 ms stamp
    assertEquals(2 * MS, next(g));
    assertEquals(MS, only(g.eventDue(2 * MS)).startedNanos());
  }

  /** The space-shared GPU's two groups at combo.txt Figure 11's frame 1: render 50 SMs, BE 32 with its TC kernel. */
  private record SpaceShared(SmGroupModel<String> render, SmGroupModel<String> be) {}

  private static SpaceShared figure11Frame1() {
    FluidModel combo = FluidModel.of(ColocationTable.combo());
    var render = new SmGroupModel<String>(SMS, SMS, PhysicalGpu.SPACE_SHARED_CONCURRENCY, 0, combo, false);
    var be = new SmGroupModel<String>(0, SMS, PhysicalGpu.SPACE_SHARED_CONCURRENCY, 0, combo, false);
    render.handOverSurplus();
    be.handOverSurplus();
    // layout 1: render 50, BE 32; the render group owns no kernel, so its 32 surplus SMs go at once
    assertEquals(Optional.of(new Handover(32, 1, 32, 0)), render.resize(1, 50, false, 0).handover());
    assertEquals(Optional.empty(), be.resize(1, 32, false, 0).handover());
    be.grant(32, 1, 32, 0);
    be.execute(new Kernel<>("tc", 1, FIG11_TC, 0), 1, 32, 0);
    // 319,999,998 SM-ns on 32 SMs: 9,999,999.9375 ns, due at its ceiling
    assertEquals(10 * MS, next(be));
    return new SpaceShared(render, be);
  }

  @Test
  void figure11b_anSmBoundKernelWaitsForTheSmsTheBeKernelHolds_thenNeedsItsWholeDuration() {
    SpaceShared g = figure11Frame1();
    // layout 2 at 0: render 60, BE 22; the TC kernel still spans the BE group's 32, so nothing is handed over
    assertEquals(Optional.empty(), g.render().resize(2, 60, false, 0).handover());
    assertEquals(Optional.empty(), g.be().resize(2, 22, false, 0).handover());
    g.render().execute(new Kernel<>("rt", 0, FIG11_RT, 60), 2, 60, 0);
    assertEquals(OptionalLong.empty(), g.render().nextEventAt(), "bound to 60 SMs, the group owns 50: no progress");
    Step<String> tcEnds = g.be().eventDue(10 * MS);
    assertEquals(new Completion<>("tc", 1, 10 * MS, 0, 10 * MS), only(tcEnds));
    assertEquals(Optional.of(new Handover(10, 2, 60, 10 * MS)), tcEnds.handover(), "32 - 22 SMs, at the TC's end");
    g.render().grant(10, 2, 60, 10 * MS);
    // 599,999,986 SM-ns on 60 SMs: 9,999,999.77 ns from 10 ms
    assertEquals(20 * MS, next(g.render()));
    assertEquals(new Completion<>("rt", 0, 10 * MS, 0, 20 * MS), only(g.render().eventDue(20 * MS)),
        "accounted only the 10 ms it progressed");
  }

  @Test
  void figure11c_theOriginalKernelRunsOnTheFreeSms_andSpreadsOntoTheHandedOverOnes() {
    SpaceShared g = figure11Frame1();
    g.render().resize(2, 60, false, 0);
    g.be().resize(2, 22, false, 0);
    g.render().execute(new Kernel<>("rt", 0, FIG11_RT, 0), 2, 60, 0);
    // unbound: spans the 50 SMs owned, 599,999,986 / 50 = 11,999,999.72 ns
    assertEquals(12 * MS, next(g.render()));
    g.render().grant(g.be().eventDue(10 * MS).handover().orElseThrow().sms(), 2, 60, 10 * MS);
    // by 10 ms it did 500,000,000; the 99,999,986 left on 60 SMs take 1,666,666.43 ns
    assertEquals(11_666_667, next(g.render()));
    assertEquals(11_666_667, only(g.render().eventDue(11_666_667)).finishedNanos());
    assertEquals(10.0 * MS * 50 + 1_666_667.0 * 60, g.render().figures().smBusyNanos(), "50 SMs for 10 ms, then 60");
  }

  @Test
  void exactLayoutChange_suspendsTheBeKernel_handsItsSmsOverAtOnce_andResumesItWhereItStopped() {
    SpaceShared g = figure11Frame1();
    g.render().resize(2, 60, false, 2 * MS);
    Step<String> suspended = g.be().resize(2, 22, true, 2 * MS);
    // the TC kernel did 2 ms × 32 = 64,000,000 of its 319,999,998 SM-ns and spans nothing now: 10 SMs over the target
    assertEquals(Optional.of(new Handover(10, 2, 60, 2 * MS)), suspended.handover());
    assertEquals(OptionalLong.empty(), g.be().nextEventAt(), "a suspended kernel makes no progress");
    g.be().execute(new Kernel<>("tc2", 1, FIG11_TC, 0), 2, 22, 2 * MS);
    assertEquals(1, g.be().queuedCount(), "nothing starts while suspended");
    g.render().execute(new Kernel<>("rt", 0, FIG11_RT, 60), 2, 60, 2 * MS);
    g.render().grant(10, 2, 60, 2 * MS);
    // 599,999,986 SM-ns on 60 SMs from 2 ms: 9,999,999.77 ns
    assertEquals(12 * MS, next(g.render()));
    assertEquals(12 * MS, only(g.render().eventDue(12 * MS)).finishedNanos());
    assertFalse(g.be().resumes(1), "an older layout does not end layout 2's suspension");
    assertTrue(g.be().resumes(2));
    g.be().resume(2, 12 * MS);
    // 255,999,998 SM-ns left on 22 SMs (beside tc2, a TC too: both at rate 1/2): 23,272,727.09 ns from 12 ms
    assertEquals(35_272_728, next(g.be()));
    Completion<String> tc = g.be().eventDue(35_272_728).completed().get(0);
    // accounted 2 ms alone, then half of the 23,272,728 ns shared
    assertEquals(new Completion<>("tc", 1, 2 * MS + 11_636_364, 0, 35_272_728), tc);
  }

  @Test
  void aShrinkingGroupKeepsTheSmsItsKernelSpans_andHandsThemOverWhenItEnds() {
    var render = new SmGroupModel<String>(SMS, SMS, 16, 0, FluidModel.of(ColocationTable.combo()), false);
    render.handOverSurplus();
    render.execute(cd("cd", 0, 4 * MS), 0, SMS, 0);
    assertEquals(Optional.empty(), render.resize(1, 41, false, 0).handover(), "the kernel spans all 82 SMs");
    assertEquals(82, render.sms());
    Step<String> ends = render.eventDue(4 * MS);
    assertEquals(Optional.of(new Handover(41, 1, 41, 4 * MS)), ends.handover());
    assertEquals(41, render.sms());
  }

  @Test
  void withoutASibling_theSurplusStays() {
    SmGroupModel<String> g = wholeGpu(1, 0);
    assertEquals(Optional.empty(), g.resize(1, 41, false, 0).handover());
    assertEquals(SMS, g.sms());
  }

  @Test
  void aGrantBeyondTheGpusSms_isAnError() {
    SmGroupModel<String> g = wholeGpu(1, 0);
    assertThrows(IllegalStateException.class, () -> g.grant(1, 1, SMS, 0));
  }
}
