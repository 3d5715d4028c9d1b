package org.gpuemu.emulator.run;

import java.util.Locale;
import org.gpuemu.emulator.config.FaultPlan;

/**
 * A change made to a running emulation from outside it (the live dashboard's controls,
 * docs/guides/report-and-dashboard.md), or replayed from a run that had them: a fault struck on a VM, a VM's weight or
 * its GPU share changed. Each becomes an event of the model: the guardian ({@link Emulation}) applies it at a model
 * time strictly after the model's present ({@link #SPACING}, rounded up to a whole millisecond), so that the run stays
 * in its one order, and records it ({@link Record}) in summary.json's {@code controls}, from which the same run can be
 * replayed.
 */
public sealed interface Control {

  /** How far after the model's present a control takes effect: the smallest step the model sees as "after". */
  long SPACING = 1_000_000L;

  /** The VM the control is for. */
  String target();

  /** What it is, as summary.json names it: {@code fault}, {@code weight}, {@code share}. */
  String what();

  /** A fault of {@code kind} struck on VM {@code target}, healed {@code healAfterNanos} later (as a planned fault). */
  record Fault(FaultPlan.Kind kind, String target, long healAfterNanos) implements Control {
    @Override public String what() {
      return "fault";
    }
  }

  /** VM {@code target}'s weight becomes {@code weight} (&gt; 0) for the GPU policy and the fairness figures. */
  record Weight(String target, int weight) implements Control {
    @Override public String what() {
      return "weight";
    }
  }

  /** VM {@code target}'s GPU share becomes {@code share} (in (0, 1]) for a policy with configured shares. */
  record Share(String target, double share) implements Control {
    @Override public String what() {
      return "share";
    }
  }

  /** A control the run refuses, its reason one line (a session completes a control with it: a cluster node lost). */
  final class Refused extends RuntimeException {
    public Refused(String reason) {
      super(reason, null, false, false);
    }
  }

  /** A control to apply at model time {@code atNanos} (a replay, or one requested live and scheduled). */
  record Planned(long atNanos, Control control) {}

  /**
   * What became of a control: {@code atNanos} the model time it took effect; {@code applied} whether it did, and
   * {@code note} why not (the policy's reason) or what it did not change; null when there is nothing to say.
   * A pause of the run is recorded too ({@code control} null): {@code atNanos} the model time it stopped at and
   * {@code pausedWallNanos} how long it stood still in wall time.
   */
  record Record(Control control, long atNanos, boolean applied, String note, long pausedWallNanos) {
    /** A pause at model time {@code atNanos} that lasted {@code wallNanos} of wall time. */
    public static Record pause(long atNanos, long wallNanos) {
      return new Record(null, atNanos, true, null, wallNanos);
    }

    /** Whether this is a pause rather than a change. */
    public boolean isPause() {
      return control == null;
    }
  }

  /** The time a control requested at model time {@code presentNanos} takes effect: the next whole ms past spacing. */
  static long after(long presentNanos) {
    long at = presentNanos + SPACING;
    return (at + SPACING - 1) / SPACING * SPACING;
  }

  /** One line, e.g. "weight of vm1 = 2", "fault gpu-hang on vm2 (heal after 2 s)". */
  static String describe(Control c) {
    if (c instanceof Fault f) {
      return "fault " + f.kind().label() + " on " + f.target() + String.format(Locale.ROOT, " (heal after %s s)",
          f.healAfterNanos() / 1e9);
    }
    if (c instanceof Weight w) return "weight of " + w.target() + " = " + w.weight();
    Share s = (Share) c;
    return "share of " + s.target() + " = " + s.share();
  }
}
