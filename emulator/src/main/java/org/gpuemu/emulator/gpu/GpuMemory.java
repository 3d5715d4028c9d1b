package org.gpuemu.emulator.gpu;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.gpuemu.emulator.clock.Timed;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
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

  /** What a GTT copy at a context switch costs. */
  public record CopyCost(int vm, long cpuNanos) {}

  /** The decision for one allocation, with the VM's holding afterwards. */
  public record Answer(long requestId, MemoryDecision decision, long heldBytes) {}

  /**
   * Final figures; {@code slots} by VM is {final, max} high-memory slots and {@code figures} the slot policy's
   * counters (both empty without a slot policy).
   */
  public record MemoryReport(String policy, long grants, long rejections, List<String> violations,
      Map<Integer, List<Integer>> slots, Map<String, Object> figures) {}

  private final MemoryPolicy policy;
  private final GttMemoryPolicy gtt;
  private final RunContext run;
  private final TimerScheduler<Command> timers;
  private final Map<Integer, Integer> maxSlots = new TreeMap<>();
  private ActorRef<MetricsHub.Command> metrics;
  private int hostCpus;
  private long grants;
  private long rejections;

  /** {@code copiesGtt}: the policy declared PolicyInput.GTT_COPIES (so it is a {@link GttMemoryPolicy}). */
  public static Behavior<Command> create(MemoryPolicy policy, boolean copiesGtt, RunContext run) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers ->
        run.causal(new GpuMemory(ctx, policy, copiesGtt ? (GttMemoryPolicy) policy : null, run, timers))));
  }

  private GpuMemory(ActorContext<Command> ctx, MemoryPolicy policy, GttMemoryPolicy gtt, RunContext run,
      TimerScheduler<Command> timers) {
    super(ctx);
    this.policy = policy;
    this.gtt = gtt;
    this.run = run;
    this.timers = timers;
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
          return this;
        })
        .onMessage(CopyTime.class, m -> {
          if (gtt != null) gtt.copyTime(m.cpuNanos());
          return this;
        })
        .onMessage(Begin.class, this::onBegin)
        .onMessage(PeriodEnded.class, this::onPeriodEnded)
        .build();
  }

  private Behavior<Command> onJoin(Join msg) {
    policy.addVm(msg.vm(), msg.name(), msg.capBytes());
    noteSlots();
    return this;
  }

  private Behavior<Command> onAllocate(Allocate msg) {
    MemoryDecision d = policy.allocate(msg.vm(), msg.bytes(), run.now());
    if (d instanceof MemoryDecision.Granted) grants++; else rejections++;
    msg.replyTo().tell(new Answer(msg.requestId(), d, policy.allocated(msg.vm())));
    noteSlots();
    return this;
  }

  private Behavior<Command> onFree(Free msg) {
    policy.free(msg.vm(), msg.bytes(), run.now());
    return this;
  }

  private Behavior<Command> onReport(Report msg) {
    Map<Integer, List<Integer>> slots = new TreeMap<>();
    Map<String, Object> figures = new LinkedHashMap<>();
    if (gtt != null) {
      gtt.ranges().forEach((vm, range) -> slots.put(vm, List.of(range.size(), maxSlots.getOrDefault(vm, 0))));
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
    }
    msg.replyTo().tell(new MemoryReport(policy.name(), grants, rejections, policy.checkInvariants(), slots,
        figures));
    return this;
  }

  private Behavior<Command> onSwitchTo(SwitchTo msg) {
    long cpu = gtt == null ? 0 : gtt.switchTo(msg.vm()).cpuNanos();
    msg.replyTo().tell(new CopyCost(msg.vm(), cpu));
    return this;
  }

  private Behavior<Command> onBegin(Begin msg) {
    metrics = msg.metrics();
    hostCpus = msg.hostCpus();
    if (gtt != null) {
      long due = gtt.periodNanos();
      run.arm(timers, "period", new PeriodEnded(due), due);
      noteSlots();
    }
    return this;
  }

  /** gBalloon's profiling period (§3.2): W, Rcopy and f, and the reductions the policy made. */
  private Behavior<Command> onPeriodEnded(PeriodEnded msg) {
    long due = run.fired(msg.due());
    Profile p = gtt.periodEnded(due, hostCpus);
    if (metrics != null) metrics.tell(new MetricsHub.MemoryProfile(p.w(), p.rcopy(), p.f()));
    for (SlotChange change : p.reductions()) {
      getContext().getLog().info("memory: vm {} reduced from {} to {} slots ({} MiB evicted)", change.vm(),
          change.before().size(), change.after().size(), change.evictedBytes() >> 20);
    }
    noteSlots();
    long next = due + gtt.periodNanos();
    run.arm(timers, "period", new PeriodEnded(next), next);
    return this;
  }

  /** Each VM's slot count, to the timeline and the maxima. */
  private void noteSlots() {
    if (gtt == null) return;
    gtt.ranges().forEach((vm, range) -> {
      maxSlots.merge(vm, range.size(), Math::max);
      if (metrics != null) metrics.tell(new MetricsHub.Slots(vm, range.size()));
    });
  }
}
