package org.gpuemu.emulator.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.gpuemu.emulator.gpu.SmGroupModel.Completion;
import org.gpuemu.emulator.gpu.SmGroupModel.Failure;
import org.gpuemu.emulator.gpu.SmGroupModel.Kernel;
import org.gpuemu.emulator.gpu.SmGroupModel.Step;
import org.gpuemu.workloads.KernelSpec;
import org.junit.jupiter.api.Test;

/** gpu-hang's effect and recovery in the SM group's model, to the nanosecond (SmGroupModel#hang). */
class SmGroupHangTest {
  private static final long MS = 1_000_000;
  private static final long WATCHDOG = 2_000 * MS;

  private static SmGroupModel<String> gpu() {
    return new SmGroupModel<>(82, 82, 1, 0, FluidModel.sharedEqually(), false);
  }

  private static Kernel<String> cd(String tag, int vgpu, long soloNanos) {
    return new Kernel<>(tag, vgpu, KernelSpec.cd(tag, soloNanos), 0);
  }

  @Test
  void hang_nextKernelOfTheVgpuNeverEnds_watchdogFailsItAndItsQueuedKernels_theOthersRunAfter() {
    SmGroupModel<String> g = gpu();
    assertTrue(g.hang(1, WATCHDOG, 0).failed().isEmpty());
    g.execute(cd("hung", 1, 3 * MS), 1 * MS);
    g.execute(cd("other", 0, 4 * MS), 2 * MS);
    g.execute(cd("hung-next", 1, 5 * MS), 3 * MS);
    // "hung" started at 1 ms and never ends: the next event is the watchdog, 2 s after its start
    assertEquals(2_001 * MS, g.nextEventAt().getAsLong());
    Step<String> reset = g.eventDue(2_001 * MS);
    // it held the group for 2 s, accounted to its vGPU; its vGPU's queued kernel fails too, having used nothing
    assertEquals(List.of(new Failure<>("hung", 1, 2_000 * MS, 2_001 * MS, "gpu-reset"), new Failure<>("hung-next", 1,
        0, 2_001 * MS, "gpu-reset")), reset.failed());
    // the other vGPU's kernel waited behind it (non-preemptive) and starts at the reset: 4 ms later it is done
    assertEquals(2_005 * MS, g.nextEventAt().getAsLong());
    assertEquals(List.of(new Completion<>("other", 0, 4 * MS, 2_001 * MS, 2_005 * MS)), g.eventDue(2_005 * MS)
        .completed());
    // the group's busy time includes the hang, so the vGPUs' accounted time still adds up to it
    assertEquals(2_004 * MS, g.figures().kernelBusyNanos());
  }

  @Test
  void hang_whileTheVgpusKernelRuns_hangsThatOne_fromTheHangsTime() {
    SmGroupModel<String> g = gpu();
    g.execute(cd("running", 1, 10 * MS), 0);
    assertTrue(g.hang(1, WATCHDOG, 4 * MS).failed().isEmpty());
    assertEquals(2_004 * MS, g.nextEventAt().getAsLong());
    assertEquals(List.of(new Failure<>("running", 1, 2_004 * MS, 2_004 * MS, "gpu-reset")),
        g.eventDue(2_004 * MS).failed());
    assertTrue(g.nextEventAt().isEmpty(), "nothing left");
  }

  @Test
  void resetEngine_failsTheRunningKernelWithItsTimeSoFar_andEveryQueuedOne_ofEveryVgpu_thenTheGroupServesAgain() {
    SmGroupModel<String> g = gpu();
    g.execute(cd("running", 0, 10 * MS), 0);
    g.execute(cd("queued", 1, 5 * MS), 1 * MS);
    g.hang(1, WATCHDOG, 2 * MS); // a hang waiting for vGPU 1's next kernel: cleared by the reset
    // smgroup-crash at 4 ms: "running" had run 4 ms (accounted to vGPU 0), "queued" nothing
    Step<String> reset = g.resetEngine("smgroup-crashed", 4 * MS);
    assertEquals(List.of(new Failure<>("running", 0, 4 * MS, 4 * MS, "smgroup-crashed"),
        new Failure<>("queued", 1, 0, 4 * MS, "smgroup-crashed")), reset.failed());
    assertTrue(g.nextEventAt().isEmpty(), "nothing left after the reset");
    assertEquals(4 * MS, g.figures().kernelBusyNanos(), "the failed kernel's time stays on the group's busy time");
    // the next kernel of vGPU 1 runs normally: the pending hang went with the reset
    g.execute(cd("after", 1, 3 * MS), 5 * MS);
    assertEquals(8 * MS, g.nextEventAt().getAsLong());
    assertEquals(List.of(new Completion<>("after", 1, 3 * MS, 5 * MS, 8 * MS)), g.eventDue(8 * MS).completed());
  }
}
