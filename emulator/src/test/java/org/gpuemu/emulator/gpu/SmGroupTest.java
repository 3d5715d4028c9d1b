package org.gpuemu.emulator.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestInbox;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.gpuemu.emulator.ManualTimeKit;
import org.gpuemu.emulator.cpu.CpuScheduler;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.workloads.KernelSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The SM group as an actor, on the test's time ({@link ManualTimeKit}): the kernels arrive at model time 0 and time
 * moves only while the test waits for an answer.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SmGroupTest {
  private static final long MS = 1_000_000;
  /** Long enough for any kernel here (model time). */
  private static final long WITHIN = 100 * MS;
  private final ManualTimeKit time = new ManualTimeKit();
  private final ActorTestKit kit = time.kit();

  @AfterAll
  void shutdown() {
    time.shutdown();
  }

  private RunContext context() {
    return time.immediate();
  }

  /** Returns once {@code group} has handled what it was sent (its report), its timer armed. */
  private Runnable settled(ActorRef<SmGroup.Command> group) {
    TestProbe<SmGroup.GroupReport> report = kit.createTestProbe();
    return () -> {
      group.tell(new SmGroup.Report(report.getRef()));
      report.receiveMessage();
    };
  }

  @Test
  void nonPreemptive_aShortKernelWaitsForTheLongOneAndTheContextSwitch() {
    RunContext run = context();
    ActorRef<SmGroup.Command> group = kit.spawn(SmGroup.create(
        new SmGroup.Spec(82, 82, 1, MS / 2, FluidModel.sharedEqually()), run));
    TestInbox<SmGroup.Finished> probe = TestInbox.create();
    group.tell(new SmGroup.Execute(1, 0, KernelSpec.cd("long", 20 * MS), probe.getRef()));
    group.tell(new SmGroup.Execute(2, 1, KernelSpec.cd("short", MS), probe.getRef()));
    SmGroup.Finished first = time.next(probe, settled(group), WITHIN);
    SmGroup.Finished second = time.next(probe, settled(group), WITHIN);
    assertEquals(1, first.workId(), "the long kernel, once started, is not preempted");
    assertEquals(20 * MS, first.finishedNanos() - first.startedNanos());
    assertEquals(first.finishedNanos() + MS / 2, second.startedNanos(), "starts after the 0.5 ms context switch");
    assertEquals(MS, second.gpuNanos(), "accounted exactly its own duration");
  }

  @Test
  void gttCopy_aSwitchWaitsForTheCopyOnAHostCore_thenPaysTheContextSwitch() {
    RunContext run = context();
    TestInbox<GpuMemory.Command> memory = TestInbox.create();
    TestInbox<CpuScheduler.Command> core = TestInbox.create();
    ActorRef<SmGroup.Command> group = kit.spawn(SmGroup.create(
        new SmGroup.Spec(82, 82, 1, MS / 2, FluidModel.sharedEqually()),
        new SmGroup.GttCopies(memory.getRef(), java.util.List.of(core.getRef())), run));
    TestInbox<SmGroup.Finished> probe = TestInbox.create();
    group.tell(new SmGroup.Execute(1, 0, KernelSpec.cd("a", 2 * MS), probe.getRef()));
    group.tell(new SmGroup.Execute(2, 1, KernelSpec.cd("b", MS), probe.getRef()));
    Runnable settled = settled(group);
    SmGroup.Finished a = time.next(probe, settled, WITHIN);
    // loading vGPU 1: the memory prices its GTT copy, a host core runs it, and nothing of vGPU 1 runs meanwhile
    GpuMemory.SwitchTo ask = (GpuMemory.SwitchTo) memory.receiveMessage();
    assertEquals(1, ask.vm());
    ask.replyTo().tell(new GpuMemory.CopyCost(1, 3 * MS));
    CpuScheduler.HostRun copy = (CpuScheduler.HostRun) time.next(core, settled, WITHIN);
    assertEquals(3 * MS, copy.nanos());
    time.pass(50 * MS, settled); // 50 ms of model time without the copy's end: vGPU 1's kernel does not start
    assertFalse(probe.hasMessages(), "nothing of vGPU 1 runs before its GTT copy");
    long copied = a.finishedNanos() + 3 * MS;
    copy.replyTo().tell(new CpuScheduler.Done(CpuScheduler.HOST, 3 * MS, 0, copied, 0));
    SmGroup.Finished b = time.next(probe, settled, WITHIN);
    assertEquals(3 * MS, ((GpuMemory.CopyTime) memory.receiveMessage()).cpuNanos());
    assertEquals(copied + MS / 2, b.startedNanos(), "the context switch follows the copy");
    assertEquals(MS, b.gpuNanos());
  }

  @Test
  void concurrentKernels_shareTheSmsAndTheirAccountedTimesAddUpToBusyTime() {
    RunContext run = context();
    ActorRef<SmGroup.Command> group = kit.spawn(SmGroup.create(
        new SmGroup.Spec(82, 82, 2, 0, FluidModel.sharedEqually()), run));
    TestInbox<SmGroup.Finished> probe = TestInbox.create();
    group.tell(new SmGroup.Execute(1, 0, KernelSpec.cd("a", 4 * MS), probe.getRef()));
    group.tell(new SmGroup.Execute(2, 0, KernelSpec.cd("b", 4 * MS), probe.getRef()));
    SmGroup.Finished a = time.next(probe, settled(group), WITHIN);
    SmGroup.Finished b = time.next(probe, settled(group), WITHIN);
    TestProbe<SmGroup.GroupReport> report = kit.createTestProbe();
    group.tell(new SmGroup.Report(report.getRef()));
    SmGroup.GroupReport r = report.receiveMessage();
    assertEquals(2, r.kernelsCompleted());
    // sharing equally, both finish at about 8 ms; each is accounted about half of the busy time
    long busy = r.kernelBusyNanos();
    assertTrue(Math.abs(a.gpuNanos() + b.gpuNanos() - busy) <= 2, "conserved: " + a + b + r);
    assertTrue(busy >= 8 * MS - 2 && busy <= 8 * MS + MS, "busy " + busy);
  }

  @Test
  void halfTheSms_doubleTheDuration() {
    RunContext run = context();
    ActorRef<SmGroup.Command> group = kit.spawn(SmGroup.create(
        new SmGroup.Spec(41, 82, 1, 0, FluidModel.sharedEqually()), run));
    TestInbox<SmGroup.Finished> probe = TestInbox.create();
    group.tell(new SmGroup.Execute(1, 0, KernelSpec.cd("k", 3 * MS), probe.getRef()));
    SmGroup.Finished f = time.next(probe, settled(group), WITHIN);
    assertEquals(6 * MS, f.finishedNanos() - f.startedNanos());
  }
}
