package org.gpuemu.emulator.gpu;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.clock.Timed;
import org.gpuemu.emulator.gpu.Scheduling.AgentJoin;
import org.gpuemu.emulator.gpu.Scheduling.Collect;
import org.gpuemu.emulator.gpu.Scheduling.MayPresent;
import org.gpuemu.emulator.gpu.Scheduling.PresentAllowed;
import org.gpuemu.emulator.gpu.Scheduling.SetMode;
import org.gpuemu.emulator.gpu.Scheduling.ToAgent;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.policies.vgris.AlgorithmSwitch;
import org.gpuemu.policies.vgris.PresentDecision;
import org.gpuemu.policies.vgris.PresentGate;
import org.gpuemu.policies.vgris.SecondReport;
import org.slf4j.Logger;

/**
 * VGRIS's scheduling controller (vgris.txt §3.1), a part of the time-sharing core switched on by a {@link PresentGate}
 * policy: the guest agents join it and get their Present mode; every emulated second it collects each agent's
 * frames, adds the GPU usage the core accounted, and hands the reports to the policy; when the algorithm changes it
 * gives every agent its new mode and the timeline the new mode name; and it answers agents asking to Present under
 * proportional share, at once or when the budget allows.
 *
 * <p>A plain object the {@link GpuScheduler} owns and calls, not a child actor: a child would put a message hop
 * between the core's accounting of a completion and the controller's budget, and between an agent's question and
 * the answer, and so shift the timing the paper's figures were measured with.
 */
public final class VgrisController implements PresentControl {

  /**
   * An agent's answer to {@link Collect}: frames presented since its previous report; {@code running} is false while
   * the guest had not yet presented when the second began (not started, or loading).
   */
  public record AgentReport(int vgpu, long seq, int frames, boolean running) implements GpuScheduler.Command {}

  /** A postponed Present may be allowed at emulated time {@code due}. */
  record PresentWake(long due) implements GpuScheduler.Command, Timed {}

  private static final Object PRESENT_WAKE = "present-wake";
  private static final long SECOND_NANOS = 1_000_000_000L;

  private final PresentGate gate;
  private final RunContext run;
  private final TimerScheduler<GpuScheduler.Command> timers;
  private final ActorRef<MetricsHub.Command> metrics;
  private final ActorRef<AgentReport> self;
  private final Logger log;
  /** The vGPUs that joined the core (a live view), and the core's model time for an unstamped question. */
  private final Set<Integer> joined;
  private final LongSupplier now;
  private final Map<Integer, ActorRef<ToAgent>> agents = new LinkedHashMap<>();
  private final Map<Integer, ActorRef<ToAgent>> postponed = new LinkedHashMap<>();
  private final Map<Integer, Long> busyThisSecond = new HashMap<>();
  private Map<Integer, Long> busyOfCollected = Map.of();
  private final Set<Integer> awaitingReports = new HashSet<>();
  private final List<SecondReport> reports = new ArrayList<>();
  private long seq;
  private long collectedEnd;

  VgrisController(PresentGate gate, RunContext run, TimerScheduler<GpuScheduler.Command> timers,
      ActorRef<MetricsHub.Command> metrics, ActorContext<GpuScheduler.Command> ctx, CoreParts.View core) {
    this.gate = gate;
    this.run = run;
    this.timers = timers;
    this.metrics = metrics;
    this.self = ctx.getSelf().narrow();
    this.log = ctx.getLog();
    this.joined = core.joined();
    this.now = core.now();
  }

  @Override public <T> Behavior<T> onAgentJoin(AgentJoin join) {
    agents.put(join.vgpu(), join.agent());
    if (joined.contains(join.vgpu())) join.agent().tell(new SetMode(gate.presentMode(join.vgpu())));
    return Behaviors.same();
  }

  @Override public void vgpuJoined(int vgpu) {
    ActorRef<ToAgent> agent = agents.get(vgpu);
    if (agent != null) agent.tell(new SetMode(gate.presentMode(vgpu)));
  }

  @Override public <T> Behavior<T> onMayPresent(MayPresent ask) {
    postponed.put(ask.vgpu(), ask.replyTo());
    releasePresents(now.getAsLong());
    return Behaviors.same();
  }

  @Override public void left(int vgpu) {
    agents.remove(vgpu);
    postponed.remove(vgpu);
    if (awaitingReports.remove(vgpu) && awaitingReports.isEmpty()) evaluateSecond();
  }

  /** The core accounted a completion: GPU usage of the second, which the reports carry. */
  void completed(int vgpu, long gpuNanos) {
    busyThisSecond.merge(vgpu, gpuNanos, Long::sum);
  }

  /** Lets every postponed Present go that the policy now allows; wakes up again for the earliest of the rest. */
  void releasePresents(long now) {
    long earliest = Long.MAX_VALUE;
    var it = postponed.entrySet().iterator();
    while (it.hasNext()) {
      var e = it.next();
      PresentDecision d = gate.requestPresent(e.getKey(), now);
      if (d instanceof PresentDecision.PostponeUntil until) {
        earliest = Math.min(earliest, until.nanos());
      } else {
        e.getValue().tell(PresentAllowed.INSTANCE);
        it.remove();
      }
    }
    if (earliest != Long.MAX_VALUE) run.arm(timers, PRESENT_WAKE, new PresentWake(earliest), earliest);
  }

  /** The second ending at {@code due}: every agent is asked for its frames; evaluated once all have answered. */
  void secondEnded(long due) {
    if (!awaitingReports.isEmpty()) {
      // an agent did not answer within a whole second: evaluate with the reports that came
      log.warn("agents {} did not report the second ending at {} ns", awaitingReports, due);
      awaitingReports.clear();
      evaluateSecond();
    }
    seq++;
    reports.clear();
    collectedEnd = due;
    busyOfCollected = Map.copyOf(busyThisSecond);
    busyThisSecond.clear();
    for (Map.Entry<Integer, ActorRef<ToAgent>> e : agents.entrySet()) {
      awaitingReports.add(e.getKey());
      e.getValue().tell(new Collect(seq, due - SECOND_NANOS, self));
    }
    if (awaitingReports.isEmpty()) evaluateSecond();
  }

  Behavior<GpuScheduler.Command> onAgentReport(AgentReport msg) {
    if (msg.seq() != seq || !awaitingReports.remove(msg.vgpu())) return Behaviors.same();
    long busy = busyOfCollected.getOrDefault(msg.vgpu(), 0L);
    if (msg.running()) reports.add(new SecondReport(msg.vgpu(), msg.frames(), (double) busy / SECOND_NANOS));
    if (awaitingReports.isEmpty()) evaluateSecond();
    return Behaviors.same();
  }

  /** Every algorithm switch so far, for the report. */
  List<AlgorithmSwitch> switches() {
    return List.copyOf(gate.switches());
  }

  /** Each VM's final proportional share by vGPU, for the report. */
  Map<Integer, Double> shares() {
    return Map.copyOf(gate.shares());
  }

  /** Algorithm 1's step for the second just collected; new modes go to every agent when the algorithm changed. */
  private void evaluateSecond() {
    if (gate.secondEnded(collectedEnd, List.copyOf(reports))) {
      for (Map.Entry<Integer, ActorRef<ToAgent>> e : agents.entrySet()) {
        e.getValue().tell(new SetMode(gate.presentMode(e.getKey())));
      }
      metrics.tell(new MetricsHub.Mode(gate.algorithm().label()));
    }
    reports.clear();
  }
}
