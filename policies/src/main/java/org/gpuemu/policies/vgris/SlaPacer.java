package org.gpuemu.policies.vgris;

/**
 * SLA-aware pacing of one VM (VGRIS §3.2, Figure 5): before each {@code Present} the agent sleeps for the target
 * frame latency minus the frame's measured computation time minus the predicted Present time, so the time between
 * the returns of two consecutive Presents (the frame latency) is the target.
 *
 * <p>Interpretations: the target latency is 1 s / SLA FPS in whole milliseconds, rounded down (30 FPS: 33 ms),
 * as the agent's Windows {@code Sleep} takes milliseconds. Table 2 supports it: SLA-aware at 30 FPS gives 30.30 and
 * 30.12 FPS, which a 33 ms target gives (30.30) and a 33.33 ms one cannot exceed; and Figure 7b's 3.19 % of frames
 * over 33 ms only fits frames paced to 33 ms, not to 33.33. Above 1,000 FPS (under 1 ms) the exact nanoseconds are
 * taken. The measured time is everything since the previous Present returned up to the sleep: in the paper's loop
 * that is ComputeObjectsInFrame, DrawPrimitive and the Flush VGRIS inserts before Sleep "so we can measure, instead
 * of estimate, its computation time". A frame already longer than the target sleeps 0 (clamped, never negative);
 * the paper does not make up lost time in later frames and neither does this.
 */
public final class SlaPacer {
  private static final double NANOS_PER_SECOND = 1e9;
  private static final long NANOS_PER_MILLI = 1_000_000;

  private final long targetLatencyNanos;
  private final PresentCostPredictor predictor;

  /** A pacer holding frames at {@code targetLatencyNanos}, predicting Present from the last {@code presentHistory}. */
  public SlaPacer(long targetLatencyNanos, int presentHistory) {
    if (targetLatencyNanos <= 0) {
      throw new IllegalArgumentException("target latency must be > 0, got " + targetLatencyNanos);
    }
    this.targetLatencyNanos = targetLatencyNanos;
    this.predictor = new PresentCostPredictor(presentHistory);
  }

  /** The target frame latency for an SLA frame rate: 1 s / fps in whole milliseconds, rounded down. */
  public static long targetLatencyNanos(double slaFps) {
    if (!(slaFps > 0) || Double.isInfinite(slaFps)) {
      throw new IllegalArgumentException("SLA FPS must be a finite number > 0, got " + slaFps);
    }
    long millis = (long) Math.floor(1_000 / slaFps);
    return millis > 0 ? millis * NANOS_PER_MILLI : Math.round(NANOS_PER_SECOND / slaFps);
  }

  /** Sleep before Present: target − measured − predicted Present, clamped at 0. */
  public static long sleepNanos(long targetLatencyNanos, long measuredNanos, long predictedPresentNanos) {
    return Math.max(0, targetLatencyNanos - measuredNanos - predictedPresentNanos);
  }

  /** How long to sleep before this frame's Present, given the time measured since the previous Present returned. */
  public long sleepBeforePresent(long measuredNanos) {
    return sleepNanos(targetLatencyNanos, measuredNanos, predictor.predictNanos());
  }

  /** The predicted cost of the next Present (the mean of the recorded ones); -1 before any was recorded. */
  public long predictedPresentNanos() {
    return predictor.hasHistory() ? predictor.predictNanos() : -1;
  }

  /** Records what the Present that just returned cost, for the next predictions. */
  public void presentReturned(long costNanos) {
    predictor.record(costNanos);
  }

  /** The frame latency this pacer holds. */
  public long targetLatencyNanos() {
    return targetLatencyNanos;
  }
}
