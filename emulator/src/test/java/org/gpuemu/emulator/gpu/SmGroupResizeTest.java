package org.gpuemu.emulator.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyKind;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestInbox;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.gpuemu.emulator.ManualTimeKit;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.workloads.KernelSpec;
import org.gpuemu.workloads.KernelType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * combo.txt Figure 11 with the space-shared {@link PhysicalGpu}'s two SM groups as actors: frame 1 renders on 50 of
 * 82 SMs while a TC kernel holds the other 32; frame 2 needs 60 SMs, but the TC kernel is still running when frame
 * 2's RT kernel starts. The SM-bound kernel (11b) waits for SMs 51-60 until the TC kernel ends and then needs its
 * whole duration; the original kernel (11c) runs on the 50 SMs it has and spreads to the others as the BE group
 * hands them over. Time is the test's ({@link ManualTimeKit}): it stands at 0 while the test lays frame 2 out, as the
 * messages say, and moves only while the test waits for a kernel to finish.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SmGroupResizeTest {
  private static final long MS = 1_000_000;
  private static final int SMS = 82;
  /** 10 ms on the BE group's 32 SMs: 320 SM-ms of work. */
  private static final KernelSpec TC = new KernelSpec("tc", KernelType.TC, 656, 3_902_439);
  /** 600 SM-ms of work: 10 ms on 60 SMs, 12 ms on 50. */
  private static final KernelSpec RT = new KernelSpec("rt", KernelType.RT, 28_800, 7_317_073);
  /** Long enough for any kernel here (model time). */
  private static final long WITHIN = 100 * MS;
  private final ManualTimeKit time = new ManualTimeKit();
  private final ActorTestKit kit = time.kit();

  @AfterAll
  void shutdown() {
    time.shutdown();
  }

  private record Gpu(ActorRef<PhysicalGpu.Command> gpu, ActorRef<SmGroup.Command> render,
      ActorRef<SmGroup.Command> be) {}

  private Gpu spaceSharedGpu() {
    RunContext run = time.immediate();
    TestProbe<PhysicalGpu.Ready> ready = kit.createTestProbe();
    kit.spawn(PhysicalGpu.create(new Settings.Gpu(SMS, 1L << 32, 0, 1), true, new PhysicalGpu.Memory(
        PolicyCatalog.builtIn().create(PolicyKind.MEMORY, "static", PolicyParams.of(java.util.Map.of())), false, null),
        run, ready.getRef()));
    PhysicalGpu.Ready r = ready.receiveMessage();
    assertEquals(2, r.smGroups().size(), "a render group and a BE group");
    return new Gpu(r.gpu(), r.smGroups().get(0), r.smGroups().get(1));
  }

  /**
   * Returns once the GPU has passed its layouts on and both groups have handled what they were sent (the GPU's
   * answer, then a report from each), with their timers armed.
   */
  private Runnable settled(Gpu g) {
    TestProbe<PhysicalGpu.Ready> units = kit.createTestProbe();
    TestProbe<SmGroup.GroupReport> report = kit.createTestProbe();
    return () -> {
      g.gpu().tell(new PhysicalGpu.Units(units.getRef()));
      units.receiveMessage();
      g.render().tell(new SmGroup.Report(report.getRef()));
      g.be().tell(new SmGroup.Report(report.getRef()));
      report.receiveSeveralMessages(2);
    };
  }

  private void awaitSms(ActorRef<SmGroup.Command> group, int sms) {
    TestProbe<SmGroup.GroupReport> report = kit.createTestProbe();
    for (int i = 0; i < 1_000; i++) {
      group.tell(new SmGroup.Report(report.getRef()));
      if (report.receiveMessage().sms() == sms) return;
    }
    throw new AssertionError("the group never owned " + sms + " SMs");
  }

  /** Frame 1's layout (50 / 32) with the TC kernel on the BE group, then frame 2's (60 / 22) and its RT kernel. */
  private SmGroup.Finished frame2(int boundSms) {
    Gpu g = spaceSharedGpu();
    TestInbox<SmGroup.Finished> be = TestInbox.create();
    TestInbox<SmGroup.Finished> render = TestInbox.create();
    g.gpu().tell(new PhysicalGpu.Layout(1, 50, 32, 0));
    g.be().tell(new SmGroup.Execute(1, 1, TC, be.getRef(), 0, new SmGroup.Bind(1, 32, 0)));
    awaitSms(g.be(), 32); // frame 1: the render group has handed the BE group its 32 SMs
    g.gpu().tell(new PhysicalGpu.Layout(2, 60, 22, 0));
    g.render().tell(new SmGroup.Execute(2, 0, RT, render.getRef(), 0, new SmGroup.Bind(2, 60, boundSms)));
    SmGroup.Finished tc = time.next(be, settled(g), WITHIN);
    assertEquals(10 * MS, tc.finishedNanos(), 2_000, "the TC kernel keeps its 32 SMs to the end");
    return time.next(render, settled(g), WITHIN);
  }

  @Test
  void figure11b_anSmBoundRenderKernelWaitsForTheSmsABeKernelStillHolds() {
    SmGroup.Finished rt = frame2(60);
    // blocks bound to SMs 51-60 start when the TC kernel frees them at 10 ms and need 10 ms on 60 SMs
    assertEquals(20 * MS, rt.finishedNanos(), 2_000);
  }

  @Test
  void figure11c_theOriginalKernelRunsOnTheFreeSmsAndSpreadsAsTheyAreHandedOver() {
    SmGroup.Finished rt = frame2(0);
    // 500 SM-ms on 50 SMs by 10 ms, the last 100 on 60 SMs: 11.67 ms, not 20
    assertEquals(11_666_667, rt.finishedNanos(), 2_000);
    assertTrue(rt.finishedNanos() < 20 * MS);
  }

  @Test
  void anExactLayoutChange_suspendsTheBeGroupsKernels_soTheRenderGroupHasItsSmsAtOnce_andResumesThemAfterTheFrame() {
    // §5.2: "each time a change occurs, the BE task is blocked during the frame" (SpaceSharingPolicy's suspendBe)
    Gpu g = spaceSharedGpu();
    TestInbox<SmGroup.Finished> be = TestInbox.create();
    TestInbox<SmGroup.Finished> render = TestInbox.create();
    g.gpu().tell(new PhysicalGpu.Layout(1, 50, 32, 0));
    g.be().tell(new SmGroup.Execute(1, 1, TC, be.getRef(), 0, new SmGroup.Bind(1, 32, 0)));
    awaitSms(g.be(), 32);
    // frame 2 starts at 2 ms: the TC kernel has done 64 of its 320 SM-ms and stops, handing SMs 51-60 over at once
    g.gpu().tell(new PhysicalGpu.Layout(2, 60, 22, 2 * MS, true));
    g.render().tell(new SmGroup.Execute(2, 0, RT, render.getRef(), 2 * MS, new SmGroup.Bind(2, 60, 60)));
    SmGroup.Finished rt = time.next(render, settled(g), WITHIN);
    assertEquals(12 * MS, rt.finishedNanos(), 2_000, "even the SM-bound kernel needs only its 10 ms");
    time.pass(20 * MS, settled(g)); // 20 ms more of model time: the suspended TC kernel does not finish
    assertFalse(be.hasMessages(), "suspended until the frame has rendered");
    g.gpu().tell(new PhysicalGpu.ResumeBe(2, rt.finishedNanos()));
    // the 256 SM-ms left on the BE group's 22 SMs from 12 ms on
    assertEquals(12 * MS + 256 * MS / 22, time.next(be, settled(g), WITHIN).finishedNanos(), 2_000);
  }

  @Test
  void aShrinkingGroupHandsItsSurplusOver_assoonAsNoKernelSpansIt() {
    Gpu g = spaceSharedGpu();
    TestInbox<SmGroup.Finished> probe = TestInbox.create();
    // the whole GPU renders; a BE kernel for the BE group waits until the render group hands SMs over
    g.render().tell(new SmGroup.Execute(1, 0, new KernelSpec("cd", KernelType.CD, 1, 4 * MS), probe.getRef(), 0,
        new SmGroup.Bind(0, SMS, 0)));
    g.gpu().tell(new PhysicalGpu.Layout(1, 41, 41, 0));
    g.be().tell(new SmGroup.Execute(2, 1, new KernelSpec("tc", KernelType.TC, 1, 2 * MS), probe.getRef(), 0,
        new SmGroup.Bind(1, 41, 0)));
    SmGroup.Finished first = time.next(probe, settled(g), WITHIN);
    SmGroup.Finished second = time.next(probe, settled(g), WITHIN);
    assertEquals(1, first.workId());
    assertEquals(4 * MS, first.finishedNanos(), 2_000, "the running kernel keeps all 82 SMs");
    // the TC kernel starts when the 41 SMs come, at 4 ms, and takes 2 ms × 82 / 41
    assertEquals(8 * MS, second.finishedNanos(), 2_000);
  }
}
