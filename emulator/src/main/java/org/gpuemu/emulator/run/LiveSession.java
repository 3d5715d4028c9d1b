package org.gpuemu.emulator.run;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.Scheduler;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.gpuemu.emulator.clock.Causality;
import org.gpuemu.emulator.clock.Frontier;
import org.gpuemu.emulator.clock.HighResScheduler;
import org.gpuemu.emulator.clock.ScaledClock;

/**
 * A running emulation as the outside sees it ({@link Runner.Session}): pause and resume, and controls handed to the
 * guardian. Pausing stops the model and its clock together: the run's timers ({@link HighResScheduler#pause}), its
 * clock ({@link ScaledClock#pause}) and its causal order at the model's present ({@link Frontier#pause}), all at one
 * wall instant; resuming starts the timers and the clock again from where they stood (their wall origin moved by the
 * time paused, so no timer falls due for the pause) and wakes the waiting inboxes. Nothing of the model changes:
 * a paused run's figures are those of the same run unpaused; each pause is recorded with its model time and wall
 * length. Thread-safe.
 */
final class LiveSession implements Runner.Session {
  private static final Duration ASK = Duration.ofSeconds(10);

  private final ActorSystem<Emulation.Command> system;
  private final ScaledClock clock;
  private final Causality causality;
  private final HighResScheduler timers;
  private final List<Control.Record> pauses = new ArrayList<>();
  private long pausedAtNanos = -1;
  private long pausedAtWall;

  LiveSession(ActorSystem<Emulation.Command> system, ScaledClock clock, Causality causality) {
    this.system = system;
    this.clock = clock;
    this.causality = causality;
    Scheduler s = system.classicSystem().scheduler();
    // a scheduler overridden by a system property is not paused: its timers fire into the paused inboxes and wait
    this.timers = s instanceof HighResScheduler h ? h : null;
  }

  @Override public synchronized long pause() {
    if (pausedAtNanos >= 0) return pausedAtNanos;
    long wall = clock.wallNanos();
    if (timers != null) timers.pause(wall);
    clock.pause(wall);
    Frontier f = causality.frontier();
    long now = clock.nowNanos();
    pausedAtNanos = f == null ? now : Math.min(causality.pause(now).stamp(), now);
    pausedAtWall = wall;
    return pausedAtNanos;
  }

  @Override public synchronized long resume() {
    if (pausedAtNanos < 0) return 0;
    long wall = clock.wallNanos();
    clock.resume(wall);
    if (timers != null) timers.resume(wall);
    if (causality.frontier() != null) causality.resume();
    long stood = wall - pausedAtWall;
    pauses.add(Control.Record.pause(pausedAtNanos, stood));
    pausedAtNanos = -1;
    return stood;
  }

  @Override public synchronized boolean paused() {
    return pausedAtNanos >= 0;
  }

  @Override public CompletionStage<Long> control(Control control) {
    return AskPattern.ask(system, replyTo -> new Emulation.Request(control, replyTo), ASK, system.scheduler());
  }

  /** The pauses so far, each once it has ended. */
  synchronized List<Control.Record> pauses() {
    return List.copyOf(pauses);
  }
}
