package org.gpuemu.emulator.vm;

import org.apache.pekko.actor.typed.ActorRef;
import org.gpuemu.emulator.faults.RequestHistory;
import org.gpuemu.workloads.KernelSpec;

/**
 * The Present a {@link GuestAgent} has in flight, kept outside the actor so that it outlives an agent-crash: whose it
 * is, its request ids, whether the agent still holds it or has handed it to the vGPU. Only the agent, in whichever
 * incarnation, touches it.
 */
final class AgentLedger {
  private enum Stage { NONE, HELD, FORWARDED }

  private final int vm;
  private final RequestHistory history;
  private Stage stage = Stage.NONE;
  private ActorRef<VCpu.Command> guest;
  /** The frame's last batch, until it goes to the vGPU (null: none, or gone), and its id. */
  KernelSpec tail;
  long tailCall = -1;
  long call = -1;
  /** The Present call's own CPU time ({@code Step.Present#cpuNanos}). */
  long presentCpu;
  long presentIssued;
  /** Whether the Present went straight through, so that its answer's model time holds. */
  private boolean timed;
  private boolean asking;

  AgentLedger(int vm, RequestHistory history) {
    this.vm = vm;
    this.history = history;
  }

  /** The guest's Present arrived: the agent holds it. */
  void held(GuestAgent.Present p) {
    stage = Stage.HELD;
    asking = false;
    guest = p.replyTo();
    tail = p.tail();
    tailCall = p.tailCall();
    call = p.call();
    presentCpu = p.cpuNanos();
  }

  /** The vCPU whose Present this is. */
  ActorRef<VCpu.Command> guest() {
    return guest;
  }

  boolean holds() {
    return stage == Stage.HELD;
  }

  /** The agent asked the controller whether the Present may go. */
  void ask() {
    asking = true;
  }

  /** Whether the agent holds the Present waiting for the controller's permission. */
  boolean asking() {
    return stage == Stage.HELD && asking;
  }

  /** The tail went to the vGPU (with the Present or ahead of it). */
  void tailSent() {
    tail = null;
    tailCall = -1;
  }

  /** An id for the agent's own flush (SLA-aware mode), submitted at {@code at}. */
  long ownFlush(long at) {
    return history.submitted(vm, at);
  }

  /** The Present went to the vGPU at {@code at}; {@code timed}: straight through. */
  void forwarded(long at, boolean timed) {
    stage = Stage.FORWARDED;
    presentIssued = at;
    this.timed = timed;
  }

  /** The vGPU answered the Present: the guest hears. */
  void answered(VCpu.PresentReturned returned) {
    if (stage != Stage.FORWARDED) return;
    stage = Stage.NONE;
    guest.tell(timed ? returned : new VCpu.PresentReturned(-1, returned.failure()));
  }

  /** A crash or a reboot at {@code at}: a Present still held here fails with {@code reason}, its guest answered. */
  void failHeld(String reason, long at) {
    if (stage != Stage.HELD) return;
    stage = Stage.NONE;
    if (tail != null) history.failed(vm, tailCall, reason, at);
    tailSent();
    history.failed(vm, call, reason, at);
    guest.tell(new VCpu.PresentReturned(at, reason));
  }
}
