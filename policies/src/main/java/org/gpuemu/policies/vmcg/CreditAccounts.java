package org.gpuemu.policies.vmcg;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The credit arrays of vmcg.txt §4.2, by vGPU: credit1[i] (RMNC_i, the credits VM i has left) and credit2[i]
 * (RALC_i, the credits it was last reallocated). A VM that joins has none; a replenishment gives every VM whose
 * credit1 is 0 its Eq. 2 credits in both arrays ("credit2[i] = credit1[i] = CREDIT_i"), and each dispatch of up to
 * four CRBs spends one (Algorithm 1, step 28).
 *
 * <p>Interpretation: a VM that still has credits at a replenishment keeps credit1 and credit2 as they are; the
 * paper reallocates "when the value of credit1[i] is 0" and never tops up or banks credits. So 0 &lt;= credit1 &lt;=
 * credit2 always holds, which {@link #checkInvariants} checks.
 */
public final class CreditAccounts {
  private static final class Account {
    long remaining;
    long reallocated;
  }

  private final SortedMap<Integer, Account> accounts = new TreeMap<>();

  /** A VM joins with no credits: the next replenishment allocates its first. */
  public void join(int vgpu) {
    if (accounts.putIfAbsent(vgpu, new Account()) != null) {
      throw new IllegalArgumentException("credits of vGPU " + vgpu + " opened twice");
    }
  }

  /** A VM leaves; its credits go with it. */
  public void leave(int vgpu) {
    account(vgpu);
    accounts.remove(vgpu);
  }

  /** credit1[i]: the credits the VM has left. */
  public long remaining(int vgpu) {
    return account(vgpu).remaining;
  }

  /** credit2[i]: the credits the VM was given at its last reallocation. */
  public long reallocated(int vgpu) {
    return account(vgpu).reallocated;
  }

  /** status[i] of Algorithm 1: whether the VM may dispatch (credit1[i] &gt; 0). */
  public boolean hasCredit(int vgpu) {
    return account(vgpu).remaining > 0;
  }

  /** Step 28: one dispatch costs one credit. The caller checks {@link #hasCredit} first, as the paper does. */
  public void spend(int vgpu) {
    Account account = account(vgpu);
    if (account.remaining == 0) {
      throw new IllegalStateException("vGPU " + vgpu + " dispatched without credit");
    }
    account.remaining--;
  }

  /**
   * A replenishment: every VM in {@code eq2Credits} whose credit1 is 0 gets credit2 = credit1 = its CREDIT_i; the
   * others keep theirs. Returns the VMs reallocated.
   */
  public SortedSet<Integer> reallocate(SortedMap<Integer, Long> eq2Credits) {
    SortedSet<Integer> reallocated = new TreeSet<>();
    eq2Credits.forEach((vgpu, credit) -> {
      if (credit < 0) {
        throw new IllegalArgumentException("vGPU " + vgpu + " allocated " + credit + " credits");
      }
      Account account = account(vgpu);
      if (account.remaining == 0) {
        account.reallocated = credit;
        account.remaining = credit;
        reallocated.add(vgpu);
      }
    });
    return reallocated;
  }

  /** Broken invariants: every credit1 in [0, credit2]. */
  public List<String> checkInvariants() {
    List<String> violations = new ArrayList<>();
    accounts.forEach((vgpu, a) -> {
      if (a.remaining < 0 || a.remaining > a.reallocated) {
        violations.add("vGPU " + vgpu + " has " + a.remaining + " credits left of " + a.reallocated + " reallocated");
      }
    });
    return violations;
  }

  private Account account(int vgpu) {
    Account account = accounts.get(vgpu);
    if (account == null) {
      throw new IllegalArgumentException("no credits for vGPU " + vgpu + "; have " + accounts.keySet());
    }
    return account;
  }
}
