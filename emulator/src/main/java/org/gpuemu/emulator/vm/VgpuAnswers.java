package org.gpuemu.emulator.vm;

import java.util.ArrayDeque;

/**
 * The guest calls a {@link VGpu} answers by the state of its ring rather than by a kernel's end: blocked Presents
 * (answered once the runtime has handed everything on and no more than {@code commandBuffer} frames are unfinished,
 * vgris.txt §2.2) and Flushes (answered once everything recorded before them has run on the GPU). State of one
 * vGPU incarnation.
 *
 * <p>The Flush that waits: Direct3D 9 has no blocking flush call. The idiom VGRIS's agent stands for is an event
 * query issued after the frame's commands ({@code IDirect3DQuery9::Issue(D3DISSUE_END)} on a
 * {@code D3DQUERYTYPE_EVENT}) polled with {@code GetData(..., D3DGETDATA_FLUSH)} until it returns {@code S_OK}: the
 * flag hands the batched commands to the driver, and an event query is signalled once the GPU has processed every
 * command issued before it (Microsoft Learn, "IDirect3DQuery9::GetData method" and "Queries (Direct3D 9)"). So a
 * Flush returns when the requests recorded before it have completed, not when they reach the driver's buffer.
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

  /**
   * A Present whose frame ends with the guest's latest request outstanding, {@code newestOutstanding}
   * (Long.MIN_VALUE: none is).
   */
  void present(VgpuRequests.Blocked b, long newestOutstanding) {
    if (newestOutstanding != Long.MIN_VALUE) framesInFlight.add(newestOutstanding);
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
   * Answers what may be answered at {@code at}, the model time of the event that changed the ring; {@code
   * runtimeEmpty}: whether the runtime's queue is empty; {@code oldestOutstanding}: the oldest request not finished (in
   * the runtime's queue, the driver's buffer or on the GPU), Long.MAX_VALUE when none is.
   */
  void release(long at, boolean runtimeEmpty, long oldestOutstanding) {
    while (!flushes.isEmpty() && oldestOutstanding > flushes.peek().upToId()) {
      VgpuRequests.Waiter w = flushes.poll();
      ledger.answered(w.call(), at);
      w.replyTo().answer(VCpu.FlushReturned.INSTANCE);
    }
    while (!framesInFlight.isEmpty() && oldestOutstanding > framesInFlight.peek()) {
      framesInFlight.poll();
    }
    while (!presents.isEmpty() && runtimeEmpty && framesInFlight.size() - (presents.size() - 1) <= commandBuffer) {
      VgpuRequests.Blocked b = presents.poll();
      ledger.answered(b.call(), Math.max(b.atNanos(), at));
      // answered at the model time of the event that released it, never before it was issued. Space sharing only
      // for now: the other papers' figures were measured with wall-clock answers and would need re-measuring
      b.replyTo().answer(b.atNanos() < 0 || !timedPresents ? VCpu.PresentReturned.UNTIMED
          : new VCpu.PresentReturned(Math.max(b.atNanos(), at)));
    }
  }
}
