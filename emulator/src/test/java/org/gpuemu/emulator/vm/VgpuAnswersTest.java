package org.gpuemu.emulator.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.TreeSet;
import org.apache.pekko.actor.testkit.typed.javadsl.TestInbox;
import org.gpuemu.emulator.faults.RequestHistory;
import org.junit.jupiter.api.Test;

/**
 * The calls a vGPU answers from the state of its ring, without an actor system: the Flush that waits for the GPU
 * (Direct3D 9's event query polled with {@code D3DGETDATA_FLUSH}) and the Present that waits for the driver's buffer.
 */
class VgpuAnswersTest {
  private final RequestHistory history = new RequestHistory(List.of("vm"));
  private final VgpuLedger ledger = new VgpuLedger(Long.MAX_VALUE, history, 0);
  private final VgpuAnswers answers = new VgpuAnswers(2, false, ledger);
  private final TestInbox<VCpu.Command> guest = TestInbox.create();

  @Test
  void flush_returnsOnlyOnceEveryRequestBeforeItHasRunOnTheGpu_notWhenTheyReachTheDriver() {
    TreeSet<Long> outstanding = new TreeSet<>(List.of(1L, 2L, 3L));
    answers.flush(new VgpuRequests.Waiter(3, VGpu.AnswerTo.of(guest.getRef()), history.submitted(0, 0)));
    // the runtime's queue is empty (all three are in the driver's buffer or on the GPU): not yet
    answers.release(10, true, outstanding.first());
    assertFalse(guest.hasMessages(), "requests 1-3 are handed to the driver but have not run");
    outstanding.remove(1L);
    outstanding.remove(2L);
    answers.release(20, true, outstanding.first());
    assertFalse(guest.hasMessages(), "request 3 is still on the GPU");
    outstanding.remove(3L);
    outstanding.add(4L); // recorded after the Flush: not waited for
    answers.release(30, false, outstanding.first()); // 4 is in the runtime's queue
    assertEquals(VCpu.FlushReturned.INSTANCE, guest.receiveMessage());
    assertEquals(0, answers.open());
  }

  @Test
  void flush_withNothingOutstanding_returnsAtOnce() {
    answers.flush(new VgpuRequests.Waiter(7, VGpu.AnswerTo.of(guest.getRef()), history.submitted(0, 0)));
    answers.release(5, true, Long.MAX_VALUE); // nothing outstanding
    assertTrue(guest.hasMessages());
  }

  @Test
  void present_afterAWaitingFlush_findsTheBufferEmpty_andReturnsAtOnce() {
    answers.present(new VgpuRequests.Blocked(VGpu.AnswerTo.of(guest.getRef()), 40, history.submitted(0, 40)),
        Long.MIN_VALUE);
    answers.release(40, true, Long.MAX_VALUE); // nothing outstanding
    assertEquals(VCpu.PresentReturned.UNTIMED, guest.receiveMessage());
  }
}
