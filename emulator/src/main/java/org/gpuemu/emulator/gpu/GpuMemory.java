package org.gpuemu.emulator.gpu;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.gpuemu.emulator.clock.Timed;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.faults.Crashed;
import org.gpuemu.emulator.faults.FaultInjector;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.policies.gballoon.GttMemoryPolicy;
import org.gpuemu.policies.gballoon.Profile;
import org.gpuemu.policies.gballoon.SlotChange;
import org.gpuemu.policies.gballoon.SlotCounters;
import org.gpuemu.policies.memory.MemoryDecision;
import org.gpuemu.policies.memory.MemoryPolicy;

/**
 * The GPU's memory, handed out to VMs by a {@link MemoryPolicy}; a refusal carries its reason to the guest. With a
 * slot policy ({@link GttMemoryPolicy}: gVirt's static types, gBalloon) it also owns the physical GTT: at every vGPU
 * context switch the SM group asks it what must be copied ({@link SwitchTo}), the vCPUs report their steal time,
 * the copies report their CPU time, and every profiling period it lets the policy adjust the slots (gballoon §3).
 *
 * <p>{@code memory-crash} ({@link Crash}). Effect: the actor fails and supervision restarts it; what it had
 * not handled waits in its inbox. Recovery: nothing is rebuilt because nothing is lost: the allocations and slots are
 * the GPU's page tables (the policy's state), the counters and the run's wiring live outside the actor
 * ({@link Held}), and the profiling period's timer, cancelled by the restart, is due as before. What the fault checks
 * is that a restart of the memory's actor costs the guests nothing.
 */
public final class GpuMemory extends AbstractBehavior<GpuMemory.Command> {

  public sealed interface Command {}

  public record Join(int vm, String name, long capBytes) implements Command {}

  public record Allocate(int vm, long requestId, long bytes, ActorRef<Answer> replyTo) implements Command {}

  public record Free(int vm, long bytes) implements Command {}

  public record Report(ActorRef<MemoryReport> replyTo) implements Command {}

  /** A vGPU's context is loaded: reply what its GTT copy costs in CPU time (0 without a slot policy). */
  public record SwitchTo(int vm, ActorRef<CopyCost> replyTo) implements Command {}

  /** A vCPU of the VM waited this long for its core (gBalloon's W). */
  public record Steal(int vm, int vcpu, long stealNanos) implements Command {}

  /** CPU time a GTT copy took on its host core (gBalloon's Rcopy). */
  public record CopyTime(long cpuNanos) implements Command {}

  /** Emulated time zero: the profiling periods start; the host has {@code hostCpus} cores. */
  public record Begin(int hostCpus, ActorRef<MetricsHub.Command> metrics) implements Command {}

  private record PeriodEnded(long due) implements Command, Timed {}

  /** VM {@code vm} rebooted at {@code atNanos} (vm-reboot): everything it held is freed; its guest allocates again. */
  public record Release(int vm, long atNanos) implements Command {}

  /**
   * Fault {@code fault} (memory-pressure) at {@code atNanos}: the host withdraws the top {@code bytes} of the guests'
   * high memory (whole slots, rounded up) until {@code untilNanos}. Effect: what VMs held there is evicted and their
   * guests are told what they hold now (an {@link Answer#notice}, as gBalloon's balloon driver learns its range);
   * allocations beyond the rest are refused with the reason; the policy adapts as to any lack of memory (gVirt's
   * static types refuse, gBalloon expands within the usable slots). Recovery: at {@code untilNanos} the slots are
   * the guests' again, and a guest that lacks memory gets it at its next request. Under a policy without slots
   * (refused by validation) nothing happens.
   */
  public record Pressure(int fault, long bytes, long atNanos, long untilNanos,
      ActorRef<FaultInjector.Outcome> outcomes) implements Command {}

  private record PressureEnds(int fault, long due) implements Command, Timed {}

  /** Fault {@code fault} (memory-crash) at {@code atNanos}: see the class. */
  public record Crash(int fault, long atNanos, ActorRef<FaultInjector.Outcome> outcomes) implements Command {}

  /** What a GTT copy at a context switch costs. */
  public record CopyCost(int vm, long cpuNanos) {}

  /** The decision for one allocation, with the VM's holding afterwards. */
  public record Answer(long requestId, MemoryDecision decision, long heldBytes) {
    /** The request id of a notice: no allocation is answered. */
    public static final long NOTICE = -1;

    /** Not an answer: the host took memory from the VM (memory-pressure), which now holds {@code heldBytes}. */
    public static Answer notice(long heldBytes) {
      return new Answer(NOTICE, new MemoryDecision.Granted(0), heldBytes);
    }

    public boolean isNotice() {
      return requestId == NOTICE;
    }
  }

  /**
   * Final figures; {@code slots} by VM is {final, max} high-memory slots and {@code figures} the slot policy's
   * counters (both empty without a slot policy).
   */
  public record MemoryReport(String policy, long grants, long rejections, List<String> violations,
      Map<Integer, List<Integer>> slots, Map<String, Object> figures) {}

  /** What outlives a crash of the actor: counters, the slots' maxima, the run's wiring, the period's due time. */
  private static final class Held {
    final Map<Integer, Integer> maxSlots = new TreeMap<>();
    ActorRef<MetricsHub.Command> metrics;
    int hostCpus;
    long grants;
    long rejections;
    long periodDue = -1;
    /** Where each VM's allocations are answered (its vCPUs), to tell them of a memory pressure's evictions. */
    final Map<Integer, java.util.Set<ActorRef<Answer>>> askers = new TreeMap<>();
    /** The memory pressure in force: its fault and end (-1: none). */
    int pressureFault = -1;
    long pressureUntil = -1;
    ActorRef<FaultInjector.Outcome> pressureOutcomes;
  }

  private final MemoryPolicy policy;
  private final GttMemoryPolicy gtt;
  private final RunContext run;
  private final TimerScheduler<Command> timers;
  private final Held held;

  /** {@code copiesGtt}: the policy declared PolicyInput.GTT_COPIES (so it is a {@link GttMemoryPolicy}). */
  public static Behavior<Command> create(MemoryPolicy policy, boolean copiesGtt, RunContext run) {
    Held held = new Held();
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> run.causal(Crashed.restarting(Behaviors.setup(
        c -> new GpuMemory(c, policy, copiesGtt ? (GttMemoryPolicy) policy : null, held, run, timers))))));
  }

  private GpuMemory(ActorContext<Command> ctx, MemoryPolicy policy, GttMemoryPolicy gtt, Held held, RunContext run,
      TimerScheduler<Command> timers) {
    super(ctx);
    this.policy = policy;
    this.gtt = gtt;
    this.held = held;
    this.run = run;
    this.timers = timers;
    if (held.periodDue >= 0) run.arm(timers, "period", new PeriodEnded(held.periodDue), held.periodDue);
    if (held.pressureUntil >= 0) {
      run.arm(timers, "pressure", new PressureEnds(held.pressureFault, held.pressureUntil), held.pressureUntil);
    }
  }

  @Override public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Join.class, this::onJoin)
        .onMessage(Allocate.class, this::onAllocate)
        .onMessage(Free.class, this::onFree)
        .onMessage(Report.class, this::onReport)
        .onMessage(SwitchTo.class, this::onSwitchTo)
        .onMessage(Steal.class, m -> {
          if (gtt != null) gtt.stealTime(m.vm(), m.vcpu(), m.stealNanos());
          return Behaviors.same();
        })
        .onMessage(CopyTime.class, m -> {
          if (gtt != null) gtt.copyTime(m.cpuNanos());
          return Behaviors.same();
        })
        .onMessage(Begin.class, this::onBegin)
        .onMessage(PeriodEnded.class, this::onPeriodEnded)
        .onMessage(Crash.class, this::onCrash)
        .onMessage(Pressure.class, this::onPressure)
        .onMessage(PressureEnds.class, this::onPressureEnds)
        .onMessage(Release.class, this::onRelease)
        .onSignal(PreRestart.class, sig -> {
          run.disarmAll(timers); // the restart cancels them; the order must not count them any more
          return Behaviors.same();
        })
        .build();
  }

  private Behavior<Command> onJoin(Join msg) {
    policy.addVm(msg.vm(), msg.name(), msg.capBytes());
    noteSlots();
    return Behaviors.same();
  }

  private Behavior<Command> onAllocate(Allocate msg) {
    held.askers.computeIfAbsent(msg.vm(), k -> new java.util.LinkedHashSet<>()).add(msg.replyTo());
    MemoryDecision d = policy.allocate(msg.vm(), msg.bytes(), run.now());
    if (d instanceof MemoryDecision.Granted) held.grants++; else held.rejections++;
    msg.replyTo().tell(new Answer(msg.requestId(), d, policy.allocated(msg.vm())));
    noteSlots();
    return Behaviors.same();
  }

  private Behavior<Command> onFree(Free msg) {
    policy.free(msg.vm(), msg.bytes(), run.now());
    return Behaviors.same();
  }

  private Behavior<Command> onReport(Report msg) {
    Map<Integer, List<Integer>> slots = new TreeMap<>();
    Map<String, Object> figures = new LinkedHashMap<>();
    if (gtt != null) {
      gtt.ranges().forEach((vm, range) -> slots.put(vm, List.of(range.size(), held.maxSlots.getOrDefault(vm, 0))));
      SlotCounters c = gtt.counters();
      figures.put("context_switches", c.switches());
      figures.put("gtt_slots_copied", c.slotsCopied());
      figures.put("gtt_low_copies", c.lowCopies());
      figures.put("gtt_copy_cpu_ms", c.copyCpuNanos() / 1e6);
      figures.put("expansions", c.expansions());
      figures.put("expansions_refused", c.expansionsRefused());
      figures.put("reductions", c.reductions());
      figures.put("slots_reduced", c.slotsReduced());
      figures.put("evicted_mb", c.evictedBytes() / 1048576.0);
      figures.put("pressure_evicted_mb", c.pressureEvictedBytes() / 1048576.0);
    }
    msg.replyTo().tell(new MemoryReport(policy.name(), held.grants, held.rejections, policy.checkInvariants(), slots,
        figures));
    return Behaviors.same();
  }

  private Behavior<Command> onSwitchTo(SwitchTo msg) {
    long cpu = gtt == null ? 0 : gtt.switchTo(msg.vm()).cpuNanos();
    msg.replyTo().tell(new CopyCost(msg.vm(), cpu));
    return Behaviors.same();
  }

  private Behavior<Command> onBegin(Begin msg) {
    held.metrics = msg.metrics();
    held.hostCpus = msg.hostCpus();
    if (gtt != null) {
      held.periodDue = gtt.periodNanos();
      run.arm(timers, "period", new PeriodEnded(held.periodDue), held.periodDue);
      noteSlots();
    }
    return Behaviors.same();
  }

  private Behavior<Command> onRelease(Release msg) {
    long held = policy.allocated(msg.vm());
    if (held > 0) policy.free(msg.vm(), held, Math.max(run.now(), msg.atNanos()));
    noteSlots();
    return Behaviors.same();
  }

  private Behavior<Command> onCrash(Crash msg) {
    long at = Math.max(run.now(), msg.atNanos());
    msg.outcomes().tell(new FaultInjector.Healed(msg.fault(), at)); // restarted at once
    getContext().getLog().warn("GPU memory crashes at {} s (fault {}); supervision restarts it", at / 1e9,
        msg.fault());
    throw new Crashed("GPU memory", msg.fault());
  }

  private Behavior<Command> onPressure(Pressure msg) {
    long at = Math.max(run.now(), msg.atNanos());
    if (gtt == null || held.pressureUntil >= 0) { // no slots to take (validation refuses it), or one in force
      getContext().getLog().warn("memory pressure at {} s (fault {}) has no effect: {}", at / 1e9, msg.fault(),
          gtt == null ? "the memory policy has no slots" : "another memory pressure is in force");
      msg.outcomes().tell(new FaultInjector.Healed(msg.fault(), at));
      return Behaviors.same();
    }
    int slots = Math.min(gtt.memory().guestSlots(), gtt.memory().slotsFor(msg.bytes()));
    SortedMap<Integer, Long> lost = gtt.withdraw(slots);
    getContext().getLog().info("memory pressure at {} s (fault {}): the host withdraws {} of {} slots until {} s; "
        + "evicted from vms {}", at / 1e9, msg.fault(), slots, gtt.memory().guestSlots(), msg.untilNanos() / 1e9,
        lost.keySet());
    lost.forEach((vm, now) -> held.askers.getOrDefault(vm, java.util.Set.of())
        .forEach(asker -> asker.tell(Answer.notice(now))));
    held.pressureFault = msg.fault();
    held.pressureUntil = msg.untilNanos();
    held.pressureOutcomes = msg.outcomes();
    run.arm(timers, "pressure", new PressureEnds(msg.fault(), msg.untilNanos()), msg.untilNanos());
    noteSlots();
    return Behaviors.same();
  }

  private Behavior<Command> onPressureEnds(PressureEnds msg) {
    long due = run.fired(msg.due());
    gtt.restore();
    getContext().getLog().info("memory pressure healed at {} s (fault {})", due / 1e9, msg.fault());
    held.pressureOutcomes.tell(new FaultInjector.Healed(msg.fault(), due));
    held.pressureFault = -1;
    held.pressureUntil = -1;
    held.pressureOutcomes = null;
    return Behaviors.same();
  }

  /** gBalloon's profiling period (§3.2): W, Rcopy and f, and the reductions the policy made. */
  private Behavior<Command> onPeriodEnded(PeriodEnded msg) {
    long due = run.fired(msg.due());
    Profile p = gtt.periodEnded(due, held.hostCpus);
    if (held.metrics != null) held.metrics.tell(new MetricsHub.MemoryProfile(p.w(), p.rcopy(), p.f()));
    for (SlotChange change : p.reductions()) {
      getContext().getLog().info("memory: vm {} reduced from {} to {} slots ({} MiB evicted)", change.vm(),
          change.before().size(), change.after().size(), change.evictedBytes() >> 20);
    }
    noteSlots();
    held.periodDue = due + gtt.periodNanos();
    run.arm(timers, "period", new PeriodEnded(held.periodDue), held.periodDue);
    return Behaviors.same();
  }

  /** Each VM's slot count, to the timeline and the maxima. */
  private void noteSlots() {
    if (gtt == null) return;
    gtt.ranges().forEach((vm, range) -> {
      held.maxSlots.merge(vm, range.size(), Math::max);
      if (held.metrics != null) held.metrics.tell(new MetricsHub.Slots(vm, range.size()));
    });
  }
}
