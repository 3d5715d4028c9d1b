package org.gpuemu.emulator.vm;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.faults.FaultInjector;
import org.gpuemu.emulator.vm.VcpuState.Wait;
import org.gpuemu.workloads.Program;
import org.gpuemu.workloads.Step;
import org.slf4j.Logger;

/**
 * The guest program's side of a {@link VCpu}: it runs the program's steps until one blocks, resumes after an answer,
 * and carries out the faults that hit the vCPU. Its state is the VM's {@link VcpuState}; one per actor incarnation.
 *
 * <p>{@code vcpu-crash} ({@link VCpu.Crash}). Effect: the actor fails and supervision restarts it, as a hypervisor
 * replaces the thread that runs a vCPU. The dying thread's request on its core is withdrawn
 * ({@code CpuScheduler.Withdraw}: the core goes to another vCPU at once, and answers with the CPU time left), and the
 * new incarnation asks again for the rest as a waking vCPU: it loses its place on the core. Recovery: the guest's
 * context lives in the VM ({@link VcpuState}), so the new incarnation takes the guest up where it was: a GPU or
 * memory call in flight is not issued again (it would run twice), its answer comes to the same reference; a sleep's
 * timer, cancelled by the restart, is armed again at its due time ({@link #restarted}). Nothing fails.
 *
 * <p>{@code vm-reboot} ({@link VCpu.Reboot}). Effect: the step in progress is abandoned: the core request withdrawn,
 * the sleep cancelled, and every answer of the old boot dropped until the VM is up (the vGPU and the guest agent fail
 * its calls in flight with {@code vm-crashed}). Recovery: the down time later the program starts again from its first
 * step ({@link #rebooted}); the frame across the reboot is not a frame.
 */
final class VcpuGuest {
  private static final int ASYNC_BATCH = 64;
  private static final Object SLEEP = "sleep";
  private static final Object REBOOT = "reboot";

  private final VcpuState st;
  private final VcpuCalls calls;
  private final RunContext run;
  private final TimerScheduler<VCpu.Command> timers;
  private final ActorRef<VCpu.Command> self;

  VcpuGuest(VcpuState st, VcpuCalls calls, RunContext run, TimerScheduler<VCpu.Command> timers,
      ActorRef<VCpu.Command> self) {
    this.st = st;
    this.calls = calls;
    this.run = run;
    this.timers = timers;
    this.self = self;
  }

  /** A new incarnation: the timers the restart cancelled are due as before. */
  void restarted() {
    if (calls.channel != null) calls.channel.rearm();
    if (st.wait == Wait.SLEEP) run.arm(timers, SLEEP, new VCpu.SleepEnded(st.sleepDue), st.sleepDue);
    if (st.downUntil >= 0 && st.downUntil < Long.MAX_VALUE) {
      run.arm(timers, REBOOT, new VCpu.Rebooted(st.downUntil), st.downUntil);
    }
  }

  void stop(ActorRef<VCpu.Stopped> replyTo) {
    st.stopRequested = replyTo;
    if (st.wait == Wait.SLEEP) {
      run.disarm(timers, SLEEP);
      st.wait = Wait.NONE;
    }
    if (st.downUntil >= 0) { // rebooting: the VM stays off; the old boot's answers are still dropped
      run.disarm(timers, REBOOT);
      st.downUntil = Long.MAX_VALUE;
      stopNow();
    } else if (st.wait == Wait.NONE) {
      stopNow();
    }
  }

  /** Present has returned to the guest at {@code now}: a frame, unless it failed ({@code failure}). */
  void presentDone(long now, String failure) {
    if (failure == null) {
      if (st.lastPresent >= 0) calls.frame(now - st.lastPresent);
      st.lastPresent = now;
    }
    resume();
  }

  /**
   * Inside a Present, the agent's CPU work (its own, or the call's): the vCPU asks its core for it and the agent hears
   * when it ends ({@link #agentWorkDone}). A vCPU spinning on its core for the Present ({@code present-wait = poll})
   * runs it within that spin, so the agent hears at once; so it does when the Present is no longer pending.
   */
  void agentWork(VCpu.AgentWork w) {
    long at = Math.max(st.clock, w.atNanos());
    if (st.wait != Wait.PRESENT || st.downUntil >= 0 || st.presentSpinning) {
      w.replyTo().tell(new GuestAgent.GuestCpuRan(at));
      return;
    }
    st.agentWorkFor = w.replyTo();
    st.clock = at;
    calls.cpu(w.nanos(), at);
  }

  /** The core ran the agent's work (false: there was none): the agent hears, then an answer held meanwhile. */
  boolean agentWorkDone() {
    if (st.agentWorkFor == null) return false;
    st.agentWorkFor.tell(new GuestAgent.GuestCpuRan(st.clock));
    st.agentWorkFor = null;
    VCpu.PresentReturned held = st.heldAnswer;
    st.heldAnswer = null;
    if (held != null) {
      st.clock = Math.max(st.clock, st.heldAnswerAt);
      presentDone(st.clock, held.failure());
    }
    return true;
  }

  /** Whether the Present's answer {@code a} at {@code at} waits for the agent's work on the core to end. */
  boolean holdAnswer(VCpu.PresentReturned a, long at) {
    if (st.agentWorkFor == null) return false;
    st.heldAnswer = a;
    st.heldAnswerAt = at;
    return true;
  }

  /** A blocking step finished: note how long it blocked, then go on. */
  void resume() {
    st.maxStall = Math.max(st.maxStall, st.clock - st.stepStarted);
    st.wait = Wait.NONE;
    goOn();
  }

  /** Nothing blocks the guest: the next step, or stop if asked to. */
  void goOn() {
    if (st.stopRequested != null) {
      stopNow();
    } else {
      step();
    }
  }

  private void stopNow() {
    st.running = false;
    if (!calls.channelIdle()) return; // what it sent must reach the vGPU or fail first: channel() stops it
    if (st.stopRequested != null) st.stopRequested.tell(new VCpu.Stopped(st.vcpu, calls.vm()));
    st.stopRequested = null;
  }

  /**
   * The channel's news of request or copy {@code key}: acknowledged ({@code at} -1), its wait over or a delayed copy's
   * time come ({@code arrival}) at {@code at}. A vCPU told to stop stops once the channel holds nothing.
   */
  void channel(long key, boolean arrival, long at) {
    if (at < 0) {
      calls.channel.received(key);
    } else if (arrival) {
      calls.channel.arrived(key);
    } else {
      calls.channel.timedOut(key, at);
    }
    if (st.heldPresent != null && calls.channelIdle()) {
      Step.Present p = st.heldPresent;
      st.heldPresent = null;
      st.clock = Math.max(st.clock, at >= 0 ? at : run.now());
      calls.present(p.tail(), p.cpuNanos(), st.clock);
    }
    if (st.stopRequested != null && !st.running && st.wait == Wait.NONE) stopNow();
  }

  /** Executes steps until one blocks; yields after a run of asynchronous ones so other messages get in. */
  void step() {
    for (int i = 0; st.running && i < ASYNC_BATCH; i++) {
      long now = st.clock;
      if (st.programStarted < 0) st.programStarted = now;
      Step s = st.program.next(now);
      if (s == null) {
        if (st.programEnded < 0) st.programEnded = now;
        st.running = false;
        return;
      }
      st.steps++;
      st.stepStarted = now;
      if (!execute(s, now)) return;
    }
    if (st.running) {
      st.continuePending = true;
      self.tell(VCpu.Continue.INSTANCE);
    }
  }

  /** Starts one step; true when it completed at once (asynchronous). */
  private boolean execute(Step s, long now) {
    if (s instanceof Step.CpuBurst b) {
      st.wait = Wait.CPU;
      calls.cpu(b.nanos(), now);
    } else if (s instanceof Step.LaunchKernel l) {
      calls.launch(l.kernel(), now);
      return true;
    } else if (s instanceof Step.SyncCall c) {
      calls.sync(c.kernel(), now);
      st.answered = false;
      st.wait = calls.syncSpins() ? Wait.SYNC_SPIN : Wait.SYNC_BLOCKED;
      if (st.wait == Wait.SYNC_SPIN) calls.spin(now);
    } else if (s instanceof Step.Present p) {
      st.wait = Wait.PRESENT;
      if (calls.channelIdle()) {
        calls.present(p.tail(), p.cpuNanos(), st.clock);
      } else {
        st.heldPresent = p; // after its frame's commands: channel() issues it
      }
      if (calls.presentSpins()) {
        st.presentSpinning = true;
        st.answered = false;
        calls.spinUntilFinished(now);
      }
    } else if (s instanceof Step.Flush) {
      st.wait = Wait.FLUSH;
      calls.flush(now);
    } else if (s instanceof Step.Malloc m) {
      st.wait = Wait.MEMORY;
      calls.allocate(m.bytes());
    } else if (s instanceof Step.Free f) {
      calls.free(f.bytes());
      return true;
    } else if (s instanceof Step.Sleep z) {
      st.wait = Wait.SLEEP;
      st.sleepDue = now + z.nanos();
      run.arm(timers, SLEEP, new VCpu.SleepEnded(st.sleepDue), st.sleepDue);
    } else {
      throw new IllegalStateException("unknown step " + s);
    }
    return false;
  }

  /** vcpu-crash: the request on the core is withdrawn; the actor then throws (see the class). */
  void crash(VCpu.Crash msg, Logger log) {
    long at = Math.max(st.clock, msg.atNanos());
    calls.withdraw(at);
    msg.outcomes().tell(new FaultInjector.Healed(msg.fault(), at)); // restarted at once
    log.warn("vCPU {} crashes at {} s (fault {}); supervision restarts it", st.vcpu, at / 1e9, msg.fault());
  }

  /** vm-reboot: the step in progress is abandoned, the program starts again after the down time. */
  void reboot(VCpu.Reboot msg) {
    long at = Math.max(st.clock, msg.atNanos());
    calls.withdraw(at);
    if (calls.channel != null) calls.channel.reset(at, "vm-crashed");
    run.disarm(timers, SLEEP);
    st.downUntil = at + msg.downNanos();
    st.wait = Wait.NONE;
    st.answered = false;
    st.presentSpinning = false;
    st.heldPresent = null;
    st.agentWorkFor = null;
    st.heldAnswer = null;
    st.lastPresent = -1;
    st.clock = at;
    run.arm(timers, REBOOT, new VCpu.Rebooted(st.downUntil), st.downUntil);
    if (msg.outcomes() != null) msg.outcomes().tell(new FaultInjector.Healed(msg.fault(), st.downUntil));
  }

  /** The reboot's down time is over at {@code at}: the program again from its first step. */
  void rebooted(long at) {
    st.clock = Math.max(st.clock, at);
    st.downUntil = -1;
    Program fresh = st.programs.get();
    st.program = fresh;
    st.programStarted = -1;
    st.programEnded = -1;
    if (st.stopRequested != null) {
      stopNow();
      return;
    }
    st.running = fresh != null;
    step();
  }
}
