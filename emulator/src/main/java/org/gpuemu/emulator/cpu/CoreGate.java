package org.gpuemu.emulator.cpu;

import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.BehaviorInterceptor;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.clock.RunContext;

/**
 * A core going offline and back ({@code core-offline}), in front of its {@link CpuScheduler}: while the core
 * is offline, what is sent to it goes to another core, so the vCPUs pinned to it move without knowing where they run.
 *
 * <p>Effect ({@link CpuScheduler.Offline}): as Linux's CPU hot-unplug moves the tasks of a CPU going down to an online
 * one (kernel/sched/core.c, {@code migrate_tasks}; a task whose affinity holds no other CPU gets any online one,
 * {@code select_fallback_rq}), every vCPU that has asked this core has its request taken back ({@code Withdraw}:
 * answered with the CPU time left; one holding the core after its request ended gives it up), and asks again; from
 * then on the gate passes to the fallback core (the first other online one) every vCPU's request, a moved vCPU's
 * {@code Finish}, {@code Release}, {@code Boost} and {@code Withdraw}, and new host work. The fallback core's
 * policy sees a new runnable vCPU, so the moved vCPUs share its time with those there, and the time they wait is
 * their steal time. Host work already queued here (a gBalloon GTT copy) finishes here.
 *
 * <p>Recovery ({@code Online}, at the fault's planned end): the vCPUs moved away are taken back from the fallback core
 * and ask here again (their pinning is the scenario's). Nothing fails. The gate sits outside the scheduler's
 * supervisor, its state in {@link CoreLedger}: a crash of the scheduler does not bring the core back.
 */
final class CoreGate extends BehaviorInterceptor<CpuScheduler.Command, CpuScheduler.Command> {
  private static final Object ONLINE = "online";

  private final CoreLedger ledger;
  private final RunContext run;
  private final TimerScheduler<CpuScheduler.Command> timers;

  CoreGate(CoreLedger ledger, RunContext run, TimerScheduler<CpuScheduler.Command> timers) {
    super(CpuScheduler.Command.class);
    this.ledger = ledger;
    this.run = run;
    this.timers = timers;
  }

  /** The core comes back at the end of {@code offline}: its timer (again, after a crash cancelled it). */
  static void online(CpuScheduler.Offline offline, RunContext run, TimerScheduler<CpuScheduler.Command> timers) {
    run.arm(timers, ONLINE, new CpuScheduler.Online(offline.untilNanos()), offline.untilNanos());
  }

  @Override
  public Behavior<CpuScheduler.Command> aroundReceive(TypedActorContext<CpuScheduler.Command> ctx,
      CpuScheduler.Command msg, ReceiveTarget<CpuScheduler.Command> target) {
    if (msg instanceof CpuScheduler.Offline off) return offline(ctx, off, target);
    if (msg instanceof CpuScheduler.Online on) return online(on);
    if (msg instanceof CpuScheduler.Run r) ledger.seen.add(r.vcpu());
    if (ledger.offline == null || !passesOn(msg)) return target.apply(ctx, msg);
    ledger.offline.fallback().tell(msg);
    return Behaviors.same();
  }

  private Behavior<CpuScheduler.Command> offline(TypedActorContext<CpuScheduler.Command> ctx,
      CpuScheduler.Offline msg, ReceiveTarget<CpuScheduler.Command> target) {
    ledger.offline = msg;
    online(msg, run, timers);
    Behavior<CpuScheduler.Command> next = Behaviors.same();
    for (int vcpu : ledger.seen) next = target.apply(ctx, new CpuScheduler.Withdraw(vcpu, msg.atNanos()));
    return next;
  }

  private Behavior<CpuScheduler.Command> online(CpuScheduler.Online msg) {
    long now = run.fired(msg.due());
    for (int vcpu : ledger.moved) ledger.offline.fallback().tell(new CpuScheduler.Withdraw(vcpu, now));
    ledger.online();
    return Behaviors.same();
  }

  /** Whether {@code msg}, arriving while the core is offline, belongs to the fallback core. */
  private boolean passesOn(CpuScheduler.Command msg) {
    if (msg instanceof CpuScheduler.Run r) {
      ledger.moved.add(r.vcpu());
      return true;
    }
    if (msg instanceof CpuScheduler.HostRun) return true;
    if (msg instanceof CpuScheduler.Finish f) return ledger.moved.contains(f.vcpu());
    if (msg instanceof CpuScheduler.Boost b) return ledger.moved.contains(b.vcpu());
    if (msg instanceof CpuScheduler.Release r) return ledger.moved.contains(r.vcpu());
    return msg instanceof CpuScheduler.Withdraw w && ledger.moved.contains(w.vcpu());
  }
}
