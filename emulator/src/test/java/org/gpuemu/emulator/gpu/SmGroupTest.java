package org.gpuemu.emulator.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.gpuemu.emulator.clock.ScaledClock;
import org.gpuemu.emulator.clock.TimerLateness;
import org.gpuemu.emulator.cpu.CpuScheduler;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.run.Runner;
import org.gpuemu.workloads.KernelSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The SM group in real (scaled) time; assertions use the model's due times, which do not depend on lateness. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SmGroupTest {
  private static final long MS = 1_000_000;
  private final ActorTestKit kit = ActorTestKit.create(Runner.pekkoConfig());

  @AfterAll
  void shutdown() {
    kit.shutdownTestKit();
  }

  private RunContext context() {
    ScaledClock clock = new ScaledClock(1.0);
    return new RunContext(clock, new TimerLateness(clock));
  }

  @Test
  void nonPreemptive_aShortKernelWaitsForTheLongOneAndTheContextSwitch() {
    RunContext run = context();
    ActorRef<SmGroup.Command> group = kit.spawn(SmGroup.create(
        new SmGroup.Spec(82, 82, 1, MS / 2, FluidModel.sharedEqually()), run));
    TestProbe<SmGroup.Finished> probe = kit.createTestProbe();
    group.tell(new SmGroup.Execute(1, 0, KernelSpec.cd("long", 20 * MS), probe.getRef()));
    group.tell(new SmGroup.Execute(2, 1, KernelSpec.cd("short", MS), probe.getRef()));
    SmGroup.Finished first = probe.receiveMessage();
    SmGroup.Finished second = probe.receiveMessage();
    assertEquals(1, first.workId(), "the long kernel, once started, is not preempted");
    assertEquals(20 * MS, first.finishedNanos() - first.startedNanos());
    assertEquals(first.finishedNanos() + MS / 2, second.startedNanos(), "starts after the 0.5 ms context switch");
    assertEquals(MS, second.gpuNanos(), "accounted exactly its own duration");
  }

  @Test
  void gttCopy_aSwitchWaitsForTheCopyOnAHostCore_thenPaysTheContextSwitch() {
    RunContext run = context();
    TestProbe<GpuMemory.Command> memory = kit.createTestProbe();
    TestProbe<CpuScheduler.Command> core = kit.createTestProbe();
    ActorRef<SmGroup.Command> group = kit.spawn(SmGroup.create(
        new SmGroup.Spec(82, 82, 1, MS / 2, FluidModel.sharedEqually()),
        new SmGroup.GttCopies(memory.getRef(), java.util.List.of(core.getRef())), run));
    TestProbe<SmGroup.Finished> probe = kit.createTestProbe();
    group.tell(new SmGroup.Execute(1, 0, KernelSpec.cd("a", 2 * MS), probe.getRef()));
    group.tell(new SmGroup.Execute(2, 1, KernelSpec.cd("b", MS), probe.getRef()));
    SmGroup.Finished a = probe.receiveMessage();
    // loading vGPU 1: the memory prices its GTT copy, a host core runs it, and nothing of vGPU 1 runs meanwhile
    GpuMemory.SwitchTo ask = memory.expectMessageClass(GpuMemory.SwitchTo.class);
    assertEquals(1, ask.vm());
    ask.replyTo().tell(new GpuMemory.CopyCost(1, 3 * MS));
    CpuScheduler.HostRun copy = core.expectMessageClass(CpuScheduler.HostRun.class);
    assertEquals(3 * MS, copy.nanos());
    probe.expectNoMessage(java.time.Duration.ofMillis(50));
    long copied = a.finishedNanos() + 3 * MS;
    copy.replyTo().tell(new CpuScheduler.Done(CpuScheduler.HOST, 3 * MS, 0, copied, 0));
    assertEquals(3 * MS, memory.expectMessageClass(GpuMemory.CopyTime.class).cpuNanos());
    SmGroup.Finished b = probe.receiveMessage();
    assertEquals(copied + MS / 2, b.startedNanos(), "the context switch follows the copy");
    assertEquals(MS, b.gpuNanos());
  }

  @Test
  void concurrentKernels_shareTheSmsAndTheirAccountedTimesAddUpToBusyTime() {
    RunContext run = context();
    ActorRef<SmGroup.Command> group = kit.spawn(SmGroup.create(
        new SmGroup.Spec(82, 82, 2, 0, FluidModel.sharedEqually()), run));
    TestProbe<SmGroup.Finished> probe = kit.createTestProbe();
    group.tell(new SmGroup.Execute(1, 0, KernelSpec.cd("a", 4 * MS), probe.getRef()));
    group.tell(new SmGroup.Execute(2, 0, KernelSpec.cd("b", 4 * MS), probe.getRef()));
    SmGroup.Finished a = probe.receiveMessage();
    SmGroup.Finished b = probe.receiveMessage();
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
    TestProbe<SmGroup.Finished> probe = kit.createTestProbe();
    group.tell(new SmGroup.Execute(1, 0, KernelSpec.cd("k", 3 * MS), probe.getRef()));
    SmGroup.Finished f = probe.receiveMessage();
    assertEquals(6 * MS, f.finishedNanos() - f.startedNanos());
  }
}
