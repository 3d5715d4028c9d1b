package org.gpuemu.policies.gballoon;

/**
 * Where f(W, R_copy) falls against Threshold_low and Threshold_high (gballoon.txt §3.2), and what gBalloon does then.
 * The paper says "smaller than" low and "larger than" low or high; a value equal to a threshold is taken as not
 * larger, so f = low is {@link #BETWEEN} and f = high is still {@link #BETWEEN}.
 */
public enum Band {
  /** f &lt; low: approve every expansion, reduce nothing. */
  BELOW_LOW,
  /** low &lt;= f &lt;= high: approve expansions; shrink the VM with much memory and the lowest utilisation. */
  BETWEEN,
  /** f &gt; high: reject every expansion and take two slots regardless of usage. */
  ABOVE_HIGH;

  /** The band of {@code f} between {@code low} and {@code high}. */
  public static Band of(double f, double low, double high) {
    if (!(low < high)) {
      throw new IllegalArgumentException("thresholds need low < high, got " + low + " and " + high);
    }
    if (f < low) {
      return BELOW_LOW;
    }
    return f > high ? ABOVE_HIGH : BETWEEN;
  }
}
