package org.gpuemu.emulator.gpu;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import org.gpuemu.emulator.clock.Timed;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.run.RunContext;
import org.gpuemu.policies.gpu.GpuDecision;
import org.gpuemu.policies.gpu.GpuPolicy;
import org.gpuemu.policies.gpu.GpuWork;
import org.gpuemu.policies.gpu.VgpuParams;
import org.gpuemu.policies.vgris.AlgorithmSwitch;
import org.gpuemu.policies.vgris.PresentDecision;
import org.gpuemu.policies.vgris.PresentGate;
import org.gpuemu.policies.vgris.PresentMode;
import org.gpuemu.policies.vgris.SecondReport;
import org.gpuemu.policies.gpu.BusInput;
import org.gpuemu.policies.gpu.CpuTimeInput;
import org.gpuemu.policies.spi.PolicyInput;
import org.gpuemu.policies.fairgv.CoscheduleOutcome;
import org.gpuemu.policies.fairgv.CoscheduleRequest;
import org.gpuemu.policies.fairgv.CpuCentricCoscheduling;
import org.gpuemu.policies.fairgv.GpuCentricCoscheduling;
import org.gpuemu.emulator.vm.VCpu;
import org.gpuemu.workloads.KernelSpec;

/**
 * The GPU time-sharing scheduler: a thin adapter around a {@link GpuPolicy}. vGPUs tell it what they queued and
 * what completed; it asks the policy what to dispatch and tells the owning vGPU to hand that request to its SM
 * group. When the policy wants to be asked again later (a slice ends, a budget refills) it arms a timer.
 *
 * <p>With a VGRIS policy ({@link PresentGate}) it is also VGRIS's scheduling controller (vgris.txt §3.1): the
 * guest agents join it and get their Present mode; every emulated second it collects each agent's frames, adds
 * the GPU usage it accounted itself, and hands the reports to the policy; when the algorithm changes it gives
 * every agent its new mode and the timeline the new mode name; and it answers agents asking to Present under
 * proportional share, at once or when the budget allows.
 */
public final class GpuScheduler extends AbstractBehavior<GpuScheduler.Command> {

  public sealed interface Command {}

  /** A vGPU joins; must precede its first {@link Queued}. */
  public record Join(VgpuParams params, ActorRef<Dispatch> vgpu) implements Command {}

  /**
   * A request reached the driver at emulated time {@code atNanos}; {@code vcpu} is the vCPU the frontend tagged it
   * with (-1: none); {@code kernel} is what it runs and {@code frame} the frame the guest was recording (Presents
   * before it), which space sharing needs.
   */
  public record Queued(GpuWork work, int vcpu, long atNanos, KernelSpec kernel, long frame) implements Command {
    public Queued(GpuWork work, int vcpu, long atNanos) {
      this(work, vcpu, atNanos, null, 0);
    }
  }

  /**
   * A guest presented frame {@code frame} (0-based), which holds {@code kernels} requests; sent only to a space
   * sharing scheduler (it needs to know when a frame has rendered).
   */
  public record Presented(int vgpu, long frame, int kernels) implements Command {}

  /** Space sharing: the physical GPU and its render and BE groups (before any vGPU joins). */
  public record Groups(ActorRef<PhysicalGpu.Command> gpu, ActorRef<SmGroup.Command> render,
      ActorRef<SmGroup.Command> be) implements Command {}

  /** The run ended at emulated time {@code atNanos}: the guests stop and the GPU drains what they queued. */
  public record End(long atNanos) implements Command {}

  /** A space sharing scheduler's own timer: a held frame may start at emulated time {@code due}. */
  public record FrameDue(long token, long due) implements Command, Timed {}

  /**
   * Where the VMs' vCPUs are, for coscheduling (FairGV Algorithms 3-4): every vCPU by its global index, and each
   * VM's main vCPU (the one running its program). The host sends it once every VM exists.
   */
  public record Placement(Map<Integer, ActorRef<VCpu.Command>> vcpus, Map<Integer, Integer> mainVcpu)
      implements Command {}

  /** A vGPU leaves (its VM stopped and its work drained); nothing of it is queued any more. */
  public record Leave(int vgpu) implements Command {}

  /**
   * A core switched to a vCPU of the VM with vGPU {@code vgpu} at {@code atNanos} (Pegasus's Algorithm 1): a
   * {@link CpuCentricCoscheduling} policy may switch the GPU to it (Algorithm 2); other policies ignore it.
   */
  public record CpuPicked(int vgpu, long atNanos) implements Command {}

  /** A request completed at emulated time {@code finishedNanos}, having used {@code gpuNanos} of GPU time. */
  public record Completed(GpuWork work, long gpuNanos, long finishedNanos) implements Command {}

  public record Report(ActorRef<SchedulerReport> replyTo) implements Command {}

  private record Wake(long token, long due) implements Command, Timed {}

  /** A VM's guest agent joins the controller; it gets its {@link SetMode} at once. */
  public record AgentJoin(int vgpu, ActorRef<ToAgent> agent) implements Command {}

  /** An agent asks whether its VM may Present now; the answer is {@link PresentAllowed}, maybe later. */
  public record MayPresent(int vgpu, ActorRef<ToAgent> replyTo) implements Command {}

  /**
   * An agent's answer to {@link Collect}: frames presented since its previous report; {@code running} is false
   * while the guest had not yet presented when the second began (not started, or loading).
   */
  public record AgentReport(int vgpu, long seq, int frames, boolean running) implements Command {}

  /** A vCPU of the VM held a core this long (VMCG's CPU scheduling time, §5.1). */
  public record CpuTime(int vgpu, long cpuNanos) implements Command {}

  /** The VM's graphics memory as a share of the GPU's (VMCG's MSIZE_i / MSIZE), known when it is created. */
  public record MemoryShare(int vgpu, double share) implements Command {}

  /** Emulated time zero has come (the guardian sends it): the controller's per-second reports begin. */
  public enum Begin implements Command { INSTANCE }

  private record SecondEnded(long due) implements Command, Timed {}

  private record PresentWake(long due) implements Command, Timed {}

  /** What the controller tells a guest agent. */
  public sealed interface ToAgent {}

  /** The mode the agent applies to Present from now on. */
  public record SetMode(PresentMode mode) implements ToAgent {}

  /** The Present the agent asked about may go. */
  public enum PresentAllowed implements ToAgent { INSTANCE }

  /** Report the frames of the second that began at {@code secondStart}. */
  public record Collect(long seq, long secondStart) implements ToAgent {}

  /**
   * To a vGPU: hand this request to the GPU, as decided at emulated time {@code atNanos}; space sharing names the SM
   * group and how the kernel is bound ({@code group} null: the vGPU's own group).
   */
  public record Dispatch(GpuWork work, long atNanos, ActorRef<SmGroup.Command> group, SmGroup.Bind bind) {
    public Dispatch(GpuWork work, long atNanos) {
      this(work, atNanos, null, null);
    }
  }

  /**
   * Final figures: the policy's name and invariant violations, dispatches made; for a VGRIS policy also its
   * algorithm switches and each VM's final share (by vGPU; empty otherwise).
   */
  public record SchedulerReport(String policy, long dispatched, List<String> violations,
      List<AlgorithmSwitch> switches, Map<Integer, Double> shares, Map<String, Object> figures) {}

  private static final Object WAKE = "wake";
  private static final Object SECOND = "second";
  private static final Object PRESENT_WAKE = "present-wake";
  private static final long SECOND_NANOS = 1_000_000_000L;

  private final GpuPolicy policy;
  private final RunContext run;
  private final TimerScheduler<Command> timers;
  private final ActorRef<MetricsHub.Command> metrics;
  private final PresentGate gate;
  private final CpuTimeInput cpuTime;
  private final BusInput bus;
  private final GpuCentricCoscheduling coscheduling;
  private final CpuCentricCoscheduling cpuCentric;
  private long cpuRequests;
  private long cpuSwitches;
  private Placement placement;
  private long coschedules;
  private long clock;
  private final Map<Integer, Double> memoryShares = new HashMap<>();
  private final Map<Integer, Long> queuedThisSecond = new HashMap<>();
  private final Map<Integer, ActorRef<Dispatch>> vgpus = new HashMap<>();
  private final Map<Integer, ActorRef<ToAgent>> agents = new LinkedHashMap<>();
  private final Map<Integer, ActorRef<ToAgent>> postponed = new LinkedHashMap<>();
  private final Map<Integer, Long> busyThisSecond = new HashMap<>();
  private Map<Integer, Long> busyOfCollected = Map.of();
  private final Set<Integer> awaitingReports = new HashSet<>();
  private final List<SecondReport> reports = new ArrayList<>();
  private int inflight;
  private long dispatched;
  private long token;
  private long seq;
  private long secondEnd;
  private long collectedEnd;

  /** A scheduler for {@code policy}, wiring the inputs it declared ({@code inputs}, from its spec). */
  public static Behavior<Command> create(GpuPolicy policy, Set<PolicyInput> inputs, RunContext run,
      ActorRef<MetricsHub.Command> metrics) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> run.causal(
        new GpuScheduler(ctx, policy, inputs, run, metrics, timers))));
  }

  private GpuScheduler(ActorContext<Command> ctx, GpuPolicy policy, Set<PolicyInput> inputs, RunContext run,
      ActorRef<MetricsHub.Command> metrics, TimerScheduler<Command> timers) {
    super(ctx);
    this.policy = policy;
    this.run = run;
    this.metrics = metrics;
    this.timers = timers;
    this.gate = inputs.contains(PolicyInput.PRESENT) ? (PresentGate) policy : null;
    this.cpuTime = inputs.contains(PolicyInput.CPU_TIME) ? (CpuTimeInput) policy : null;
    this.bus = inputs.contains(PolicyInput.BUS_AND_MEMORY) ? (BusInput) policy : null;
    this.coscheduling = inputs.contains(PolicyInput.GPU_COSCHEDULING) ? (GpuCentricCoscheduling) policy : null;
    this.cpuCentric = inputs.contains(PolicyInput.CPU_COSCHEDULING) ? (CpuCentricCoscheduling) policy : null;
    metrics.tell(new MetricsHub.Mode(gate != null ? gate.algorithm().label() : policy.name()));
  }

  @Override public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Join.class, this::onJoin)
        .onMessage(Queued.class, this::onQueued)
        .onMessage(Placement.class, m -> {
          placement = m;
          return this;
        })
        .onMessage(Leave.class, this::onLeave)
        .onMessage(CpuPicked.class, this::onCpuPicked)
        .onMessage(Completed.class, this::onCompleted)
        .onMessage(Wake.class, this::onWake)
        .onMessage(AgentJoin.class, this::onAgentJoin)
        .onMessage(Begin.class, m -> onBegin())
        .onMessage(CpuTime.class, this::onCpuTime)
        .onMessage(MemoryShare.class, this::onMemoryShare)
        .onMessage(MayPresent.class, this::onMayPresent)
        .onMessage(PresentWake.class, this::onPresentWake)
        .onMessage(SecondEnded.class, this::onSecondEnded)
        .onMessage(AgentReport.class, this::onAgentReport)
        .onMessage(Report.class, this::onReport)
        .onMessage(Presented.class, m -> this)
        .onMessage(Groups.class, m -> this)
        .onMessage(End.class, m -> this)
        .onMessage(FrameDue.class, m -> this)
        .build();
  }

  private Behavior<Command> onCpuPicked(CpuPicked msg) {
    if (cpuCentric == null || !vgpus.containsKey(msg.vgpu())) return this;
    long now = at(msg.atNanos());
    cpuRequests++;
    if (cpuCentric.coschedule(msg.vgpu(), now) instanceof CoscheduleOutcome.Switched) {
      cpuSwitches++;
      decide(now);
    }
    return this;
  }

  private Behavior<Command> onJoin(Join msg) {
    vgpus.put(msg.params().vgpu(), msg.vgpu());
    policy.addVgpu(msg.params());
    ActorRef<ToAgent> agent = agents.get(msg.params().vgpu());
    if (agent != null) agent.tell(new SetMode(PresentGate.presentModeOf(policy, msg.params().vgpu())));
    Double memory = memoryShares.get(msg.params().vgpu());
    if (bus != null && memory != null) bus.resourcesMeasured(msg.params().vgpu(), 0, memory);
    return this;
  }

  /**
   * The model time of an event stamped {@code atNanos}, never before the scheduler's latest: decisions are taken
   * at the time of the event that caused them, not when its message arrived (DESIGN.md §4).
   */
  private long at(long atNanos) {
    clock = run.received(clock, atNanos);
    return clock;
  }

  /** For an unstamped message: the wall clock's model time, never before the scheduler's latest event. */
  private long atWallNow() {
    clock = Math.max(clock, run.now());
    return clock;
  }

  private Behavior<Command> onQueued(Queued msg) {
    long now = at(msg.atNanos());
    if (coscheduling != null && msg.vcpu() >= 0) {
      coscheduling.queued(msg.work(), msg.vcpu(), now);
    } else {
      policy.queued(msg.work(), now);
    }
    queuedThisSecond.merge(msg.work().vgpu(), 1L, Long::sum);
    decide(now);
    return this;
  }

  private Behavior<Command> onCpuTime(CpuTime msg) {
    if (cpuTime != null && vgpus.containsKey(msg.vgpu())) cpuTime.cpuTimeUsed(msg.vgpu(), msg.cpuNanos());
    return this;
  }

  private Behavior<Command> onMemoryShare(MemoryShare msg) {
    memoryShares.put(msg.vgpu(), msg.share());
    if (bus != null && vgpus.containsKey(msg.vgpu())) bus.resourcesMeasured(msg.vgpu(), 0, msg.share());
    return this;
  }

  /**
   * VMCG's BW_i, each second. The emulator moves no data over a PCI-E model, so a VM's bus occupancy is taken as
   * its share of the command buffers (CRBs) submitted in the second: each is one DMA of commands.
   */
  private void measureResources() {
    long total = 0;
    for (long n : queuedThisSecond.values()) total += n;
    for (Integer v : vgpus.keySet()) {
      double bw = total == 0 ? 0 : (double) queuedThisSecond.getOrDefault(v, 0L) / total;
      bus.resourcesMeasured(v, bw, memoryShares.getOrDefault(v, 0.0));
    }
    queuedThisSecond.clear();
  }

  private Behavior<Command> onLeave(Leave msg) {
    vgpus.remove(msg.vgpu());
    agents.remove(msg.vgpu());
    postponed.remove(msg.vgpu());
    if (awaitingReports.remove(msg.vgpu()) && awaitingReports.isEmpty()) evaluateSecond();
    long now = atWallNow();
    policy.removeVgpu(msg.vgpu());
    decide(now);
    return this;
  }

  private Behavior<Command> onCompleted(Completed msg) {
    long now = at(msg.finishedNanos());
    inflight--;
    busyThisSecond.merge(msg.work().vgpu(), msg.gpuNanos(), Long::sum);
    policy.completed(msg.work(), msg.gpuNanos(), now);
    decide(now);
    return this;
  }

  private Behavior<Command> onWake(Wake msg) {
    if (msg.token() != token) return this;
    decide(at(run.fired(msg.due())));
    return this;
  }

  private Behavior<Command> onReport(Report msg) {
    List<AlgorithmSwitch> switches = gate == null ? List.of() : List.copyOf(gate.switches());
    SortedMap<Integer, Double> shares = gate == null ? new java.util.TreeMap<>() : gate.shares();
    Map<String, Object> figures = new LinkedHashMap<>(policy.figures());
    if (coscheduling != null) figures.put("coschedule_requests", coschedules);
    if (cpuCentric != null) {
      // Pegasus: the CPU scheduler's requests, and how many passed Algorithm 2's fairness check and switched
      figures.put("coschedule_requests", cpuRequests);
      figures.put("coschedule_switches", cpuSwitches);
    }
    msg.replyTo().tell(new SchedulerReport(policy.name(), dispatched, policy.checkInvariants(), switches,
        Map.copyOf(shares), figures));
    return this;
  }

  // ------------------------------------------------------------------ VGRIS controller

  private Behavior<Command> onAgentJoin(AgentJoin msg) {
    agents.put(msg.vgpu(), msg.agent());
    // the vGPU and its agent start concurrently: the mode goes out once both have joined
    if (vgpus.containsKey(msg.vgpu())) msg.agent().tell(new SetMode(PresentGate.presentModeOf(policy, msg.vgpu())));
    return this;
  }

  /** Agents join while the tree is built, before time zero; the clock may be read only from here on. */
  private Behavior<Command> onBegin() {
    if (gate != null || bus != null) {
      secondEnd = SECOND_NANOS;
      run.arm(timers, SECOND, new SecondEnded(secondEnd), secondEnd);
    }
    return this;
  }

  private Behavior<Command> onMayPresent(MayPresent msg) {
    if (gate == null) {
      msg.replyTo().tell(PresentAllowed.INSTANCE);
      return this;
    }
    postponed.put(msg.vgpu(), msg.replyTo());
    releasePresents(atWallNow());
    return this;
  }

  private Behavior<Command> onPresentWake(PresentWake msg) {
    releasePresents(at(run.fired(msg.due())));
    return this;
  }

  /** Lets every postponed Present go that the policy now allows; wakes up again for the earliest of the rest. */
  private void releasePresents(long now) {
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

  private Behavior<Command> onSecondEnded(SecondEnded msg) {
    long due = run.fired(msg.due());
    if (bus != null) measureResources();
    if (gate == null) {
      secondEnd = due + SECOND_NANOS;
      run.arm(timers, SECOND, new SecondEnded(secondEnd), secondEnd);
      decide(at(due));
      return this;
    }
    if (!awaitingReports.isEmpty()) {
      // an agent did not answer within a whole second: evaluate with the reports that came
      getContext().getLog().warn("agents {} did not report the second ending at {} ns", awaitingReports, due);
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
      e.getValue().tell(new Collect(seq, due - SECOND_NANOS));
    }
    secondEnd = due + SECOND_NANOS;
    run.arm(timers, SECOND, new SecondEnded(secondEnd), secondEnd);
    if (awaitingReports.isEmpty()) evaluateSecond();
    return this;
  }

  private Behavior<Command> onAgentReport(AgentReport msg) {
    if (msg.seq() != seq || !awaitingReports.remove(msg.vgpu())) return this;
    long busy = busyOfCollected.getOrDefault(msg.vgpu(), 0L);
    if (msg.running()) {
      reports.add(new SecondReport(msg.vgpu(), msg.frames(), (double) busy / SECOND_NANOS));
    }
    if (awaitingReports.isEmpty()) evaluateSecond();
    return this;
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

  /** Hands each request to the vCPU it names (or its VM's main vCPU), which applies Algorithm 4 with its core. */
  private void coschedule(List<CoscheduleRequest> requests) {
    if (placement == null) return;
    for (CoscheduleRequest r : requests) {
      Integer vcpu = r.vcpu().isPresent() ? Integer.valueOf(r.vcpu().getAsInt()) : placement.mainVcpu().get(r.vgpu());
      ActorRef<VCpu.Command> target = vcpu == null ? null : placement.vcpus().get(vcpu);
      if (target != null) {
        coschedules++;
        target.tell(new VCpu.Coschedule(r.nanos()));
      }
    }
  }

  private void decide(long now) {
    while (true) {
      GpuDecision d = policy.next(now, inflight);
      if (coscheduling != null) coschedule(coscheduling.takeCoscheduleRequests());
      if (d instanceof GpuDecision.Dispatch dispatch) {
        inflight++;
        dispatched++;
        vgpus.get(dispatch.work().vgpu()).tell(new Dispatch(dispatch.work(), now));
      } else {
        if (d instanceof GpuDecision.WakeAt wake) {
          run.arm(timers, WAKE, new Wake(++token, wake.nanos()), wake.nanos());
        }
        return;
      }
    }
  }
}
