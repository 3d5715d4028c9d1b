package org.gpuemu.policies.vgris;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Posterior enforcement reservation (VGRIS §3.2, after TimeGraph): each VM i has a share s_i and a budget e_i of
 * GPU time. Every period t the budget is replenished by Eq. 1, e_i = min(t·s_i, e_i + t·s_i); it decreases by the
 * GPU time the VM actually consumed, charged after the fact; the VM may Present only while e_i &gt; 0.
 *
 * <p>Interpretations the paper leaves open:
 * <ul>
 *   <li>Periods are a global grid from emulated time 0: the replenishments at t, 2t, 3t, ... Budgets are brought
 *       up to date lazily, at whatever time a call passes in, by applying Eq. 1 once per whole period elapsed;
 *       applying it k times gives min(t·s_i, e_i + k·t·s_i), so the result is exact and deterministic. Time that
 *       goes backwards is ignored.</li>
 *   <li>Budgets are whole nanoseconds: t·s_i is rounded to the nearest nanosecond, at least 1 (with t = 1 ms the
 *       rounding is below 10⁻⁶ of a share).</li>
 *   <li>Consumption is charged when it is reported (the policy reports a request's expected time when it is
 *       dispatched and the difference when it completes), after replenishing up to that time, all at once: a long request can drive the budget far below zero, and the VM then waits as many periods as
 *       it takes to pay that debt back. Idle time is not banked: the cap t·s_i holds while nothing is charged.</li>
 *   <li>A VM that joins starts with a full budget t·s_i. When shares change (the hybrid recomputes them) a VM keeps
 *       its budget, debts included, capped at its new t·s_i.</li>
 * </ul>
 */
public final class ShareBudget {
  private static final class Account {
    long refill;
    long budget;

    Account(long refill) {
      this.refill = refill;
      this.budget = refill;
    }
  }

  private final long period;
  private final SortedMap<Integer, Account> accounts = new TreeMap<>();
  /** Index of the last period boundary applied: floor(latest time passed in / period). */
  private long periodIndex;

  /** Budgets replenished every {@code periodNanos} (&gt; 0; VGRIS uses 1 ms). */
  public ShareBudget(long periodNanos) {
    if (periodNanos <= 0) {
      throw new IllegalArgumentException("budget period must be > 0, got " + periodNanos);
    }
    this.period = periodNanos;
  }

  /**
   * Sets every VM's share; VMs missing from {@code newShares} are dropped, new ones start with a full budget.
   * Shares must be in (0, 1]. Their sum is not bounded here: hybrid scheduling starts with a full share for every
   * VM (vgris.txt §4.3, HybridController); configured shares are checked against 1 where they are read
   * ({@link Shares#configured}), and Eq. 2's always sum to 1.
   */
  public void setShares(SortedMap<Integer, Double> newShares) {
    newShares.forEach((vgpu, share) -> {
      if (!(share > 0 && share <= 1)) {
        throw new IllegalArgumentException("share of vGPU " + vgpu + " must be in (0, 1], got " + share);
      }
    });
    accounts.keySet().retainAll(newShares.keySet());
    newShares.forEach((vgpu, share) -> {
      long refill = Math.max(1, Math.round(period * share));
      Account account = accounts.computeIfAbsent(vgpu, v -> new Account(refill));
      account.refill = refill;
      account.budget = Math.min(account.budget, refill);
    });
  }

  /** Applies Eq. 1 once for every period boundary passed since the last time given. */
  public void advance(long now) {
    long index = Math.floorDiv(now, period);
    long periods = index - periodIndex;
    if (periods <= 0) {
      return;
    }
    for (Account account : accounts.values()) {
      account.budget = Math.min(account.refill, account.budget + periods * account.refill);
    }
    periodIndex = index;
  }

  /** Charges GPU time a VM consumed, reported at {@code now}; a negative amount refunds an overcharge. */
  public void charge(int vgpu, long gpuNanos, long now) {
    advance(now);
    account(vgpu).budget -= gpuNanos;
  }

  /** A VM's budget e_i at {@code now}, in nanoseconds (negative while it is in debt). */
  public long budget(int vgpu, long now) {
    advance(now);
    return account(vgpu).budget;
  }

  /**
   * The earliest time at or after {@code now} at which the VM may Present: {@code now} while its budget is
   * positive, else the first replenishment that lifts it above zero.
   */
  public long presentAllowedAt(int vgpu, long now) {
    advance(now);
    Account account = account(vgpu);
    if (account.budget > 0) {
      return now;
    }
    long periodsToWait = Math.floorDiv(-account.budget, account.refill) + 1;
    return (periodIndex + periodsToWait) * period;
  }

  /** Broken invariants: no budget above its cap t·s_i. */
  public List<String> checkInvariants() {
    List<String> violations = new ArrayList<>();
    accounts.forEach((vgpu, account) -> {
      if (account.budget > account.refill) {
        violations.add("budget of vGPU " + vgpu + " is " + account.budget + " ns, above its cap " + account.refill);
      }
    });
    return violations;
  }

  private Account account(int vgpu) {
    Account account = accounts.get(vgpu);
    if (account == null) {
      throw new IllegalArgumentException("no share for vGPU " + vgpu + "; have " + accounts.keySet());
    }
    return account;
  }
}
