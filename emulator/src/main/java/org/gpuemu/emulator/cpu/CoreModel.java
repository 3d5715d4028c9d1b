package org.gpuemu.emulator.cpu;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;
import org.gpuemu.emulator.cpu.CoreRequests.Request;
import org.gpuemu.policies.cpu.CpuDecision;
import org.gpuemu.policies.cpu.CpuPolicy;

/**
 * The rules of one physical core ({@link CpuScheduler}'s state machine), as a plain class: it takes each event with
 * its model time and tells its {@link Effects} what follows (a slice timer, an answer, a coscheduling notice), so
 * {@code CoreModelTest} replays them to the nanosecond without an actor system.
 *
 * <p>A request's end is not a scheduling point (CFS reschedules when a slice runs out, a task blocks or a waking one
 * preempts): a vCPU whose request ends keeps the core for what is left of its slice ({@link #goOn}) until its vCPU
 * says, at the same model time, whether it asks again ({@link #run}) or blocks ({@link #release}). Before, every
 * request's end was a block and every next request a wake-up, so the core re-picked, and a woken vCPU could preempt,
 * at every guest step.
 *
 * <p>A context switch costs CPU time ({@code switchNanos}, {@code host.vcpu-switch}): whenever the core starts a
 * context — a vCPU or host work — after running another one or idling, the first {@code switchNanos} of its slice go
 * to the switch. The incoming vCPU's CPU policy is charged for them (CFS charges a switch to the task it switches
 * to), its guest progresses only after them (to the guest they are steal time), and a spin that sees its answer
 * during them goes on once they are over. A vCPU that goes on at once after its request ended was never switched out
 * and pays nothing.
 *
 * <p>Faults take requests back before they are done, each answered with the CPU time left of it: one
 * vCPU's ({@link #withdraw}: its vCPU crashed or rebooted, or its core goes offline) or every one on the core
 * ({@link #takeBackAll}: the core's scheduler crashed). The counters (busy time, context switches) start from what a
 * crashed incarnation had counted.
 *
 * @param <R> where a request's answer goes
 */
final class CoreModel<R> {
  /** What the core's events lead to; the actor carries them out. */
  interface Effects<R> {
    /** Arm the slice timer: {@link #sliceEnded} with this token at {@code due} (one timer; a new one replaces it). */
    void armSlice(long token, long due);

    /** The slice timer is void. */
    void disarmSlice();

    /**
     * Answer {@code to}: the request of {@code vcpu} ended at {@code end}, having run {@code ran}, waited {@code steal};
     * {@code remaining} > 0: taken back before it was done ({@link #withdraw}, {@link #takeBackAll}), this much left.
     */
    void done(R to, int vcpu, long ran, long steal, long end, long remaining);

    /** The core switched to {@code vcpu} at {@code now} (strict coscheduling's CPU side listens). */
    void switchedTo(int vcpu, long now);
  }

  /** The vCPU number of host work. */
  static final int HOST = CpuScheduler.HOST;

  private final CpuPolicy policy;
  private final long switchNanos;
  private final Effects<R> effects;
  private final CoreRequests<R> requests = new CoreRequests<>();
  private final ArrayDeque<Request<R>> hostWork = new ArrayDeque<>();
  /** Stalled vCPUs (faults): they get no core until their stall ends. */
  private final Set<Integer> stalled = new HashSet<>();
  private Request<R> current;
  private long sliceStart;
  private long token;
  private long busy;
  private long switches;
  private int lastVcpu = -1;
  /** When the core last stopped running a context (its request ended, or it was preempted). */
  private long stoppedAt = Long.MIN_VALUE;
  /** The vCPU whose request ended and which holds the core until its next request or its release; -1: none. */
  private int held = -1;
  /** When the held vCPU's request ended. */
  private long heldAt;
  /** When the slice the policy gave the running (or held) vCPU runs out. */
  private long sliceDue;

  CoreModel(CpuPolicy policy, long switchNanos, Effects<R> effects) {
    this(policy, switchNanos, effects, 0, 0);
  }

  /** A model whose counters start at {@code busyNanos} and {@code switches} (a crashed incarnation's). */
  CoreModel(CpuPolicy policy, long switchNanos, Effects<R> effects, long busyNanos, long switches) {
    if (switchNanos < 0) throw new IllegalArgumentException("a context switch of " + switchNanos + " ns");
    this.policy = policy;
    this.switchNanos = switchNanos;
    this.effects = effects;
    this.busy = busyNanos;
    this.switches = switches;
  }

  /** Busy time so far (CPU time run and context switches), ns. */
  long busyNanos() {
    return busy;
  }

  /** Context switches paid for so far. */
  long switches() {
    return switches;
  }

  /** Whether vCPU {@code vcpu} has a request here. */
  boolean hasRequest(int vcpu) {
    return requests.contains(vcpu);
  }

  /** Whether vCPU {@code vcpu} is stalled (empty unless a fault stalls one: the number is not boxed then). */
  private boolean isStalled(int vcpu) {
    return !stalled.isEmpty() && stalled.contains(vcpu);
  }

  /** Whether vCPU {@code vcpu}'s request is running on the core now. */
  boolean runs(int vcpu) {
    return current != null && current.vcpu == vcpu;
  }

  /** Whether vCPU {@code vcpu} holds the core after its request ended. */
  boolean holds(int vcpu) {
    return held == vcpu;
  }

  /** Whether a boost of {@code vcpu} would change anything: it has a request, is not on the core, not stalled. */
  boolean boostable(int vcpu) {
    return requests.contains(vcpu) && !runs(vcpu) && held != vcpu && !isStalled(vcpu);
  }

  /** vCPU {@code vcpu} asks for {@code nanos} of CPU time ({@link Long#MAX_VALUE}: spin until {@link #finish}). */
  void run(int vcpu, int weight, long nanos, R replyTo, long now) {
    run(vcpu, weight, nanos, replyTo, now, false);
  }

  /**
   * As {@link #run}; {@code yields}: the vCPU, holding the core after its request ended, yields it first (a guest
   * waiting for a reply gives up the rest of its slice and stays runnable, {@link CpuPolicy#yielded}): the core
   * picks again, and a switch to another vCPU costs a context switch; picked again at once, it goes on without one.
   */
  void run(int vcpu, int weight, long nanos, R replyTo, long now, boolean yields) {
    if (held == vcpu && now > heldAt) release(vcpu, heldAt); // it blocked in between: not a hold
    Request<R> r = requests.put(vcpu, weight, nanos, replyTo, now);
    if (isStalled(vcpu)) return; // runnable once the stall ends
    policy.runnable(vcpu, weight, now);
    if (held == vcpu && yields) {
      held = -1;
      policy.yielded(vcpu, now);
      stoppedAt = now;
      dispatch(now);
    } else if (held == vcpu) {
      held = -1;
      goOn(r, now);
    } else {
      woken(vcpu, now);
    }
  }

  /** vCPU {@code vcpu}, holding the core after its request ended, blocks at the time its request ended. */
  void release(int vcpu, long now) {
    if (held != vcpu) return;
    policy.blocked(held, heldAt);
    held = -1;
    stoppedAt = heldAt;
    dispatch(heldAt);
  }

  /** Host work of {@code nanos}: preempts the running vCPU at once and runs to its end. */
  void hostRun(long nanos, R replyTo, long now) {
    if (nanos <= 0) throw new IllegalArgumentException("host work of " + nanos + " ns");
    hostWork.add(new Request<>(HOST, 0, nanos, replyTo, now, true));
    if (held >= 0) {
      unhold(now);
      dispatch(now);
    } else if (current == null) {
      dispatch(now);
    } else if (!current.host) {
      accountSoFar(now);
      preempt(now);
    }
  }

  /** Run {@code vcpu} next, now (FairGV's Algorithm 4); ignored when it has no request or is on the core. */
  void boost(int vcpu, long now) {
    if (!boostable(vcpu)) return;
    policy.boost(vcpu, now);
    if (current != null && current.host) return; // picked next, once the host work is done
    if (held >= 0) {
      unhold(now);
      dispatch(now);
    } else if (current != null) {
      accountSoFar(now);
      preempt(now);
    } else {
      dispatch(now);
    }
  }

  /** The vCPU's request ends as soon as it is on the core (a spin saw its answer at {@code now}). */
  void finish(int vcpu, long now) {
    Request<R> r = requests.get(vcpu);
    if (r == null) return;
    if (current != r) {
      r.remaining = 0; // it still has to get the core to notice: done the moment it is picked
      return;
    }
    now = Math.max(now, sliceStart);
    token++;
    effects.disarmSlice();
    account(r, now - sliceStart, now);
    r.remaining = 0; // a spin is done once what it ran so far is accounted
    current = null;
    complete(r, now);
    hold(r, now);
  }

  /** The slice timer armed with {@code token} fired at {@code now}. */
  void sliceEnded(long token, long now) {
    if (token != this.token || current == null) return;
    Request<R> r = current;
    account(r, now - sliceStart, now);
    current = null;
    if (r.remaining <= 0) {
      complete(r, now);
      if (!r.host) {
        hold(r, now);
        return;
      }
    }
    stoppedAt = now;
    dispatch(now);
  }

  /**
   * vCPU {@code vcpu}'s request is taken back at {@code now} (its vCPU crashed or reboots, its core goes offline):
   * answered with what it ran and the CPU time left of it, and the core goes to the next one. A vCPU holding the core
   * after its request ended gives it up (it blocks there). Nothing happens when it has neither.
   */
  void withdraw(int vcpu, long now) {
    if (held == vcpu) {
      release(vcpu, Math.max(now, heldAt));
      return;
    }
    Request<R> r = requests.get(vcpu);
    if (r == null) return;
    if (current == r) now = stopCurrent(now);
    complete(r, now);
    if (!isStalled(vcpu)) policy.blocked(vcpu, now);
    dispatch(now);
  }

  /**
   * Stops the running request at {@code now} (not before its slice began): its slice timer disarmed, the CPU time it
   * ran accounted, the core idle from then; the time it stopped.
   */
  private long stopCurrent(long now) {
    now = Math.max(now, sliceStart);
    token++;
    effects.disarmSlice();
    account(current, now - sliceStart, now);
    current = null;
    stoppedAt = now;
    return now;
  }

  /**
   * Every request on the core is taken back at {@code now} (its scheduler crashed): the running one first, then the
   * host work in arrival order, then the vCPUs' by vCPU number, each answered with the CPU time left of it; a vCPU
   * holding the core gives it up. The core is idle after it and picks nothing (its policy is done with).
   */
  void takeBackAll(long now) {
    held = -1;
    if (current != null) {
      Request<R> r = current;
      now = stopCurrent(now);
      complete(r, now);
    }
    while (!hostWork.isEmpty()) complete(hostWork.poll(), now);
    for (int vcpu : requests.liveVcpus()) complete(requests.get(vcpu), now);
  }

  /** vCPU {@code vcpu} gets no core from {@code now} until {@link #stallEnded}. */
  void stall(int vcpu, long now) {
    stalled.add(vcpu);
    if (held == vcpu) {
      release(vcpu, now);
      return;
    }
    Request<R> r = requests.get(vcpu);
    if (r == null) return;
    if (current == r) accountSoFar(now);
    if (current != r || r.remaining > 0) policy.blocked(r.vcpu, now);
    if (current == r) preempt(now);
  }

  /** vCPU {@code vcpu}'s stall ended at {@code now}: runnable again as a waking vCPU. */
  void stallEnded(int vcpu, long now) {
    stalled.remove(vcpu);
    Request<R> r = requests.get(vcpu);
    if (r == null) return;
    policy.runnable(r.vcpu, r.weight, now);
    woken(vcpu, now);
  }

  /** A vCPU became runnable at {@code now}: it takes a free core, or preempts the one on it if the policy says so. */
  private void woken(int vcpu, long now) {
    if (held >= 0) {
      if (policy.preempts(vcpu, held, now)) {
        unhold(now);
        dispatch(now);
      }
    } else if (current == null) {
      dispatch(now);
    } else if (current.vcpu != vcpu && !current.host) {
      accountSoFar(now);
      if (policy.preempts(vcpu, current.vcpu, now)) preempt(now);
    }
  }

  /** The held vCPU goes on with its next request at {@code now}: within what is left of its slice, no switch. */
  private void goOn(Request<R> r, long now) {
    if (now >= sliceDue) {
      stoppedAt = now; // its slice ran out as its request ended: the policy picks (it again, if it is due)
      lastVcpu = r.vcpu;
      dispatch(now);
      return;
    }
    current = r;
    sliceStart = now;
    long due = now + Math.min(sliceDue - now, r.remaining);
    effects.armSlice(++token, due);
  }

  /**
   * The held vCPU loses the core at {@code now} (a waking vCPU preempts it, host work or a boost comes first): it
   * stays runnable, and queues for the core like any other when its next request comes.
   */
  private void unhold(long now) {
    held = -1;
    stoppedAt = now;
  }

  /** Reports what the running vCPU has run of its slice so far; the slice goes on to its due time. */
  private void accountSoFar(long now) {
    if (now > sliceStart) {
      account(current, now - sliceStart, now);
      sliceStart = now;
    }
  }

  /** Takes the core from the running vCPU, which stays runnable, and picks again. */
  private void preempt(long now) {
    token++;
    effects.disarmSlice();
    Request<R> r = current;
    current = null;
    stoppedAt = now;
    if (r.remaining <= 0) {
      complete(r, now);
      if (!r.host) policy.blocked(r.vcpu, now);
    }
    dispatch(now);
  }

  /** Gives the core to the next host work, or else to the next vCPU the policy picks, starting at {@code now}. */
  private void dispatch(long now) {
    if (held >= 0) return; // the vCPU whose request just ended says first whether it goes on
    if (current == null && !hostWork.isEmpty()) {
      Request<R> r = hostWork.poll();
      long overhead = switchTo(HOST, now);
      current = r;
      sliceStart = now + overhead;
      effects.armSlice(++token, sliceStart + r.remaining);
      return;
    }
    while (current == null) {
      CpuDecision d = policy.pick(now);
      if (!(d instanceof CpuDecision.Run pick)) return;
      Request<R> r = requests.get(pick.vcpu());
      if (r == null) {
        policy.blocked(pick.vcpu(), now);
        continue;
      }
      if (pick.vcpu() != lastVcpu) effects.switchedTo(pick.vcpu(), now);
      long overhead = switchTo(pick.vcpu(), now);
      if (overhead > 0) policy.ran(pick.vcpu(), overhead, now);
      sliceDue = now + overhead + pick.sliceNanos();
      if (r.remaining <= 0 && overhead == 0) { // its answer came while it waited: it sees it at once
        complete(r, now);
        hold(r, now);
        return;
      }
      current = r;
      sliceStart = now + overhead;
      effects.armSlice(++token, sliceStart + Math.min(pick.sliceNanos(), Math.max(0, r.remaining)));
    }
  }

  /** {@code r}, the running vCPU's request, ended at {@code now}: its vCPU holds the core until it says more. */
  private void hold(Request<R> r, long now) {
    held = r.vcpu;
    heldAt = now;
    lastVcpu = r.vcpu;
  }

  /**
   * The core starts {@code context} at {@code now}: the CPU time the switch costs, none when the same context goes
   * on where it stopped at this very time (it was never switched out). Counted as busy time.
   */
  private long switchTo(int context, long now) {
    boolean switched = context != lastVcpu || now > stoppedAt;
    lastVcpu = context;
    if (!switched) return 0;
    switches++;
    busy += switchNanos;
    return switchNanos;
  }

  private void account(Request<R> r, long ran, long now) {
    ran = Math.max(0, ran);
    if (!r.host) policy.ran(r.vcpu, ran, now);
    busy += ran;
    r.ran += ran;
    if (r.remaining != Long.MAX_VALUE) r.remaining -= ran;
  }

  /** Answers {@code r}'s requester; a vCPU's request leaves the table (whether it blocks is the caller's to say). */
  private void complete(Request<R> r, long now) {
    if (!r.host) requests.remove(r.vcpu);
    long steal = Math.max(0, (now - r.requestedAt) - r.ran);
    effects.done(r.replyTo, r.vcpu, r.ran, steal, now, Math.max(0, r.remaining));
  }
}
