package org.gpuemu.policies.combo;

import java.util.ArrayDeque;
import java.util.Collection;

/**
 * COMBO's scheme switching (combo.txt §5.3, Eq. 2-3): over a window of frames,
 *
 * <pre>
 *   state = (max(rendertime) − min(rendertime)) / avg(rendertime);  static if state &lt; 10 %, dynamic otherwise
 * </pre>
 *
 * and the exact integrated SM scheme serves a static load, the relaxed intra-SM scheme a dynamic one.
 *
 * <p>Interpretations: the render times are the duration predictor's estimates (Eq. 4) of the latest {@code window}
 * frames, the frame being planned included ("The load mode could be perceived by predicting the frame's rendering
 * time", §6.6); measured times would not do, since under the exact scheme every frame is sized to take the whole
 * QoS target. The paper gives no window length (reference.conf sets it). Until the window is full the load is
 * unknown and the relaxed scheme, which never restricts the game's SMs, is used.
 */
public final class SchemeSelector {
  /** Eq. 3's threshold: 10 %. */
  public static final double PAPER_THRESHOLD = 0.10;

  private final int window;
  private final double threshold;
  private final ArrayDeque<Long> renderTimes = new ArrayDeque<>();

  /** A selector over the latest {@code window} (&gt; 0) frames, static below {@code threshold} (&gt; 0). */
  public SchemeSelector(int window, double threshold) {
    if (window <= 0) throw new IllegalArgumentException("state window must be > 0 frames, got " + window);
    if (!(threshold > 0) || Double.isInfinite(threshold)) {
      throw new IllegalArgumentException("state threshold must be finite and > 0, got " + threshold);
    }
    this.window = window;
    this.threshold = threshold;
  }

  /** Eq. 2 over some render times (0 for none, or when they average 0). */
  public static double state(Collection<Long> renderTimes) {
    if (renderTimes.isEmpty()) return 0;
    long max = Long.MIN_VALUE;
    long min = Long.MAX_VALUE;
    double sum = 0;
    for (long t : renderTimes) {
      max = Math.max(max, t);
      min = Math.min(min, t);
      sum += t;
    }
    double avg = sum / renderTimes.size();
    return avg == 0 ? 0 : (max - min) / avg;
  }

  /** Eq. 3: the scheme for a load of this state. */
  public Scheme schemeFor(double state) {
    return state < threshold ? Scheme.EXACT : Scheme.RELAXED;
  }

  /** Adds the next frame's predicted render time and returns the scheme for it. */
  public Scheme observe(long predictedRenderNanos) {
    renderTimes.addLast(predictedRenderNanos);
    if (renderTimes.size() > window) renderTimes.removeFirst();
    return renderTimes.size() < window ? Scheme.RELAXED : schemeFor(state(renderTimes));
  }

  /** Eq. 2 over the current window. */
  public double state() {
    return state(renderTimes);
  }
}
