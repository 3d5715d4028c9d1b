package org.gpuemu.emulator.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyKind;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestInbox;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.gpuemu.emulator.ManualTimeKit;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.gpu.FluidModel;
import org.gpuemu.emulator.faults.RequestHistory;
import org.gpuemu.emulator.gpu.GpuMemory;
import org.gpuemu.emulator.gpu.GpuScheduler;
import org.gpuemu.emulator.gpu.PolicyParts;
import org.gpuemu.emulator.gpu.Scheduling;
import org.gpuemu.emulator.gpu.SmGroup;
import org.gpuemu.emulator.cpu.CpuScheduler;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.metrics.MetricsPorts;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.clock.Timed;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.gpu.VgpuParams;
import org.gpuemu.workloads.KernelSpec;
import org.gpuemu.workloads.Program;
import org.gpuemu.workloads.Step;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The request path vCPU → vGPU → scheduler → SM group → vGPU → vCPU, with real actors under the run's conservative
 * order, on the test's time ({@link ManualTimeKit}): the model runs from event to event as fast as the actors go, and
 * the test reads its state when it has stopped.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RequestPathTest {
  @org.junit.jupiter.api.io.TempDir static Path tmp;
  private static int rigs;
  private static final long MS = 1_000_000;
  private static final int DRIVER_QUEUE = 2;
  /** Longer than any test here runs (model time). */
  private static final long WITHIN = 10_000 * MS;
  private final ManualTimeKit time = new ManualTimeKit();
  private final ActorTestKit kit = time.kit();

  @AfterAll
  void shutdown() {
    time.shutdown();
  }

  /** The stamped event that starts a test's vCPUs. */
  private record Go(long due) implements Timed {}

  /** Arm the start ({@link Rig#start}); {@code replyTo} hears once it is armed. */
  private record Armed(ActorRef<Armed> replyTo) {}

  /** One core, one GPU, one VM whose vCPUs run the given programs. */
  private final class Rig {
    final RunContext run;
    /** The checker's record of the VM's requests. */
    final RequestHistory history = new RequestHistory(List.of("vm"));
    final ActorRef<CpuScheduler.Command> core;
    final ActorRef<VGpu.Command> vgpu;
    final ActorRef<GpuMemory.Command> memory;
    final MetricsPorts ports;
    final ActorRef<MetricsHub.Command> metrics;
    final ActorRef<GuestAgent.Command> agent;
    final Settings.Vm vm;

    Rig(Settings.SyncWait wait, int commandBuffer) throws Exception {
      this(wait, commandBuffer, DRIVER_QUEUE);
    }

    Rig(Settings.SyncWait wait, int commandBuffer, int driverQueue) throws Exception {
      this(wait, commandBuffer, driverQueue, Slicer.NONE);
    }

    Rig(Settings.SyncWait wait, int commandBuffer, int driverQueue, Slicer slicer) throws Exception {
      // the conservative causal order, as every run has it: model times are exact, so the path's timings do not
      // stretch with a loaded machine; the vCPUs are started by one stamped event (start), as the guardian does
      run = time.conservative();
      vm = Settings.Vm.builder(0, "vm", "cuda-loop", List.of(0, 0)).memoryCap(1L << 30).syncWait(wait, 100_000)
          .buffers(commandBuffer, driverQueue).slaFps(30).build();
      core = kit.spawn(CpuScheduler.create(0, () -> PolicyCatalog.builtIn().create(PolicyKind.CPU, "weighted-fair",
          PolicyParams.of(Map.of("period", 6 * MS, "min-granularity", 750_000L, "wakeup-granularity", MS))), run));
      ActorRef<SmGroup.Command> group = kit.spawn(SmGroup.create(new SmGroup.Spec(82, 82, 1, 0,
          FluidModel.sharedEqually()), run));
      memory = kit.spawn(GpuMemory.create(PolicyCatalog.builtIn().create(PolicyKind.MEMORY, "static", PolicyParams.empty()), false, run));
      memory.tell(new GpuMemory.Join(0, "vm", 1L << 30));
      Path timeline = tmp.resolve("timeline-" + (rigs++) + ".jsonl");
      ports = new MetricsPorts(run);
      metrics = kit.spawn(MetricsHub.create(List.of(new MetricsHub.VmInfo(0, "vm", 30, 1)), 1_000 * MS, timeline, run,
          ports));
      ActorRef<Scheduling.Command> scheduler = kit.spawn(GpuScheduler.create(() -> PolicyCatalog.builtIn().create(
          PolicyKind.GPU, "fcfs", PolicyParams.of(Map.of("max-inflight", 2L))), new GpuScheduler.Wiring(
          p -> PolicyParts.NONE, metrics, List.of(core), Map.of()), run)).narrow();
      vgpu = kit.spawn(VGpu.create(new VGpu.Settings(new VgpuParams(0, "vm", 1), commandBuffer, driverQueue,
          Long.MAX_VALUE, slicer, false), new VGpu.Peers(scheduler, null, group, ports.gpuTime(0)), run, history));
      agent = kit.spawn(GuestAgent.create(vm, new GuestAgent.Peers(vgpu, scheduler, ports.presents(0)), run,
          history));
    }

    ActorRef<VCpu.Command> vcpu(int index, Step... steps) {
      ArrayDeque<Step> queue = new ArrayDeque<>(List.of(steps));
      Program program = now -> queue.poll();
      return kit.spawn(VCpu.create(new VCpu.Spec(index, vm, () -> program), new VCpu.Peers(core, vgpu,
          agent, memory, metrics, ports.frames(0), null), run, VcpuReports.NONE, history, null));
    }

    /** Starts the vCPU, runs the model until its program's steps are done, returns its report. */
    VcpuReport runToEnd(ActorRef<VCpu.Command> vcpu) {
      TestInbox<VCpu.Stopped> stopped = TestInbox.create();
      start(() -> {
        vcpu.tell(VCpu.Start.INSTANCE);
        vcpu.tell(new VCpu.Stop(stopped.getRef()));
      });
      runUntil(stopped::hasMessages);
      return report(vcpu);
    }

    /** Runs the model, event after event, until {@code until} holds. */
    void runUntil(BooleanSupplier until) {
      runUntil(() -> { }, until);
    }

    /** As {@link #runUntil(BooleanSupplier)}, {@code handled} returning once the messages from outside are handled. */
    void runUntil(Runnable handled, BooleanSupplier until) {
      Runnable caughtUp = time.caughtUp();
      time.advanceUntil(until, () -> {
        handled.run();
        caughtUp.run();
      }, WITHIN);
    }

    /** Lets {@code nanos} of model time pass, {@code handled} as in {@link #runUntil(Runnable, BooleanSupplier)}. */
    void pass(Runnable handled, long nanos) {
      Runnable caughtUp = time.caughtUp();
      time.pass(nanos, () -> {
        handled.run();
        caughtUp.run();
      });
    }

    /**
     * Runs {@code sends} as one event of the model, 1 ms after now, as the guardian starts a VM: every message it
     * sends carries that event's stamp, so their order at the receivers is the model's, not the test thread's (two
     * vCPUs started by unstamped messages from the test would each take the clock's present on arrival, and the
     * skew between the two tells would decide a wake-up preemption).
     */
    void start(Runnable sends) {
      long due = run.clock().nowNanos() + MS;
      TestProbe<Armed> armed = kit.createTestProbe();
      ActorRef<Object> go = kit.spawn(Behaviors.setup(ctx -> Behaviors.withTimers(timers -> run.causal(
          Behaviors.receive(Object.class)
              .onMessage(Armed.class, m -> {
                // armed inside an event of the run, so that the order counts it before time moves
                run.arm(timers, "go", new Go(due), due);
                m.replyTo().tell(m);
                return Behaviors.same();
              })
              .onMessage(Go.class, g -> {
                run.fired(g.due());
                sends.run();
                return Behaviors.stopped();
              })
              .build()))));
      go.tell(new Armed(armed.getRef()));
      armed.receiveMessage();
    }

    VcpuReport report(ActorRef<VCpu.Command> vcpu) {
      TestProbe<VcpuReport> probe = kit.createTestProbe();
      vcpu.tell(new VCpu.Report(probe.getRef()));
      return probe.receiveMessage();
    }

    VGpu.VgpuReport vgpuReport() {
      TestProbe<VGpu.VgpuReport> probe = kit.createTestProbe();
      vgpu.tell(new VGpu.Report(probe.getRef()));
      return probe.receiveMessage();
    }
  }

  @Test
  void syncCall_polling_keepsTheCoreForTheWholeWait() throws Exception {
    Rig rig = new Rig(Settings.SyncWait.POLL, 2);
    VcpuReport r = rig.runToEnd(rig.vcpu(0, new Step.SyncCall(KernelSpec.cd("copy", 30 * MS))));
    // polling spins on the core until the 30 ms call answers
    assertTrue(r.ranNanos() >= 29 * MS && r.ranNanos() <= 45 * MS, "ran " + r.ranNanos());
    assertEquals(1, rig.vgpuReport().completed());
  }

  /** FairGV's kernel slicing in the vGPU: the guest's one call completes, and counts, when its last part does. */
  @Test
  void slicedKernel_runsAsSubKernels_andCompletesTheGuestsCallOnceWithTheLast() throws Exception {
    Slicer thirds = k -> List.of(KernelSpec.cd(k.name() + "#1", 10 * MS), KernelSpec.cd(k.name() + "#2", 10 * MS),
        KernelSpec.cd(k.name() + "#3", 10 * MS));
    Rig rig = new Rig(Settings.SyncWait.POLL, 2, DRIVER_QUEUE, thirds);
    VcpuReport r = rig.runToEnd(rig.vcpu(0, new Step.SyncCall(KernelSpec.cd("long", 30 * MS))));
    // the guest polls until the third sub-kernel ends, not the first
    assertTrue(r.ranNanos() >= 29 * MS && r.ranNanos() <= 45 * MS, "ran " + r.ranNanos());
    VGpu.VgpuReport g = rig.vgpuReport();
    assertEquals(1, g.submitted());
    assertEquals(1, g.completed());
    assertEquals(1, g.kernelsCompleted());
    assertEquals(30 * MS, g.gpuBusyNanos(), MS / 10.0, "all three parts ran");
  }

  /**
   * Issue 18's message faults, the vGPU's side: every copy of a request over a faulty channel is acknowledged, the
   * request runs and answers once however many copies come, and a copy after the guest's give-up is dropped unseen.
   */
  @Test
  void transmittedTwice_isAcknowledgedTwice_runsOnce_andACopyAfterTheGiveUpIsDropped() throws Exception {
    Rig rig = new Rig(Settings.SyncWait.POLL, 2);
    TestInbox<VCpu.Command> guest = TestInbox.create();
    long id = rig.history.submitted(0, 0);
    VGpu.Transmitted copy = new VGpu.Transmitted(new VGpu.Sync(KernelSpec.cd("k", 5 * MS), 0, guest.getRef(), -1, id),
        id, Long.MAX_VALUE, guest.getRef());
    rig.vgpu.tell(copy);
    rig.vgpu.tell(copy);
    // the copies come from outside the model: the vGPU has handled them once it answers the test's report
    Runnable handled = () -> rig.vgpuReport();
    List<VCpu.Command> got = new ArrayList<>();
    rig.runUntil(handled, () -> {
      got.addAll(guest.getAllReceived());
      return got.size() >= 3;
    });
    assertEquals(3, got.size(), got.toString());
    assertEquals(2, got.stream().filter(m -> m.equals(new VCpu.Received(id))).count(), got.toString());
    assertEquals(1, got.stream().filter(m -> m instanceof VCpu.SyncReturned).count(), got.toString());
    rig.pass(handled, 100 * MS);
    assertEquals(List.of(), guest.getAllReceived(), "one answer, however many copies");
    long late = rig.history.submitted(0, 0);
    rig.vgpu.tell(new VGpu.Transmitted(new VGpu.Launch(KernelSpec.cd("k", MS), 0, -1, late), late, 0,
        guest.getRef()));
    rig.pass(handled, 100 * MS);
    assertEquals(List.of(), guest.getAllReceived(), "a copy after the give-up is dropped unseen");
    VGpu.VgpuReport g = rig.vgpuReport();
    assertEquals(1, g.submitted(), "the second copy and the late one never reach the ring");
    assertEquals(1, g.kernelsCompleted());
    RequestHistory.VmHistory h = rig.history.snapshot().vms().get(0);
    assertEquals(1, h.completed());
    assertEquals(0, h.duplicated());
    assertEquals(1, h.lost(), "the late request stays the guest's to fail (its channel's timeout does)");
  }

  @Test
  void syncCall_hybridSpinning_yieldsTheCoreAfterTheSpinLimit() throws Exception {
    Rig rig = new Rig(Settings.SyncWait.HYBRID, 2);
    VcpuReport r = rig.runToEnd(rig.vcpu(0, new Step.SyncCall(KernelSpec.cd("copy", 30 * MS))));
    // 100 us of spinning, then blocked off-core, then 1 us to wake: far less than the 30 ms wait
    assertTrue(r.ranNanos() >= 100_000 && r.ranNanos() <= 2 * MS, "ran " + r.ranNanos());
    assertTrue(r.maxStallNanos() >= 30 * MS, "the vCPU was blocked for the whole call: " + r.maxStallNanos());
  }

  /**
   * {@code sync-wait = yield} (FairGV's Credit-hs, §5.4.3: "the waiting VM yields the CPU"): after each spin the
   * vCPU yields and stays runnable, so beside a CPU-bound vCPU on its core it keeps taking turns (CFS's yield only
   * skips it while the other is within the wakeup granularity of it) and spins for about half the call's 30 ms, where
   * a hybrid spinner blocks after 100 us.
   */
  @Test
  void syncCall_yielding_staysRunnable_andSpinsInTurnsBesideABusyVcpu() throws Exception {
    Rig rig = new Rig(Settings.SyncWait.YIELD, 2);
    ActorRef<VCpu.Command> a = rig.vcpu(0, new Step.SyncCall(KernelSpec.cd("copy", 30 * MS)));
    ActorRef<VCpu.Command> b = rig.vcpu(1, new Step.CpuBurst(60 * MS));
    rig.start(() -> {
      a.tell(VCpu.Start.INSTANCE);
      b.tell(VCpu.Start.INSTANCE);
    });
    rig.runUntil(() -> rig.report(a).steps() == 1 && rig.report(b).ranNanos() == 60 * MS);
    VcpuReport ra = rig.report(a);
    assertTrue(ra.ranNanos() >= 12 * MS && ra.ranNanos() <= 18 * MS, "spun " + ra.ranNanos());
    assertEquals(1, rig.vgpuReport().completed());
  }

  @Test
  void asyncLaunch_doesNotBlockTheVcpu() throws Exception {
    Rig rig = new Rig(Settings.SyncWait.HYBRID, 2);
    ActorRef<VCpu.Command> v = rig.vcpu(0, new Step.LaunchKernel(KernelSpec.cd("k", 2_000 * MS)),
        new Step.CpuBurst(MS));
    rig.runToEnd(v);
    VGpu.VgpuReport g = rig.vgpuReport();
    assertEquals(1, g.submitted());
    assertEquals(1, g.outstanding(), "the 2 s kernel is still running while the vCPU already finished");
  }

  @Test
  void aWokenVcpu_preemptsOneThatIsFarAhead_insteadOfWaitingOutItsSlice() throws Exception {
    Rig rig = new Rig(Settings.SyncWait.HYBRID, 2);
    ActorRef<VCpu.Command> a = rig.vcpu(0, new Step.CpuBurst(20 * MS));
    ActorRef<VCpu.Command> b = rig.vcpu(1, new Step.Sleep(3 * MS), new Step.CpuBurst(MS));
    rig.start(() -> {
      a.tell(VCpu.Start.INSTANCE);
      b.tell(VCpu.Start.INSTANCE);
    });
    rig.runUntil(() -> rig.report(a).ranNanos() == 20 * MS && rig.report(b).ranNanos() == MS);
    // at 3 ms vCPU 0 is 3 ms ahead, more than the 1 ms wakeup granularity: vCPU 1 runs at once instead of after
    // vCPU 0's 6 ms slice, so it waits (almost) nothing, and vCPU 0 waits its 1 ms
    VcpuReport rb = rig.report(b);
    VcpuReport ra = rig.report(a);
    assertTrue(rb.stealNanos() < MS, "woken vCPU waited " + rb.stealNanos());
    assertTrue(ra.stealNanos() >= MS && ra.stealNanos() < 2 * MS, "preempted vCPU waited " + ra.stealNanos());
    assertEquals(20 * MS, ra.ranNanos());
  }

  @Test
  void twoVcpusOnOneCore_eachWaitsForTheOther_asStealTime() throws Exception {
    Rig rig = new Rig(Settings.SyncWait.HYBRID, 2);
    ActorRef<VCpu.Command> a = rig.vcpu(0, new Step.CpuBurst(10 * MS));
    ActorRef<VCpu.Command> b = rig.vcpu(1, new Step.CpuBurst(10 * MS));
    TestInbox<VCpu.Stopped> stopped = TestInbox.create();
    rig.start(() -> {
      a.tell(VCpu.Start.INSTANCE);
      b.tell(VCpu.Start.INSTANCE);
      a.tell(new VCpu.Stop(stopped.getRef()));
      b.tell(new VCpu.Stop(stopped.getRef()));
    });
    List<VCpu.Stopped> both = new ArrayList<>();
    rig.runUntil(() -> {
      both.addAll(stopped.getAllReceived());
      return both.size() == 2;
    });
    VcpuReport ra = rig.report(a);
    VcpuReport rb = rig.report(b);
    assertEquals(10 * MS, ra.ranNanos(), "CPU time is accounted from the model's slices");
    assertEquals(10 * MS, rb.ranNanos());
    // sharing one core, the pair ends after ~20 ms, so together they waited ~ 9 + 10 ms while runnable
    long steal = ra.stealNanos() + rb.stealNanos();
    assertTrue(steal >= 17 * MS && steal <= 23 * MS, "steal " + steal);
  }

  @Test
  void present_blocksWhileTheCommandBufferIsFull() throws Exception {
    Rig rig = new Rig(Settings.SyncWait.HYBRID, 1);
    Step frame = new Step.LaunchKernel(KernelSpec.cd("frame", 40 * MS));
    ActorRef<VCpu.Command> v = rig.vcpu(0, frame, new Step.Present(), frame, new Step.Present(), frame,
        new Step.Present());
    rig.start(() -> v.tell(VCpu.Start.INSTANCE));
    rig.runUntil(() -> rig.report(v).steps() == 6 && rig.vgpuReport().outstanding() == 0);
    VcpuReport r = rig.report(v);
    assertTrue(r.maxStallNanos() >= 35 * MS, "a Present blocked: " + r.maxStallNanos());
    VGpu.VgpuReport g = rig.vgpuReport();
    assertEquals(6, g.submitted());
    assertEquals(g.submitted(), g.completed() + g.outstanding());
  }

  @Test
  void present_waitsUntilTheRuntimeHasHandedTheWholeFrameToTheDriver() throws Exception {
    Rig rig = new Rig(Settings.SyncWait.HYBRID, 5, 1);
    Step draw = new Step.LaunchKernel(KernelSpec.cd("draw", 20 * MS));
    ActorRef<VCpu.Command> v = rig.vcpu(0, draw, draw, draw, new Step.Present());
    rig.start(() -> v.tell(VCpu.Start.INSTANCE));
    rig.runUntil(() -> rig.report(v).steps() == 4 && rig.vgpuReport().outstanding() == 0);
    // the driver holds one request of this guest: the third draw is handed on when the second finishes (~40 ms),
    // and only then does Present return, although five frames could be buffered
    long stall = rig.report(v).maxStallNanos();
    assertTrue(stall >= 38 * MS && stall < 58 * MS, "Present blocked for " + stall);
  }
}
