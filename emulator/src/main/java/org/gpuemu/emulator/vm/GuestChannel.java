package org.gpuemu.emulator.vm;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.faults.RequestHistory;

/**
 * The guest's side of its channel to the vGPU when a message fault targets the VM ({@code message-delay},
 * {@code message-duplicate}, {@code message-loss}). Without one a vCPU tells its vGPU directly and nothing here exists.
 *
 * <p>With one, every launch, synchronous call and flush travels as a {@link VGpu.Transmitted}: its request id and the
 * time the guest gives up on it. The vGPU acknowledges each on arrival ({@link VCpu.Received}); until then the guest
 * waits {@code guest-timeout}, sends the same message again (a retry in the run's history) and doubles the wait, and
 * after {@code guest-attempts} sends fails the request {@code timed-out} (a synchronous caller and a flush are
 * answered then): nothing vanishes. The vGPU runs a request once: it keeps the ids it has taken until their give-up
 * time and drops a second copy (acknowledging it again), and drops a copy that arrives after the give-up, since the
 * guest has failed that request ({@link VgpuLedger#take}).
 *
 * <p>A {@code Present} (which goes through the guest agent, not this channel) waits in the guest until the channel
 * holds nothing ({@link VcpuGuest}): a channel keeps its messages in order, so a Present never reaches the vGPU before
 * the commands of its frame, or their failure. Without that wait a guest whose launches were lost saw its Presents
 * return at once (the vGPU had none of the frame), raced ahead frame after frame, and its retries, arriving after the
 * heal, queued seconds of GPU work ahead of its next Present.
 *
 * <p>The faults act here, on the messages sent while they last, as a network emulator's qdisc acts on a link: a delay
 * holds each message {@code message-delay} of model time (a timer) before it goes; a duplicate sends it twice; a loss
 * does not send it. Retries sent during the fault are hit too. The channel outlives a vCPU's restart ({@link #rearm});
 * a reboot fails what it holds with {@code vm-crashed} ({@link #reset}).
 */
final class GuestChannel {
  /** What a message fault does to the messages sent from {@code from} until {@code until}. */
  private enum Mode { CLEAR, DELAY, DUPLICATE, LOSS }

  private record Awaited(long id) {}

  private record Held(long seq) {}

  /** A request sent and not yet acknowledged: the message, its sends so far, the time its current wait ends. */
  private static final class Open {
    final VGpu.Transmitted message;
    int sends;
    long waitEnds;

    Open(VGpu.Transmitted message) {
      this.message = message;
    }
  }

  private final int vm;
  private final FaultPlan.Channel settings;
  private final ActorRef<VGpu.Command> vgpu;
  private final ActorRef<VCpu.Command> self;
  private final RequestHistory history;
  private final RunContext run;
  private final TimerScheduler<VCpu.Command> timers;
  private final Map<Long, Open> open = new HashMap<>();
  /** Delayed copies on their way, by sequence, with the time each arrives. */
  private final TreeMap<Long, VGpu.Transmitted> held = new TreeMap<>();
  private final Map<Long, Long> heldUntil = new HashMap<>();
  private long nextHeld;
  private Mode mode = Mode.CLEAR;
  private long from;
  private long until;
  /** Requests failed here (timed out, or dropped by a reboot): the vGPU never took them. */
  long failed;

  /** The channel's two ends: the vGPU it carries the guest's calls to, and the vCPU they come from. */
  record Ends(ActorRef<VGpu.Command> vgpu, ActorRef<VCpu.Command> vcpu) {}

  /** {@code timers}: the vCPU's, which outlive its restarts as the channel does. */
  GuestChannel(int vm, FaultPlan.Channel settings, Ends ends, RequestHistory history, RunContext run,
      TimerScheduler<VCpu.Command> timers) {
    this.run = run;
    this.timers = timers;
    this.vm = vm;
    this.settings = settings;
    this.vgpu = ends.vgpu();
    this.self = ends.vcpu();
    this.history = history;
  }

  /** A message fault of {@code kind}: the messages sent from {@code fromNanos} until {@code untilNanos} are hit. */
  void fault(FaultPlan.Kind kind, long fromNanos, long untilNanos) {
    mode = switch (kind) {
      case MESSAGE_DELAY -> Mode.DELAY;
      case MESSAGE_DUPLICATE -> Mode.DUPLICATE;
      case MESSAGE_LOSS -> Mode.LOSS;
      default -> throw new IllegalArgumentException("not a message fault: " + kind);
    };
    from = fromNanos;
    until = untilNanos;
  }

  /** Request {@code id} ({@code call}) sent at {@code at}. */
  void send(VGpu.Command call, long id, long at) {
    Open o = new Open(new VGpu.Transmitted(call, id, at + settings.giveUpNanos(), self));
    open.put(id, o);
    transmit(o, at);
  }

  private void transmit(Open o, long at) {
    o.waitEnds = at + (settings.timeoutNanos() << o.sends);
    o.sends++;
    long id = o.message.id();
    run.arm(timers, new Awaited(id), new VCpu.ChannelTimer(id, false, o.waitEnds), o.waitEnds);
    Mode now = at >= from && at < until ? mode : Mode.CLEAR;
    switch (now) {
      case CLEAR -> vgpu.tell(o.message);
      case LOSS -> { } // not sent: the wait above ends unacknowledged
      case DUPLICATE -> {
        vgpu.tell(o.message);
        vgpu.tell(o.message);
      }
      case DELAY -> {
        long seq = nextHeld++;
        long arrives = at + settings.delayNanos();
        held.put(seq, o.message);
        heldUntil.put(seq, arrives);
        run.arm(timers, new Held(seq), new VCpu.ChannelTimer(seq, true, arrives), arrives);
      }
    }
  }

  /** A delayed copy's time came: it goes to the vGPU now. */
  void arrived(long seq) {
    VGpu.Transmitted m = held.remove(seq);
    heldUntil.remove(seq);
    if (m != null) vgpu.tell(m);
  }

  /** The vGPU took request {@code id}: no more waiting for it. */
  void received(long id) {
    if (open.remove(id) != null) run.disarm(timers, new Awaited(id));
  }

  /** The wait for request {@code id} ended at {@code at} unacknowledged: send it again, or fail it. */
  void timedOut(long id, long at) {
    Open o = open.get(id);
    if (o == null || o.waitEnds != at) return; // acknowledged meanwhile
    if (o.sends < settings.attempts()) {
      history.retried(vm, id, at);
      transmit(o, at);
      return;
    }
    open.remove(id);
    failed++;
    history.failed(vm, id, "timed-out", at);
    answer(o.message.call(), at);
  }

  /** A caller blocked on a failed request is answered, as the vGPU answers a failed one. */
  private void answer(VGpu.Command call, long at) {
    if (call instanceof VGpu.Sync) {
      self.tell(new VCpu.SyncReturned(at));
    } else if (call instanceof VGpu.Flush) {
      self.tell(VCpu.FlushReturned.INSTANCE);
    }
  }

  /** Nothing unacknowledged and nothing on its way: the vCPU may stop. */
  boolean idle() {
    return open.isEmpty() && held.isEmpty();
  }

  /** A new incarnation of the vCPU: the timers the restart cancelled are due as before. */
  void rearm() {
    for (Open o : open.values()) {
      long id = o.message.id();
      run.arm(timers, new Awaited(id), new VCpu.ChannelTimer(id, false, o.waitEnds), o.waitEnds);
    }
    for (Map.Entry<Long, Long> e : heldUntil.entrySet()) {
      run.arm(timers, new Held(e.getKey()), new VCpu.ChannelTimer(e.getKey(), true, e.getValue()), e.getValue());
    }
  }

  /** The VM reboots at {@code at}: what the channel holds is gone with it, each request failed {@code reason}. */
  void reset(long at, String reason) {
    for (Open o : new TreeMap<>(open).values()) {
      run.disarm(timers, new Awaited(o.message.id()));
      history.failed(vm, o.message.id(), reason, at);
      failed++;
    }
    for (Long seq : held.keySet()) run.disarm(timers, new Held(seq));
    open.clear();
    held.clear();
    heldUntil.clear();
  }
}
