package org.gpuemu.emulator.cpu;

import org.apache.pekko.actor.typed.ActorRef;

/** One request for CPU time on a core: a vCPU's, or host work (above the policy). */
final class CoreRequest {
  final int vcpu;
  final ActorRef<CpuScheduler.Done> replyTo;
  final long requestedAt;
  /** Host work: runs before every vCPU, unknown to the policy. */
  final boolean host;
  final int weight;
  long remaining;
  long ran;

  CoreRequest(int vcpu, int weight, long nanos, ActorRef<CpuScheduler.Done> replyTo, long requestedAt, boolean host) {
    this.vcpu = vcpu;
    this.weight = weight;
    this.host = host;
    this.remaining = nanos;
    this.replyTo = replyTo;
    this.requestedAt = requestedAt;
  }
}
