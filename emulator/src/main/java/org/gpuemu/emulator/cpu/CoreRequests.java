package org.gpuemu.emulator.cpu;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.gpuemu.policies.cpu.CpuPolicy;

/** The requests a {@link CpuScheduler} incarnation holds: the vCPUs' by vCPU, host work in arrival order. */
final class CoreRequests {
  final Map<Integer, CoreRequest> byVcpu = new HashMap<>();
  final ArrayDeque<CoreRequest> host = new ArrayDeque<>();
  private final CpuPolicy policy;
  private final CoreLedger ledger;

  CoreRequests(CpuPolicy policy, CoreLedger ledger) {
    this.policy = policy;
    this.ledger = ledger;
  }

  /** {@code r} ran {@code ran} up to {@code now}. */
  void account(CoreRequest r, long ran, long now) {
    ran = Math.max(0, ran);
    if (!r.host) policy.ran(r.vcpu, ran, now);
    ledger.busy += ran;
    r.ran += ran;
    if (r.remaining != Long.MAX_VALUE) r.remaining -= ran;
  }

  /** Answers {@code r} at {@code now}: done, or with what is left of it (taken back). */
  void complete(CoreRequest r, long now) {
    if (!r.host) {
      byVcpu.remove(r.vcpu);
      policy.blocked(r.vcpu, now);
    }
    long steal = Math.max(0, (now - r.requestedAt) - r.ran);
    r.replyTo.tell(new CpuScheduler.Done(r.vcpu, r.ran, steal, now, Math.max(0, r.remaining)));
  }

  /** A crash: every request not running is answered with what is left of it (host work first, then by vCPU). */
  void answerAll(long now) {
    for (CoreRequest r : host) complete(r, now);
    host.clear();
    for (CoreRequest r : new TreeMap<>(byVcpu).values()) complete(r, now);
  }
}
