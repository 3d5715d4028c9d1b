package org.gpuemu.policies.combo;

/**
 * Eq. 5 (combo.txt §5.4): how many SMs the render group needs so that a frame renders just within its QoS target,
 * the rest going to the BE group.
 *
 * <p>Eq. 5 is printed inverted, {@code SM_render = SM_total × QoS_target / rendertime_estimate = SM_total / (fps ×
 * rendertime_estimate)}, which exceeds SM_total for every frame that meets its QoS on the whole GPU. The text
 * before it gives the rule: render time is inversely proportional to the SMs used, so a frame of
 * rendertime_estimate on all SM_total SMs takes QoS_target on {@code SM_total × rendertime_estimate / QoS_target =
 * SM_total × fps × rendertime_estimate} SMs, which is what Table 4's "SM ratio required" (at most 100 %) measures.
 * We use that, rounded up to whole SMs (fewer would miss the target), at least 1 and at most SM_total. The QoS
 * target is a parameter (1/fps in Eq. 5), so a policy can keep a guard before the deadline.
 */
public final class SmPartition {
  /** Products this close above a whole number of SMs are taken as that number (floating-point noise). */
  private static final double WHOLE_SM_TOLERANCE = 1e-9;

  private SmPartition() {}

  /** SM_render for a frame of {@code renderNanos} on the whole GPU that must render in {@code qosTargetNanos}. */
  public static int renderSms(int totalSms, long renderNanos, double qosTargetNanos) {
    if (totalSms <= 0 || renderNanos < 0 || !(qosTargetNanos > 0)) {
      throw new IllegalArgumentException("need SMs > 0, render time >= 0, QoS target > 0");
    }
    double exact = totalSms * (renderNanos / qosTargetNanos);
    long sms = (long) Math.ceil(exact - WHOLE_SM_TOLERANCE);
    return (int) Math.max(1, Math.min(totalSms, sms));
  }

  /** Eq. 5's split: SM_render for the render group, SM_compute = SM_total − SM_render for the BE group. */
  public static SmLayout.Split split(int totalSms, long renderNanos, double qosTargetNanos) {
    int render = renderSms(totalSms, renderNanos, qosTargetNanos);
    return new SmLayout.Split(render, totalSms - render);
  }
}
