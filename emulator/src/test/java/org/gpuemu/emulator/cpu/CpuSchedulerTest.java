package org.gpuemu.emulator.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestInbox;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.gpuemu.emulator.ManualTimeKit;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.policies.PolicyParams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * One core as an actor, on the test's time ({@link ManualTimeKit}): time stands still while the test reads an answer
 * and sends the next request, and moves only while it waits for one.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CpuSchedulerTest {
  private static final long MS = 1_000_000;
  /** Long enough for any answer here (model time). */
  private static final long WITHIN = 200 * MS;
  private final ManualTimeKit time = new ManualTimeKit();
  private final ActorTestKit kit = time.kit();

  @AfterAll
  void shutdown() {
    time.shutdown();
  }

  private RunContext context() {
    return time.immediate();
  }

  /** Returns once {@code core} has handled what it was sent (its report), its timers armed. */
  private Runnable settled(ActorRef<CpuScheduler.Command> core) {
    TestProbe<CpuScheduler.CoreReport> report = kit.createTestProbe();
    return () -> {
      core.tell(new CpuScheduler.Report(report.getRef()));
      report.receiveMessage();
    };
  }

  /** The next answer on {@code vcpus}, time moving until it comes. */
  private CpuScheduler.Done next(TestInbox<CpuScheduler.Done> vcpus, ActorRef<CpuScheduler.Command> core) {
    return time.next(vcpus, settled(core), WITHIN);
  }

  /**
   * The next answer on {@code vcpus}, whose guest then blocks: it releases the core at its request's end, as a VCpu
   * does when it asks for nothing more (a request's end is not a scheduling point).
   */
  private CpuScheduler.Done blocks(TestInbox<CpuScheduler.Done> vcpus, ActorRef<CpuScheduler.Command> core) {
    CpuScheduler.Done done = next(vcpus, core);
    core.tell(new CpuScheduler.Release(done.vcpu(), done.endNanos()));
    return done;
  }

  /** A core under the weighted-fair policy with this period and minimum granularity (1 ms wakeup granularity). */
  private ActorRef<CpuScheduler.Command> core(RunContext run, long period, long minGranularity) {
    return kit.spawn(CpuScheduler.create(0, () -> PolicyCatalog.builtIn().create(PolicyKind.CPU, "weighted-fair",
        PolicyParams.of(Map.of("period", period, "min-granularity", minGranularity, "wakeup-granularity", MS))), run));
  }

  /**
   * A context switch costs the core {@code switchNanos} before the incoming context runs (host.vcpu-switch): two
   * vCPUs alternating in 3 ms slices pay it at every slice but the first, and see it as steal time; a vCPU that asks
   * again at the very time its request ended (its guest's next step) was never switched out and pays nothing; one
   * that comes back after the core idled (a woken guest) pays it.
   */
  @Test
  void contextSwitch_costsTheCoreBeforeTheIncomingVcpuRuns_butNotAVcpuThatGoesOnAtOnce() {
    RunContext run = context();
    long sw = 100_000; // 0.1 ms, large enough to read off the due times
    ActorRef<CpuScheduler.Command> core = kit.spawn(CpuScheduler.create(0, PolicyCatalog.builtIn().create(
        PolicyKind.CPU, "weighted-fair", PolicyParams.of(Map.of("period", 6 * MS, "min-granularity", 3 * MS,
            "wakeup-granularity", MS))), run, sw));
    TestInbox<CpuScheduler.Done> vcpus = TestInbox.create();
    long start = run.now();
    core.tell(new CpuScheduler.Run(0, 1, 6 * MS, vcpus.getRef(), start));
    core.tell(new CpuScheduler.Run(1, 1, 6 * MS, vcpus.getRef(), start));
    CpuScheduler.Done first = blocks(vcpus, core);
    // vCPU 0 alone when picked: a 6 ms slice after the first start's switch (0.1 ms), ends at 6.1 ms; then vCPU 1
    // after a switch: 6.2 to 12.2 ms.
    assertEquals(start + 6 * MS + sw, first.endNanos());
    assertEquals(6 * MS, first.ranNanos(), "the switch is not the guest's progress");
    assertEquals(sw, first.stealNanos(), "to the guest, the switch is steal time");
    CpuScheduler.Done second = next(vcpus, core);
    assertEquals(start + 12 * MS + 2 * sw, second.endNanos());
    core.tell(new CpuScheduler.Run(1, 1, MS, vcpus.getRef(), second.endNanos()));
    assertEquals(second.endNanos() + MS, blocks(vcpus, core).endNanos(), "went on at once: no switch");
    long later = second.endNanos() + 5 * MS;
    core.tell(new CpuScheduler.Run(1, 1, MS, vcpus.getRef(), later));
    assertEquals(later + sw + MS, blocks(vcpus, core).endNanos(), "woken after the core idled: a switch");
  }

  /**
   * A request's end is not a scheduling point: a vCPU that goes on at once keeps the core for the rest of its
   * slice, although another vCPU is runnable with a smaller virtual runtime; when that slice runs out the other
   * one runs. (Before, the core re-picked at every request's end, so two vCPUs alternated at every guest step.)
   */
  @Test
  void requestEnd_isNoSchedulingPoint_theVcpuGoesOnWithinItsSlice() {
    RunContext run = context();
    ActorRef<CpuScheduler.Command> core = core(run, 6 * MS, 3 * MS);
    TestInbox<CpuScheduler.Done> vcpus = TestInbox.create();
    long start = run.now();
    core.tell(new CpuScheduler.Run(0, 1, MS, vcpus.getRef(), start));
    core.tell(new CpuScheduler.Run(1, 1, 10 * MS, vcpus.getRef(), start));
    // vCPU 0 alone at its pick: a 6 ms slice. Its 1 ms request ends at 1 ms; it asks for 1 ms more at once, twice:
    // it runs on to 3 ms, though vCPU 1 (runnable, virtual runtime 0) is behind it.
    CpuScheduler.Done a = next(vcpus, core);
    assertEquals(0, a.vcpu());
    core.tell(new CpuScheduler.Run(0, 1, MS, vcpus.getRef(), a.endNanos()));
    CpuScheduler.Done b = next(vcpus, core);
    assertEquals(0, b.vcpu());
    assertEquals(start + 2 * MS, b.endNanos());
    core.tell(new CpuScheduler.Run(0, 1, 20 * MS, vcpus.getRef(), b.endNanos()));
    // its slice (6 ms) runs out at 6 ms; only then does vCPU 1 run (its 10 ms end before vCPU 0's 20)
    CpuScheduler.Done next = next(vcpus, core);
    assertEquals(1, next.vcpu());
    assertTrue(next.stealNanos() >= 6 * MS, "vCPU 1 waited the whole of vCPU 0's slice: " + next.stealNanos());
  }

  /**
   * Host work (a GTT copy) preempts the running vCPU at once and runs its whole length, though the fair share's
   * slices are 3 ms; the preempted vCPU resumes after it and counts the host work as steal time.
   */
  @Test
  void hostWork_preemptsTheVcpuAndRunsToItsEnd_theVcpuCountsItAsSteal() {
    RunContext run = context();
    ActorRef<CpuScheduler.Command> core = core(run, 6 * MS, 3 * MS);
    TestInbox<CpuScheduler.Done> vcpus = TestInbox.create();
    TestInbox<CpuScheduler.Done> host = TestInbox.create();
    long start = run.now();
    core.tell(new CpuScheduler.Run(0, 1, 20 * MS, vcpus.getRef(), start));
    core.tell(new CpuScheduler.Run(1, 1, 20 * MS, vcpus.getRef(), start));
    core.tell(new CpuScheduler.HostRun(30 * MS, host.getRef(), start + 2 * MS));
    CpuScheduler.Done copy = next(host, core);
    assertEquals(CpuScheduler.HOST, copy.vcpu());
    assertEquals(30 * MS, copy.ranNanos());
    assertEquals(0, copy.stealNanos(), "nothing runs before host work");
    assertEquals(start + 32 * MS, copy.endNanos(), "one piece, from when it was asked");
    CpuScheduler.Done first = blocks(vcpus, core);
    CpuScheduler.Done second = blocks(vcpus, core);
    assertEquals(20 * MS, first.ranNanos());
    assertEquals(start + 70 * MS, second.endNanos(), "40 ms of vCPU work and 30 of host work, no gap");
    assertEquals(first.endNanos() - start - 20 * MS, first.stealNanos());
    assertEquals(50 * MS, second.stealNanos(), "the 30 ms of host work and the other vCPU's 20 ms");
  }

  /**
   * FairGV's coscheduling boost (Algorithm 4's resched_cpu) takes the core at the model time of the GPU switch it
   * carries, not when its message arrives: the boosted vCPU's 5 ms end at 2 + 5 ms, the preempted one's 2 ms.
   */
  @Test
  void boost_preemptsAtTheModelTimeItCarries() {
    RunContext run = context();
    ActorRef<CpuScheduler.Command> core = core(run, 20 * MS, 10 * MS);
    TestInbox<CpuScheduler.Done> vcpus = TestInbox.create();
    long start = run.now();
    core.tell(new CpuScheduler.Run(0, 1, 20 * MS, vcpus.getRef(), start));
    core.tell(new CpuScheduler.Run(1, 1, 5 * MS, vcpus.getRef(), start));
    core.tell(new CpuScheduler.Boost(1, start + 2 * MS));
    CpuScheduler.Done boosted = blocks(vcpus, core);
    assertEquals(1, boosted.vcpu());
    assertEquals(start + 7 * MS, boosted.endNanos(), "ran from the switch's 2 ms, whenever the Boost arrived");
    assertEquals(2 * MS, boosted.stealNanos());
    CpuScheduler.Done preempted = blocks(vcpus, core);
    assertEquals(start + 25 * MS, preempted.endNanos(), "2 ms before the boost, 18 after the boosted vCPU");
  }

  /**
   * Pegasus's strict coscheduling, CPU side (fairgv.txt Algorithm 1): every switch to a vCPU whose VM has a vGPU
   * asks the GPU scheduler to switch to that vGPU, at the switch's model time; a vCPU without a vGPU asks nothing.
   */
  @Test
  void strictCoscheduling_everySwitchToAVcpuWithAVgpu_asksTheGpuSchedulerForItsVgpu() {
    RunContext run = context();
    ActorRef<CpuScheduler.Command> core = core(run, 6 * MS, 3 * MS);
    TestInbox<CpuScheduler.SwitchedTo> gpu = TestInbox.create();
    TestInbox<CpuScheduler.Done> vcpus = TestInbox.create();
    core.tell(new CpuScheduler.CoscheduleGpu(gpu.getRef(), Map.of(0, 5, 1, 6)));
    long start = run.now();
    core.tell(new CpuScheduler.Run(0, 1, 6 * MS, vcpus.getRef(), start));
    core.tell(new CpuScheduler.Run(1, 1, 6 * MS, vcpus.getRef(), start));
    core.tell(new CpuScheduler.Run(2, 1, 6 * MS, vcpus.getRef(), start));
    for (int i = 0; i < 3; i++) blocks(vcpus, core);

    // vCPU 0, alone when it was picked, has a whole 6 ms period; then vCPUs 1 and 2 alternate in 3 ms slices
    // (period 6 ms over two): 1 at 6 ms, 2 at 9, 1 at 12, 2 at 15. Three switches to a vCPU with a vGPU, three
    // requests at their switches' model times; vCPU 2's two switches ask nothing.
    // and none after them: the core idles from 18 ms on, and 100 ms more bring nothing
    time.pass(100 * MS, settled(core));
    List<String> picked = new ArrayList<>();
    for (CpuScheduler.SwitchedTo p : gpu.getAllReceived()) {
      picked.add(p.vgpu() + " at " + (p.atNanos() - start) / MS + " ms");
    }
    assertEquals(List.of("5 at 0 ms", "6 at 6 ms", "6 at 12 ms"), picked);
  }
}
