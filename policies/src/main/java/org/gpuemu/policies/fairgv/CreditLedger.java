package org.gpuemu.policies.fairgv;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The credits of Xen's credit scheduler (csched_acct and burn_credits of Xen's credit1, which FairGV §5.3 adopts
 * for vGPUs: "The implementation of Credit scheduling is adopted from the CPU scheduler of Xen [26]"), with one GPU
 * in place of a CPU and credits in nanoseconds of GPU time (Xen counts 10 credits per millisecond).
 *
 * <ul>
 *   <li>The vGPU holding the GPU burns one credit per nanosecond it holds it (Xen samples at 10 ms ticks; here the
 *       burn is exact at every event).</li>
 *   <li>Every accounting {@code period} (Xen: 30 ms) the period's credit is shared among the active vGPUs by weight,
 *       rounded up as Xen's {@code credit_fair}; then a vGPU with credit below 0 is OVER (and its credit is kept at
 *       no less than −{@code cap}), otherwise UNDER; an UNDER vGPU above {@code cap} (Xen's credits per time slice)
 *       stops being active, so it stops earning, and its credit is halved, as Xen does "so that when it starts
 *       accounting again, it starts a little bit ahead".</li>
 *   <li>A vGPU becomes active when it holds the GPU (Xen starts accounting a vCPU found running). Priorities change
 *       only at accounting, as in Xen.</li>
 * </ul>
 * Not modelled: Xen's BOOST priority for waking vCPUs (FairGV describes Credit on vGPUs as "simple time-sharing
 * based on a time slice") and per-domain caps.
 */
final class CreditLedger {
  /** Xen's TS_UNDER and TS_OVER. */
  enum Priority { UNDER, OVER }

  private static final class Account {
    int weight;
    long credit;
    Priority priority = Priority.UNDER;
    boolean active;

    Account(int weight) {
      this.weight = weight;
    }
  }

  private final String policy;
  private final long period;
  private final long cap;
  private final SortedMap<Integer, Account> accounts = new TreeMap<>();
  private long nextAccounting;
  private long burnedUpTo;
  private int holder = -1;

  CreditLedger(String policy, long period, long cap) {
    this.policy = policy;
    this.period = period;
    this.cap = cap;
    this.nextAccounting = period;
  }

  void add(int vgpu, int weight) {
    if (weight <= 0) {
      throw new IllegalArgumentException(policy + ": vGPU " + vgpu + " has weight " + weight + "; weights are > 0");
    }
    if (accounts.putIfAbsent(vgpu, new Account(weight)) != null) {
      throw new IllegalArgumentException(policy + ": vGPU " + vgpu + " added twice");
    }
  }

  /** The vGPU's weight from the next accounting on (its credit so far stays). */
  void setWeight(int vgpu, int weight) {
    if (weight <= 0) {
      throw new IllegalArgumentException(policy + ": vGPU " + vgpu + " given weight " + weight + "; weights are > 0");
    }
    Account a = accounts.get(vgpu);
    if (a == null) throw new IllegalArgumentException(policy + ": no vGPU " + vgpu);
    a.weight = weight;
  }

  void remove(int vgpu) {
    if (vgpu == holder) holder = -1;
    accounts.remove(vgpu);
  }

  /** Burns the holder's credit up to {@code now}, running every accounting due on the way. */
  void advance(long now) {
    while (nextAccounting <= now) {
      burn(nextAccounting);
      account();
      nextAccounting += period;
    }
    burn(now);
  }

  /** From {@code now} on, {@code vgpu} holds the GPU (-1: nobody). */
  void hold(int vgpu, long now) {
    advance(now);
    holder = vgpu;
    if (vgpu >= 0) account(vgpu).active = true;
  }

  boolean contains(int vgpu) {
    return accounts.containsKey(vgpu);
  }

  long credit(int vgpu) {
    return account(vgpu).credit;
  }

  Priority priority(int vgpu) {
    return account(vgpu).priority;
  }

  boolean active(int vgpu) {
    return account(vgpu).active;
  }

  /** Broken invariants: the holder is not active, or a credit left its bounds at accounting. */
  List<String> checkInvariants() {
    List<String> found = new ArrayList<>();
    if (holder >= 0 && accounts.containsKey(holder) && !accounts.get(holder).active) {
      found.add(policy + ": vGPU " + holder + " holds the GPU but earns no credit");
    }
    for (var e : accounts.entrySet()) {
      // at most one period plus one slice of credit: an active vGPU at the cap earning one more period
      if (e.getValue().credit > cap + period) {
        found.add(policy + ": vGPU " + e.getKey() + " has credit " + e.getValue().credit + " above cap + period");
      }
    }
    return found;
  }

  private void burn(long until) {
    if (holder >= 0 && accounts.containsKey(holder)) {
      Account a = accounts.get(holder);
      a.credit -= until - burnedUpTo;
      a.active = true;
    }
    burnedUpTo = until;
  }

  private void account() {
    long weights = 0;
    for (Account a : accounts.values()) {
      if (a.active) weights += a.weight;
    }
    if (weights == 0) return;
    for (Account a : accounts.values()) {
      if (!a.active) continue;
      a.credit += Math.floorDiv(Math.multiplyExact(period, (long) a.weight) + weights - 1, weights);
      if (a.credit < 0) {
        a.priority = Priority.OVER;
        a.credit = Math.max(a.credit, -cap);
      } else {
        a.priority = Priority.UNDER;
        if (a.credit > cap) {
          a.active = false;
          a.credit /= 2;
        }
      }
    }
  }

  private Account account(int vgpu) {
    Account a = accounts.get(vgpu);
    if (a == null) {
      throw new IllegalArgumentException(policy + ": unknown vGPU " + vgpu);
    }
    return a;
  }
}
