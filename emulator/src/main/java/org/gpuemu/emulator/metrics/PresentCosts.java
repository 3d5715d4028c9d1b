package org.gpuemu.emulator.metrics;

/**
 * What each VM's {@code Present} cost and how well VGRIS's agent predicted it (vgris.txt §3.2, Figures 6 and 9): the
 * time from the agent's issue of a Present to its return, and the agent's prediction for it (the mean of the past
 * costs, {@code PresentCostPredictor}) against that cost. A prediction error is predicted − actual, so a Present
 * that outran its prediction has a negative error, as Figure 9's −84.17 ms; a prediction failure is an error beyond
 * 2 ms either way (§4.1: "more than 2 ms error margin"). Presents the agent had no history to predict from (the
 * first of a run, or after a restart of the agent) count in the cost, not in the errors.
 */
final class PresentCosts {
  /** §4.1's margin: an error beyond it is a prediction failure. */
  static final long FAILURE_MARGIN_NANOS = 2_000_000;

  private final long[] calls;
  private final long[] costSum;
  private final long[] costMax;
  private final long[] predicted;
  private final long[] failures;
  private final long[] absErrorSum;
  private final long[] errorMin;
  private final long[] errorMax;

  PresentCosts(int vms) {
    calls = new long[vms];
    costSum = new long[vms];
    costMax = new long[vms];
    predicted = new long[vms];
    failures = new long[vms];
    absErrorSum = new long[vms];
    errorMin = new long[vms];
    errorMax = new long[vms];
  }

  /** A Present of VM {@code vm} cost {@code costNanos}; {@code predictionNanos} its prediction, -1 for none. */
  void record(int vm, long costNanos, long predictionNanos) {
    calls[vm]++;
    costSum[vm] += costNanos;
    costMax[vm] = Math.max(costMax[vm], costNanos);
    if (predictionNanos < 0) return;
    long error = predictionNanos - costNanos;
    if (predicted[vm] == 0) {
      errorMin[vm] = error;
      errorMax[vm] = error;
    } else {
      errorMin[vm] = Math.min(errorMin[vm], error);
      errorMax[vm] = Math.max(errorMax[vm], error);
    }
    predicted[vm]++;
    absErrorSum[vm] += Math.abs(error);
    if (Math.abs(error) > FAILURE_MARGIN_NANOS) failures[vm]++;
  }

  /** VM {@code vm}'s figures; null when its agent returned no Present. */
  PresentFigures of(int vm) {
    if (calls[vm] == 0) return null;
    long n = predicted[vm];
    return new PresentFigures(calls[vm], costSum[vm] / calls[vm], costMax[vm], n,
        n == 0 ? 0 : absErrorSum[vm] / n, errorMin[vm], errorMax[vm], failures[vm]);
  }
}
