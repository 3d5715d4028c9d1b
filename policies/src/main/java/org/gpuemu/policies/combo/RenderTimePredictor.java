package org.gpuemu.policies.combo;

import java.util.List;
import org.gpuemu.workloads.ComboGame;
import org.gpuemu.workloads.RenderScene;

/**
 * COMBO's duration predictor for rendering (combo.txt §5.4, Eq. 4):
 *
 * <pre>
 *   rendertime_estimate = time_rt + time_cuda,  time_rt = a × height × width × sample,
 *                                               time_cuda = b × height × width × num_triangle
 * </pre>
 *
 * fitted offline from the game (§6.1, §6.7: "the construction of the duration predictor ... 0.583s on average").
 * Times are solo times on the whole GPU; on {@code n} of {@code N} SMs a render kernel takes N/n times as long
 * ("The execution time of the render kernel is inversely proportional to the number of SMs used", §5.4).
 *
 * <p>Fitting: the RT and CUDA terms are measured separately (the profiler times each kernel), so each coefficient
 * is a one-variable least-squares fit through the origin, {@code a = Σ x·y / Σ x²} with x = height × width ×
 * sample and y the RT time (b likewise with triangles and the CD time). The paper does not say how it fits.
 *
 * @param a nanoseconds per pixel-sample (&gt; 0)
 * @param b nanoseconds per pixel-triangle (&gt; 0)
 */
public record RenderTimePredictor(double a, double b) {
  public RenderTimePredictor {
    if (!(a > 0 && b > 0) || Double.isInfinite(a) || Double.isInfinite(b)) {
      throw new IllegalArgumentException("Eq. 4 coefficients must be finite and > 0, got a = " + a + ", b = " + b);
    }
  }

  /** A frame's predicted solo render times on the whole GPU, in nanoseconds. */
  public record Estimate(long rtNanos, long cdNanos) {
    public Estimate {
      if (rtNanos < 0 || cdNanos < 0) throw new IllegalArgumentException("render times must be >= 0");
    }

    /** rendertime_estimate: both phases. */
    public long totalNanos() {
      return rtNanos + cdNanos;
    }
  }

  /** Fits a and b on frames profiled offline (at least one; every frame with samples and triangles). */
  public static RenderTimePredictor fit(List<ComboGame.ProfiledFrame> frames) {
    if (frames.isEmpty()) throw new IllegalArgumentException("Eq. 4 needs at least one profiled frame");
    double sxyRt = 0;
    double sxxRt = 0;
    double sxyCd = 0;
    double sxxCd = 0;
    for (ComboGame.ProfiledFrame f : frames) {
      double xRt = f.scene().pixelSamples();
      double xCd = f.scene().pixelTriangles();
      sxyRt += xRt * f.rtNanos();
      sxxRt += xRt * xRt;
      sxyCd += xCd * f.cdNanos();
      sxxCd += xCd * xCd;
    }
    return new RenderTimePredictor(sxyRt / sxxRt, sxyCd / sxxCd);
  }

  /** Eq. 4 for one frame, rounded to whole nanoseconds. */
  public Estimate estimate(RenderScene scene) {
    return new Estimate(Math.round(a * scene.pixelSamples()), Math.round(b * scene.pixelTriangles()));
  }
}
