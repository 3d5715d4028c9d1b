package org.gpuemu.emulator.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.TestInbox;
import org.gpuemu.emulator.faults.RequestHistory;
import org.gpuemu.emulator.gpu.Scheduling;
import org.gpuemu.emulator.gpu.SmGroup;
import org.gpuemu.policies.gpu.VgpuParams;
import org.gpuemu.workloads.KernelSpec;
import org.junit.jupiter.api.Test;

/**
 * The vGPU's ring replayed without an actor system (vgris.txt §2.2): a guest's requests go to the driver's buffer of
 * {@code driverQueue} places in order, the rest wait in the runtime's queue until a completion makes room, Present
 * returns once the frame is all handed on, and a sliced call completes or fails as a whole. What the actor would
 * send to the GPU scheduler is collected in {@link #toScheduler}, in its order.
 */
class VgpuModelTest {
  private static final long MS = 1_000_000;
  private final RequestHistory history = new RequestHistory(List.of("vm"));
  private final List<Scheduling.Command> toScheduler = new ArrayList<>();
  private final TestInbox<VCpu.Command> guest = TestInbox.create();

  private VgpuModel model(int driverQueue, Slicer slicer) {
    VGpu.Settings settings = new VGpu.Settings(new VgpuParams(0, "vm", 1), 2, driverQueue, Long.MAX_VALUE, slicer,
        false);
    return new VgpuModel(settings, new VgpuLedger(Long.MAX_VALUE, history, 0), toScheduler::add);
  }

  private List<Scheduling.Queued> queued() {
    return toScheduler.stream().filter(Scheduling.Queued.class::isInstance).map(Scheduling.Queued.class::cast)
        .toList();
  }

  private static SmGroup.Finished ran(Scheduling.Queued q, long gpuNanos, long at, String failure) {
    return new SmGroup.Finished(q.work().id(), 0, gpuNanos, at - gpuNanos, at, failure);
  }

  @Test
  void driverQueueOfTwo_handsOnTwoRequests_andTheThirdWhenTheFirstCompletes_atItsEnd() {
    VgpuModel vgpu = model(2, Slicer.NONE);
    for (int i = 0; i < 3; i++) {
      vgpu.call(KernelSpec.cd("k" + i, 4 * MS), 0, null, i * MS, history.submitted(0, i * MS));
    }
    assertEquals(2, queued().size(), "two places in the driver's buffer");
    assertEquals(List.of(0L, MS), queued().stream().map(Scheduling.Queued::atNanos).toList(),
        "each handed on when it was recorded");
    assertTrue(vgpu.dispatched(new Scheduling.Dispatch(queued().get(0).work(), MS, null, null, 0)) != null);
    VgpuRequests.Pending done = vgpu.finished(ran(queued().get(0), 4 * MS, 5 * MS, null));
    assertTrue(done.last());
    assertFalse(vgpu.roomAt(5 * MS), "two requests still outstanding");
    assertEquals(3, queued().size());
    // recorded at 2 ms, it waited in the runtime's queue until the completion at 5 ms made room
    assertEquals(5 * MS, queued().get(2).atNanos());
    Scheduling.Completed completed = (Scheduling.Completed) toScheduler.get(2);
    assertEquals(4 * MS, completed.gpuNanos());
    VGpu.VgpuReport report = vgpu.report();
    assertEquals(3, report.submitted());
    assertEquals(1, report.completed());
    assertEquals(1, report.kernelsCompleted());
    assertEquals(2, report.outstanding());
    assertEquals(4 * MS, report.gpuBusyNanos());
  }

  @Test
  void present_returnsOnlyOnceTheRuntimeHasHandedTheWholeFrameOn() {
    VgpuModel vgpu = model(1, Slicer.NONE);
    vgpu.call(KernelSpec.cd("a", MS), 0, null, 0, -1);
    vgpu.call(KernelSpec.cd("b", MS), 0, null, 0, -1);
    vgpu.present(VGpu.AnswerTo.of(guest.getRef()), 0, -1);
    assertFalse(guest.hasMessages(), "b is still in the runtime's queue");
    vgpu.finished(ran(queued().get(0), MS, MS, null));
    vgpu.roomAt(MS);
    assertEquals(VCpu.PresentReturned.UNTIMED, guest.receiveMessage(), "b is in the driver's buffer now");
  }

  @Test
  void aSlicedCall_whoseFirstPartFailed_failsAsAWhole_whenItsLastPartEnds() {
    Slicer halves = k -> List.of(KernelSpec.cd(k.name() + "/1", k.soloNanos() / 2),
        KernelSpec.cd(k.name() + "/2", k.soloNanos() / 2));
    VgpuModel vgpu = model(2, halves);
    vgpu.call(KernelSpec.cd("long", 10 * MS), 0, null, 0, history.submitted(0, 0));
    assertEquals(2, queued().size(), "two parts, two requests");
    assertNull(vgpu.finished(ran(queued().get(0), 2 * MS, 2 * MS, "gpu-reset")).syncReply());
    assertEquals(0, vgpu.report().failed(), "the call fails when its last part ends");
    vgpu.finished(ran(queued().get(1), 5 * MS, 7 * MS, null));
    VGpu.VgpuReport report = vgpu.report();
    assertEquals(1, report.failed());
    assertEquals("gpu-reset", report.failures().get(0).reason());
    assertEquals(0, report.kernelsCompleted());
    assertEquals(7 * MS, report.gpuBusyNanos(), "both parts' GPU time counts");
  }

  @Test
  void aDispatchOfADeadSchedulerIncarnation_orOfARunningRequest_isDropped() {
    VgpuModel vgpu = model(2, Slicer.NONE);
    vgpu.call(KernelSpec.cd("k", MS), 0, null, 0, -1);
    vgpu.resync(new Scheduling.Resync(1), 0);
    assertTrue(toScheduler.get(1) instanceof Scheduling.Resynced);
    Scheduling.Queued q = queued().get(0);
    assertNull(vgpu.dispatched(new Scheduling.Dispatch(q.work(), 0, null, null, 0)), "epoch 0 is dead");
    assertTrue(vgpu.dispatched(new Scheduling.Dispatch(q.work(), 0, null, null, 1)) != null);
    assertNull(vgpu.dispatched(new Scheduling.Dispatch(q.work(), 0, null, null, 1)), "already on the GPU");
    assertTrue(vgpu.finished(ran(q, MS, MS, null)) != null);
    assertTrue(vgpu.roomAt(MS), "nothing outstanding: a drain is answered");
  }

  @Test
  void aRebootedVgpusKernelStillOnTheGpu_keepsItBusy_untilItEnds_andItsGpuTimeIsAccounted() {
    VgpuLedger ledger = new VgpuLedger(Long.MAX_VALUE, history, 0);
    VGpu.Settings settings = new VGpu.Settings(new VgpuParams(0, "vm", 1), 2, 2, Long.MAX_VALUE, Slicer.NONE, false);
    VgpuModel before = new VgpuModel(settings, ledger, toScheduler::add);
    before.call(KernelSpec.cd("hung", 4 * MS), 0, null, 0, history.submitted(0, 0));
    before.call(KernelSpec.cd("queued", 4 * MS), 0, null, 0, history.submitted(0, 0));
    Scheduling.Queued hung = queued().get(0);
    Scheduling.Queued queued = queued().get(1);
    assertTrue(before.dispatched(new Scheduling.Dispatch(hung.work(), 0, null, null, 0)) != null);
    // a vm-reboot at 1 ms: both calls fail, their requests become the next incarnation's orphans
    ledger.downSince = MS;
    ledger.downUntil = 3_000 * MS;
    ledger.downReason = "vm-crashed";
    VgpuFaults.failInFlight(before, MS, List.of());
    VgpuModel after = new VgpuModel(settings, ledger, toScheduler::add);
    assertEquals(2, after.report().failed());
    assertNull(after.dispatched(new Scheduling.Dispatch(queued.work(), 2 * MS, null, null, 0)),
        "an orphan not yet on the GPU completes at once, unrun");
    assertFalse(after.idle(), "the hung kernel still holds the GPU: a drain waits for it");
    // the watchdog's reset at 2 s ends it: the 1.9 s it held the SM group count as this vGPU's GPU time
    assertNull(after.finished(ran(hung, 1_900 * MS, 2_000 * MS, "gpu-reset")), "nobody waits for an orphan");
    assertTrue(after.idle());
    assertEquals(1_900 * MS, after.report().gpuBusyNanos());
    assertEquals(2, after.report().failed(), "its call failed once, at the reboot");
  }
}
