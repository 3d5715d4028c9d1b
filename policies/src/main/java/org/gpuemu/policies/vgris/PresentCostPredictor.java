package org.gpuemu.policies.vgris;

/**
 * Predicts the cost of a VM's next {@code Present} as the mean of its last {@code window} recorded costs (VGRIS
 * §3.2: "simply uses the average time of the past twenty Present calls as the prediction for the upcoming one").
 *
 * <p>Interpretations: before any Present has been recorded the prediction is 0 (the first frame sleeps the most,
 * and errs towards a slightly long frame); with fewer than {@code window} recorded the mean is over those; the mean
 * is rounded down to a whole nanosecond.
 */
public final class PresentCostPredictor {
  /** The paper's window: the past twenty Present calls. */
  public static final int PAPER_WINDOW = 20;

  private final long[] costs;
  private int next;
  private int count;
  private long sum;

  /** A predictor averaging the last {@code window} costs (&gt; 0). */
  public PresentCostPredictor(int window) {
    if (window <= 0) {
      throw new IllegalArgumentException("Present cost window must be > 0, got " + window);
    }
    this.costs = new long[window];
  }

  /** Remembers the measured cost of a Present that returned, dropping the oldest beyond the window. */
  public void record(long costNanos) {
    if (costNanos < 0) {
      throw new IllegalArgumentException("Present cost must be >= 0, got " + costNanos);
    }
    if (count == costs.length) {
      sum -= costs[next];
    } else {
      count++;
    }
    costs[next] = costNanos;
    sum += costNanos;
    next = (next + 1) % costs.length;
  }

  /** Whether a cost has been recorded: before any, the prediction is a default, not a prediction from history. */
  public boolean hasHistory() {
    return count > 0;
  }

  /** The predicted cost of the next Present in nanoseconds: the mean of the window, 0 before any. */
  public long predictNanos() {
    return count == 0 ? 0 : sum / count;
  }
}
