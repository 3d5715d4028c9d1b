package org.gpuemu.emulator.run;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.gpuemu.emulator.clock.RunContext;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.faults.FaultInjector;
import org.gpuemu.emulator.gpu.Scheduling;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.policies.gpu.LiveChange;

/**
 * The guardian's part that carries out {@link Control}s (docs/guides/report-and-dashboard.md): it schedules each as an
 * event of the model, carries it out when its time comes and keeps what became of it. A plain object the {@link
 * Emulation} owns and calls from its own events, as the GPU scheduler owns its parts.
 */
final class ControlDesk {
  private final Settings.Scenario scenario;
  private final RunContext run;
  private final TimerScheduler<Emulation.Command> timers;
  private final Consumer<Control.Record> onControlled;
  private final ActorRef<FaultInjector.Command> faults;
  private final ActorRef<MetricsHub.Command> metrics;
  private final ActorRef<Scheduling.Changed> answers;
  /** Every control requested or planned, by index: what, when, and what became of it (null: not yet). */
  private final List<Control> controls = new ArrayList<>();
  private final List<Long> times = new ArrayList<>();
  private final List<Control.Record> records = new ArrayList<>();

  /** The desk of the run {@code setup} describes, with its planned controls; {@code answers}: the schedulers'. */
  ControlDesk(Emulation.Setup setup, TimerScheduler<Emulation.Command> timers, ActorRef<FaultInjector.Command> faults,
      ActorRef<MetricsHub.Command> metrics, ActorRef<Scheduling.Changed> answers) {
    this.scenario = setup.scenario();
    this.run = setup.run();
    this.timers = timers;
    this.onControlled = setup.onControlled();
    this.faults = faults;
    this.metrics = metrics;
    this.answers = answers;
    for (Control.Planned p : setup.planned()) add(p.control(), p.atNanos());
  }

  /** At time zero: the planned controls' events are armed (those within the run). */
  void armPlanned() {
    for (int i = 0; i < controls.size(); i++) {
      long at = times.get(i);
      if (at < scenario.durationNanos()) run.arm(timers, key(i), new Emulation.Apply(i, at), at);
    }
  }

  /**
   * A control from outside, handled outside any event: it takes effect just after the model's present, read and
   * armed at once ({@link RunContext#armAfterPresent}) so that no event the model has handled is later than it.
   * Returns its model time, or -1 when it would come at or after the run's end.
   */
  long request(Control control) {
    int index = controls.size();
    long due = run.armAfterPresent(timers, key(index), at -> new Emulation.Apply(index, at), Control::after,
        scenario.durationNanos());
    if (due >= 0) add(control, due);
    return due;
  }

  /**
   * Control {@code index} takes effect at model time {@code at}: a fault strikes through the injector as a planned
   * one would; a weight or a share goes to the VM's GPU scheduler, whose policy applies or refuses it ({@link #answered}).
   * The vCPUs keep their configured weight on the CPU scheduler: the weight a control changes is the GPU policy's
   * (and, once applied, λ's).
   */
  void apply(int index, long at, java.util.function.IntFunction<ActorRef<Scheduling.Command>> schedulerOf) {
    Control c = controls.get(index);
    times.set(index, at);
    int vm = vmIndex(c.target());
    if (vm < 0) {
      record(index, new Control.Record(c, at, false, "no VM named " + c.target(), 0));
    } else if (c instanceof Control.Fault f) {
      faults.tell(new FaultInjector.Inject(f.kind(), f.target(), f.healAfterNanos()));
      record(index, new Control.Record(c, at, true, null, 0));
    } else if (c instanceof Control.Weight w) {
      schedulerOf.apply(vm).tell(new Scheduling.Change(vm, w.weight(), Double.NaN, index, answers));
    } else {
      schedulerOf.apply(vm).tell(new Scheduling.Change(vm, 0, ((Control.Share) c).share(), index, answers));
    }
  }

  /** The GPU policy's answer to a weight or share change; a weight it applied counts in λ from now on. */
  void answered(Scheduling.Changed changed) {
    int i = changed.tag();
    String note = changed.outcome() instanceof LiveChange.Refused r ? r.reason() : null;
    if (note == null && controls.get(i) instanceof Control.Weight w) {
      metrics.tell(new MetricsHub.Weight(vmIndex(w.target()), w.weight()));
    }
    record(i, new Control.Record(controls.get(i), times.get(i), note == null, note, 0));
  }

  /** What became of every control so far; one that has not taken effect is recorded as such. */
  List<Control.Record> records() {
    List<Control.Record> out = new ArrayList<>();
    for (int i = 0; i < controls.size(); i++) {
      Control.Record r = records.get(i);
      out.add(r != null ? r : new Control.Record(controls.get(i), times.get(i), false,
          "the run ended before it took effect", 0));
    }
    return List.copyOf(out);
  }

  private void add(Control control, long at) {
    controls.add(control);
    times.add(at);
    records.add(null);
  }

  private void record(int index, Control.Record r) {
    records.set(index, r);
    onControlled.accept(r);
  }

  private int vmIndex(String name) {
    for (Settings.Vm vm : scenario.vms()) if (vm.name().equals(name)) return vm.index();
    return -1;
  }

  private static String key(int index) {
    return "control-" + index;
  }
}
