package org.gpuemu.emulator.cluster;

import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.run.Control;

/**
 * A control from the coordinator's dashboard ({@link Control}: a fault, a weight, a share) as it crosses to the node
 * that runs its VM: plain fields, since the nodes' serializer carries records, not a sealed interface's cases.
 */
public record Steering(String what, String target, String kind, long healAfterNanos, int weight, double share)
    implements CborSerializable {

  /** The fields of {@code c}. */
  public static Steering of(Control c) {
    if (c instanceof Control.Fault f) return new Steering("fault", f.target(), f.kind().label(), f.healAfterNanos(), 0, 0);
    if (c instanceof Control.Weight w) return new Steering("weight", w.target(), null, 0, w.weight(), 0);
    Control.Share s = (Control.Share) c;
    return new Steering("share", s.target(), null, 0, 0, s.share());
  }

  /** The control again. */
  public Control control() {
    return switch (what) {
      case "fault" -> new Control.Fault(FaultPlan.Kind.named(kind).orElseThrow(() -> new IllegalArgumentException(
          "unknown fault kind " + kind)), target, healAfterNanos);
      case "weight" -> new Control.Weight(target, weight);
      case "share" -> new Control.Share(target, share);
      default -> throw new IllegalArgumentException("unknown control " + what);
    };
  }

  /**
   * What became of a control on its node ({@link Control.Record}): the run's model time it took effect at (a
   * restarted part's time moved to the run's), whether it applied, and why not or what it left unchanged.
   */
  public record Done(Steering steering, long atNanos, boolean applied, String note) implements CborSerializable {
    public Control.Record record() {
      return new Control.Record(steering.control(), atNanos, applied, note, 0);
    }
  }
}
