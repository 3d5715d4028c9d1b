package org.gpuemu.emulator.vm;

import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.gpuemu.workloads.Program;
import org.gpuemu.workloads.Step;

/**
 * A vCPU's guest context and counters, kept by its VM outside the {@link VCpu} actor: what a hypervisor keeps of a
 * vCPU (its architectural state, in KVM's kernel structures or Xen's vcpu struct) while the thread that runs it is
 * replaced. A {@code vcpu-crash} restarts the actor under supervision; the new incarnation takes the guest up where
 * this record says it was (the step it waits on, its sleep's due time), so no guest call is issued twice or forgotten.
 * Only the vCPU actor, in whichever incarnation, touches it.
 */
final class VcpuState {
  enum Wait { NONE, CPU, SYNC_SPIN, SYNC_BLOCKED, SYNC_WAKING, PRESENT, FLUSH, MEMORY, SLEEP }

  final int vcpu;
  /** A fresh program from the start (a reboot runs it again); null for an idle vCPU. */
  final Supplier<Program> programs;
  Program program;
  Wait wait = Wait.NONE;
  boolean answered;
  /** Present is blocked and the vCPU spins on its core for it ({@code present-wait = poll}). */
  boolean presentSpinning;
  boolean running;
  ActorRef<VCpu.Stopped> stopRequested;
  long stepStarted;
  long lastPresent = -1;
  /**
   * The model time of the event this vCPU last acted on (a CPU burst's end, a kernel's completion, a sleep's
   * due time): the next step starts then, not when the message about it arrived, so message latency does not
   * become emulated time (docs/concepts/time-and-order.md: chain from due times). Never after the clock's now.
   */
  long clock;
  long ran;
  long steal;
  long programStarted = -1;
  long programEnded = -1;
  long maxStall;
  long steps;
  /** When the sleep in progress ends (its timer is armed again after a restart). */
  long sleepDue;
  /** Whether the vCPU joined the GPU scheduler's coscheduling (once, not per incarnation). */
  boolean coscheduleJoined;
  /**
   * A batch of asynchronous steps goes on in a Continue at this model time: the core, holding for this vCPU after its
   * request ended, hears whether it goes on or blocks only after it ({@code VcpuCalls.settle}).
   */
  boolean continuePending;
  /**
   * A Present the guest has reached while its channel to the vGPU still holds requests unacknowledged
   * ({@link GuestChannel}): it goes once the channel holds nothing, so it never overtakes its frame's commands.
   */
  Step.Present heldPresent;
  /** The guest agent waiting for the CPU work this vCPU runs for it inside a Present (null: none). */
  ActorRef<GuestAgent.Command> agentWorkFor;
  /** The Present's answer (a failure) that came while that work ran: the guest hears it after the work. */
  VCpu.PresentReturned heldAnswer;
  long heldAnswerAt;
  /** A rebooting VM's vCPU: until when it is down (answers of the old boot are dropped); -1: up. */
  long downUntil = -1;

  VcpuState(int vcpu, Supplier<Program> programs) {
    this.vcpu = vcpu;
    this.programs = programs;
    this.program = programs.get();
  }
}
