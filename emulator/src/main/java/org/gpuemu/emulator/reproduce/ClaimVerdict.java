package org.gpuemu.emulator.reproduce;

/** What a row of the reproduction says about the paper's claim. */
public enum ClaimVerdict {
  /** The median of the seeds is within the paper's value and tolerance, satisfies its bound or its ordering. */
  REPRODUCED("reproduced"),
  /** Outside the tolerance, but on the paper's side of the policy it compares against (or of 1 for a ratio). */
  SAME_DIRECTION("same direction"),
  /** Neither. */
  CONTRADICTS("contradicts"),
  /**
   * The seeds disagree: one seed's value is reproduced (or same direction) and another's is not; the row's range
   * and each seed's verdict are in its note. Never counted as reproduced.
   */
  UNSTABLE("unstable"),
  /**
   * The model was fitted on this figure, or on a number this figure's value is derived from: the row could not have
   * failed, so it is no evidence. The row names the constant (its {@code calibrated} key; the constants and the
   * figures they were fitted on are listed in conf/reproduction/calibration.conf).
   */
  CALIBRATED("calibrated"),
  /**
   * The value follows from an input or an assumption of the model whatever the policy does (a share that is the
   * scenario's input, a cost the model sets to 0): the row names it (its {@code by-construction} key).
   */
  BY_CONSTRUCTION("by construction"),
  /**
   * The model deliberately uses another number than this row's paper value (a figure elsewhere in the paper that it
   * follows instead): the row shows both numbers and the reason (its {@code input-differs} key).
   */
  INPUT_DIFFERS("input (differs)"),
  /**
   * A {@code --quick} run: runs are cut short (a check that the machinery and every file work), so no measured row
   * is judged; its value is reported.
   */
  NOT_JUDGED("not judged (quick)"),
  /**
   * A run the row reads was not faithful (its timing cannot be trusted), and the row would otherwise have been
   * reproduced or same direction: an unfaithful run never supports a claim. A contradiction stays one, flagged
   * {@code faithful: false}.
   */
  UNFAITHFUL("unfaithful"),
  /** A run failed, or its summary has no number at the metric (null: e.g. a run time before the program ended). */
  NOT_RUN("not run"),
  /**
   * The paper's number is an input of the model (a calibration point the model was built from): the row shows how
   * the run compares with it (its note), and never counts as reproduced.
   */
  INPUT("input"),
  /**
   * The figure or table prints no number a run could give (a diagram, a code listing, an example's timeline): the
   * row's source says what it shows and where the emulator has it.
   */
  NO_NUMBER("no number"),
  /** Its numbers are of something the emulator does not model: the row's source says what and why. */
  NOT_MODELLED("not modelled");

  private final String label;

  ClaimVerdict(String label) {
    this.label = label;
  }

  /** The name in reproduction.json and the table. */
  public String label() {
    return label;
  }
}
