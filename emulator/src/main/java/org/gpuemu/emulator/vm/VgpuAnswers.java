package org.gpuemu.emulator.vm;

import java.util.ArrayDeque;
import java.util.TreeSet;

/**
 * The guest calls a {@link VGpu} answers by the state of its ring rather than by a kernel's end: blocked Presents
 * (answered once the runtime has handed everything on and no more than {@code commandBuffer} frames are unfinished,
 * vgris.txt §2.2) and Flushes (answered once everything recorded before them is handed to the driver). State of one
 * vGPU incarnation.
 */
final class VgpuAnswers {
  private final int commandBuffer;
  /** Whether a Present's answer carries its model time (space sharing only, see {@link #release}). */
  private final boolean timedPresents;
  private final VgpuLedger ledger;
  /** The last request of each unfinished frame. */
  final ArrayDeque<Long> framesInFlight = new ArrayDeque<>();
  final ArrayDeque<VgpuRequests.Blocked> presents = new ArrayDeque<>();
  final ArrayDeque<VgpuRequests.Waiter> flushes = new ArrayDeque<>();

  VgpuAnswers(int commandBuffer, boolean timedPresents, VgpuLedger ledger) {
    this.commandBuffer = commandBuffer;
    this.timedPresents = timedPresents;
    this.ledger = ledger;
  }

  /** A Present whose frame ends with the guest's latest request outstanding ({@code outstanding}'s last). */
  void present(VgpuRequests.Blocked b, TreeSet<Long> outstanding) {
    if (!outstanding.isEmpty()) framesInFlight.add(outstanding.last());
    presents.add(b);
  }

  void flush(VgpuRequests.Waiter w) {
    flushes.add(w);
  }

  /** Calls waiting for an answer. */
  int open() {
    return presents.size() + flushes.size();
  }

  /**
   * Answers what may be answered at {@code at}, the model time of the event that changed the ring; {@code head} is
   * the runtime queue's first request (null: empty), {@code outstanding} the requests not finished.
   */
  void release(long at, Long head, TreeSet<Long> outstanding) {
    while (!flushes.isEmpty() && (head == null || head > flushes.peek().upToId())) {
      VgpuRequests.Waiter w = flushes.poll();
      ledger.answered(w.call(), at);
      w.replyTo().tell(VCpu.FlushReturned.INSTANCE);
    }
    while (!framesInFlight.isEmpty() && (outstanding.isEmpty() || outstanding.first() > framesInFlight.peek())) {
      framesInFlight.poll();
    }
    while (!presents.isEmpty() && head == null && framesInFlight.size() - (presents.size() - 1) <= commandBuffer) {
      VgpuRequests.Blocked b = presents.poll();
      ledger.answered(b.call(), Math.max(b.atNanos(), at));
      // answered at the model time of the event that released it, never before it was issued. Space sharing only
      // for now: the other papers' figures were measured with wall-clock answers and would need re-measuring
      b.replyTo().tell(b.atNanos() < 0 || !timedPresents ? VCpu.PresentReturned.UNTIMED
          : new VCpu.PresentReturned(Math.max(b.atNanos(), at)));
    }
  }
}
