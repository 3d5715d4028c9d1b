package org.gpuemu.emulator.vm;

import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.cpu.CpuScheduler;
import org.gpuemu.emulator.faults.RequestHistory;
import org.gpuemu.emulator.gpu.GpuMemory;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.metrics.MetricsPorts;
import org.gpuemu.workloads.BenchmarkAware;
import org.gpuemu.workloads.BenchmarkRun;
import org.gpuemu.workloads.KernelSpec;
import org.gpuemu.workloads.MemoryAware;
import org.gpuemu.workloads.Program;
import org.slf4j.Logger;

/**
 * What a {@link VCpu} tells the actors around it: its core (CPU time, spinning, a wake-up, a boost), its vGPU and
 * guest agent (the guest's GPU calls), the GPU memory and the metrics hub. One call per message, so the vCPU's own
 * code reads as its state machine; every call carries the model time the vCPU acts at.
 */
final class VcpuCalls {
  /** CPU time a blocked vCPU needs on its core to notice its answer and go on. */
  static final long WAKE_NANOS = 1_000;

  private final int vm;
  private final int vcpu;
  private final Settings.Vm settings;
  private final ActorRef<VCpu.Command> self;
  private final ActorRef<CpuScheduler.Command> core;
  private final CpuScheduler.DoneTo cpuDone;
  private final ActorRef<VGpu.Command> vgpu;
  private final ActorRef<GuestAgent.Command> agent;
  private final ActorRef<GpuMemory.Command> memory;
  private final ActorRef<GpuMemory.Answer> memoryAnswer;
  private final ActorRef<MetricsHub.Command> metrics;
  private final MetricsPorts.Frames frames;
  private final VcpuReports reports;
  private final MemoryCalls memoryCalls;
  /** Where every GPU call gets its id (the checker). */
  private final RequestHistory history;
  /** The channel to the vGPU when a message fault targets the VM (null: the vCPU tells the vGPU directly). */
  final GuestChannel channel;
  /** CPU requests sent so far: whether a vCPU asked for its core again after its last request ended. */
  private long runs;
  /**
   * Its last CPU request ended and the core waits for it to say whether it goes on (a next request at the same model
   * time) or blocks ({@link CpuScheduler.Release}): a request's end is not a scheduling point (CoreModel).
   */
  private boolean coreHeld;
  private long runsAtEnd;

  /** The VM's index. */
  int vm() {
    return vm;
  }

  /**
   * What a vCPU makes once for itself and keeps across its restarts: its reference, where its core answers
   * ({@link VCpu.CpuDone} to itself), the adapter the GPU memory answers at, its log, and its channel to the vGPU
   * when a message fault targets the VM (null: none).
   */
  record Own(ActorRef<VCpu.Command> self, CpuScheduler.DoneTo cpuDone,
      ActorRef<GpuMemory.Answer> memoryAnswer, Logger log, GuestChannel channel) {}

  /** {@code memoryAware}: whether the guest program reports the objects its driver returned ({@link MemoryAware}). */
  VcpuCalls(VCpu.Spec spec, VCpu.Peers peers, Own own, VcpuReports reports, RequestHistory history,
      boolean memoryAware) {
    this.history = history;
    this.channel = own.channel();
    this.vm = spec.vm().index();
    this.vcpu = spec.vcpu();
    this.settings = spec.vm();
    this.self = own.self();
    this.core = peers.core();
    this.cpuDone = own.cpuDone();
    this.vgpu = peers.vgpu();
    this.agent = peers.agent();
    this.memory = peers.memory();
    this.memoryAnswer = own.memoryAnswer();
    this.metrics = peers.metrics();
    this.frames = peers.frames();
    this.reports = reports;
    this.memoryCalls = new MemoryCalls(vm, settings.name(), memoryAware, own.log());
  }

  /** Run on the core for {@code nanos} of CPU time from {@code at}. */
  void cpu(long nanos, long at) {
    runs++;
    core.tell(new CpuScheduler.Run(vcpu, settings.weight(), nanos, cpuDone, at));
  }

  /** Whether a synchronous call's spin that ran out yields the core and spins again ({@code sync-wait = yield}). */
  boolean syncYields() {
    return settings.syncWait() == Settings.SyncWait.YIELD;
  }

  /** The spin ran out with no answer: yield the core at {@code at} and spin again up to the limit once back on it. */
  void yieldAndSpin(long at) {
    runs++;
    core.tell(new CpuScheduler.Run(vcpu, settings.weight(), settings.spinLimitNanos(), cpuDone, at, true));
  }

  /** A CPU request ended: the core holds for this vCPU until {@link #settle}. */
  void requestEnded() {
    coreHeld = true;
    runsAtEnd = runs;
  }

  /**
   * The steps after a CPU request's end are done (no batch of asynchronous ones still to come): if none asked for
   * the core again, the guest blocks, and its core hears so at {@code at}, the model time the request ended.
   */
  void settle(long at) {
    if (!coreHeld) return;
    coreHeld = false;
    if (runs == runsAtEnd) core.tell(new CpuScheduler.Release(vcpu, at));
  }

  /** Whether a synchronous call spins on the core at all (poll, or hybrid with a spin limit). */
  boolean syncSpins() {
    return settings.syncWait() == Settings.SyncWait.POLL || settings.spinLimitNanos() != 0;
  }

  /** Spin on the core for a synchronous answer, from {@code at}: until it comes (poll) or up to the spin limit. */
  void spin(long at) {
    cpu(settings.syncWait() == Settings.SyncWait.POLL ? Long.MAX_VALUE : settings.spinLimitNanos(), at);
  }

  /** Whether a blocked Present keeps the vCPU spinning on its core ({@code present-wait = poll}). */
  boolean presentSpins() {
    return settings.presentWait() == Settings.PresentWait.POLL;
  }

  /** Spin until told to stop ({@link #finish}). */
  void spinUntilFinished(long at) {
    cpu(Long.MAX_VALUE, at);
  }

  /** A blocked vCPU's answer came: it needs the core briefly to notice it. */
  void wake(long at) {
    cpu(WAKE_NANOS, at);
  }

  /** A crash or a reboot: the request on the core is taken back (the core answers with what was left of it). */
  void withdraw(long at) {
    core.tell(new CpuScheduler.Withdraw(vcpu, at));
  }

  void finish(long at) {
    core.tell(new CpuScheduler.Finish(vcpu, at));
  }

  void boost(long at) {
    core.tell(new CpuScheduler.Boost(vcpu, at));
  }

  /** A slice on the core ended: its CPU time and steal time go where the policies use them. */
  void sliceEnded(VCpu.CpuDone done) {
    if (reports.cpuTime() && done.ranNanos() > 0) vgpu.tell(new VGpu.CpuTime(done.ranNanos()));
    if (reports.steal() && done.stealNanos() > 0) memory.tell(new GpuMemory.Steal(vm, vcpu, done.stealNanos()));
  }

  void launch(KernelSpec kernel, long at) {
    long id = history.submitted(vm, at);
    toVgpu(new VGpu.Launch(kernel, vcpu, at, id), id, at);
  }

  void sync(KernelSpec kernel, long at) {
    long id = history.submitted(vm, at);
    toVgpu(new VGpu.Sync(kernel, vcpu, self, at, id), id, at);
  }

  /** Over the channel when the VM has one and the request an id, else straight to the vGPU. */
  private void toVgpu(VGpu.Command call, long id, long at) {
    if (channel != null && id >= 0) {
      channel.send(call, id, at);
    } else {
      vgpu.tell(call);
    }
  }

  /** Whether nothing sent to the vGPU awaits its acknowledgement or is on its way. */
  boolean channelIdle() {
    return channel == null || channel.idle();
  }

  /** Present, and its tail (if any) as a request of its own before it; {@code cpuNanos}: the call's own CPU work. */
  void present(KernelSpec tail, long cpuNanos, long at) {
    long tailCall = tail == null ? -1 : history.submitted(vm, at);
    agent.tell(new GuestAgent.Present(self, tail, at, tailCall, history.submitted(vm, at), cpuNanos));
  }

  void flush(long at) {
    long id = history.submitted(vm, at);
    toVgpu(new VGpu.Flush(self, id), id, at);
  }

  void allocate(long bytes) {
    memory.tell(memoryCalls.allocate(bytes, memoryAnswer));
  }

  void free(long bytes) {
    memory.tell(memoryCalls.free(bytes));
  }

  /** The GPU memory answered an allocation: counted, and what the VM holds now goes to the metrics. */
  void memoryAnswered(GpuMemory.Answer answer) {
    memoryCalls.answered(answer.decision());
    memoryHeld(answer.heldBytes());
  }

  /** What the VM holds now (an answer, or the host's notice of a memory pressure), to the metrics. */
  void memoryHeld(long heldBytes) {
    metrics.tell(new MetricsHub.MemoryHeld(vm, heldBytes));
  }

  /**
   * The vCPU's report, with its memory calls, the objects its guest driver returned ({@link MemoryAware}), the
   * benchmarks its program ran ({@link BenchmarkAware}) and the GPU calls its channel failed ({@link GuestChannel}).
   */
  VcpuReport report(Program program, long ran, long steal, long maxStall, long steps, long programNanos) {
    long returns = program instanceof MemoryAware aware ? aware.returns() : 0;
    List<BenchmarkRun> benchmarks = program instanceof BenchmarkAware b ? b.benchmarks() : List.of();
    return memoryCalls.report(vcpu, ran, steal, maxStall, steps, returns, programNanos, benchmarks,
        channel == null ? 0 : channel.failed);
  }

  void frame(long latencyNanos) {
    frames.frame(latencyNanos);
  }

}
