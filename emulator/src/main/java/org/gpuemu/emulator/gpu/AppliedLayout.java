package org.gpuemu.emulator.gpu;

import org.gpuemu.policies.combo.SmLayout;

/**
 * The SM layout a {@link SpaceScheduler} has applied to the physical GPU, with its epoch (one per change): frames'
 * layouts during the run, and after the end the drain's own when the BE group was left without SMs ({@link #drain}).
 */
final class AppliedLayout {
  private final int totalSms;
  private SmLayout layout;
  private long epoch;
  private boolean drain;

  AppliedLayout(int totalSms) {
    this.totalSms = totalSms;
    this.layout = new SmLayout.Whole(totalSms);
  }

  long epoch() {
    return epoch;
  }

  int renderSms() {
    return layout instanceof SmLayout.Split s ? s.renderSms() : totalSms;
  }

  int beSms() {
    return totalSms - renderSms();
  }

  /** Whether a frame planned on {@code planned} starts on another layout than the applied one. */
  boolean differs(SmLayout planned) {
    return !planned.equals(layout);
  }

  /** A frame's layout: applied (a new epoch, true) if it differs, unless the drain's layout holds. */
  boolean apply(SmLayout planned) {
    if (drain || planned.equals(layout)) return false;
    layout = planned;
    epoch++;
    return true;
  }

  /**
   * After the end: if the applied layout leaves the BE group no SMs, the drain's layout gives it half of them from
   * now on (a new epoch, true); frames keep it. The scheduler asks while the BE group holds a kernel, which would
   * otherwise never finish (suspended by a frame's layout and resumed onto no SM, or left there by a switch to the
   * relaxed scheme): no frame plans a layout after the end. And it asks only while no render kernel is outstanding,
   * since a render kernel SM-bound to the old render group could never gather its SMs in a smaller one (a hung BE
   * kernel holds SMs until the watchdog's reset). Nothing after the end counts.
   */
  boolean drain() {
    if (drain || renderSms() < totalSms) return false;
    drain = true;
    layout = new SmLayout.Split(totalSms - totalSms / 2, totalSms / 2);
    epoch++;
    return true;
  }

  /** The physical GPU's message for the applied layout, from {@code atNanos}. */
  PhysicalGpu.Layout message(long atNanos, boolean suspendBe) {
    return new PhysicalGpu.Layout(epoch, renderSms(), beSms(), atNanos, suspendBe);
  }
}
