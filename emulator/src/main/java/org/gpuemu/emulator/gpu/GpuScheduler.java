package org.gpuemu.emulator.gpu;

import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.run.RunContext;
import org.gpuemu.policies.gpu.GpuDecision;
import org.gpuemu.policies.gpu.GpuPolicy;
import org.gpuemu.policies.gpu.GpuWork;
import org.gpuemu.policies.gpu.VgpuParams;

/**
 * The GPU time-sharing scheduler: a thin adapter around a {@link GpuPolicy}. vGPUs tell it what they queued and
 * what completed; it asks the policy what to dispatch and tells the owning vGPU to hand that request to its SM
 * group. When the policy wants to be asked again later (a slice ends, a budget refills) it arms a timer.
 */
public final class GpuScheduler extends AbstractBehavior<GpuScheduler.Command> {

  public sealed interface Command {}

  /** A vGPU joins; must precede its first {@link Queued}. */
  public record Join(VgpuParams params, ActorRef<Dispatch> vgpu) implements Command {}

  public record Queued(GpuWork work) implements Command {}

  /** A vGPU leaves (its VM stopped and its work drained); nothing of it is queued any more. */
  public record Leave(int vgpu) implements Command {}

  public record Completed(GpuWork work, long gpuNanos) implements Command {}

  public record Report(ActorRef<SchedulerReport> replyTo) implements Command {}

  private record Wake(long token, long due) implements Command {}

  /** To a vGPU: hand this request to the GPU now. */
  public record Dispatch(GpuWork work) {}

  /** Final figures: the policy's name and invariant violations, dispatches made. */
  public record SchedulerReport(String policy, long dispatched, List<String> violations) {}

  private static final Object WAKE = "wake";

  private final GpuPolicy policy;
  private final RunContext run;
  private final TimerScheduler<Command> timers;
  private final java.util.Map<Integer, ActorRef<Dispatch>> vgpus = new java.util.HashMap<>();
  private int inflight;
  private long dispatched;
  private long token;

  public static Behavior<Command> create(GpuPolicy policy, RunContext run) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> new GpuScheduler(ctx, policy, run, timers)));
  }

  private GpuScheduler(ActorContext<Command> ctx, GpuPolicy policy, RunContext run, TimerScheduler<Command> timers) {
    super(ctx);
    this.policy = policy;
    this.run = run;
    this.timers = timers;
  }

  @Override public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Join.class, this::onJoin)
        .onMessage(Queued.class, this::onQueued)
        .onMessage(Leave.class, this::onLeave)
        .onMessage(Completed.class, this::onCompleted)
        .onMessage(Wake.class, this::onWake)
        .onMessage(Report.class, this::onReport)
        .build();
  }

  private Behavior<Command> onJoin(Join msg) {
    vgpus.put(msg.params().vgpu(), msg.vgpu());
    policy.addVgpu(msg.params());
    return this;
  }

  private Behavior<Command> onQueued(Queued msg) {
    long now = run.now();
    policy.queued(msg.work(), now);
    decide(now);
    return this;
  }

  private Behavior<Command> onLeave(Leave msg) {
    vgpus.remove(msg.vgpu());
    long now = run.now();
    policy.removeVgpu(msg.vgpu());
    decide(now);
    return this;
  }

  private Behavior<Command> onCompleted(Completed msg) {
    long now = run.now();
    inflight--;
    policy.completed(msg.work(), msg.gpuNanos(), now);
    decide(now);
    return this;
  }

  private Behavior<Command> onWake(Wake msg) {
    if (msg.token() != token) return this;
    decide(run.fired(msg.due()));
    return this;
  }

  private Behavior<Command> onReport(Report msg) {
    msg.replyTo().tell(new SchedulerReport(policy.name(), dispatched, policy.checkInvariants()));
    return this;
  }

  private void decide(long now) {
    while (true) {
      GpuDecision d = policy.next(now, inflight);
      if (d instanceof GpuDecision.Dispatch dispatch) {
        inflight++;
        dispatched++;
        vgpus.get(dispatch.work().vgpu()).tell(new Dispatch(dispatch.work()));
      } else {
        if (d instanceof GpuDecision.WakeAt wake) {
          run.arm(timers, WAKE, new Wake(++token, wake.nanos()), wake.nanos());
        }
        return;
      }
    }
  }
}
