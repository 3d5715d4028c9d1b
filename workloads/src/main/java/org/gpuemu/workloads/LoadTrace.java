package org.gpuemu.workloads;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * How a COMBO game's rendering load moves from frame to frame, as a factor on its mean scene (combo.txt §3: "In the
 * stable load mode, the rendering time of the frame is stable for a period of time ... In the dynamic load mode,
 * the rendering time of the frame has a great variation").
 *
 * <p>Levels: a level is drawn as {@code low + (high − low) × U^γ} with U uniform in [0, 1) and
 * γ = (high − 1) / (1 − low), a power distribution whose range is [low, high] and whose mean is exactly 1, so the
 * game's mean render time is its nominal one whatever the range. §5.2's Experiment B fluctuates between 12 and 16 ms around a mean of
 * 14.8 ms, an asymmetric range (more frames near the top than the bottom), which this reproduces with γ = 0.43.
 *
 * <ul>
 *   <li>{@link Mode#STABLE}: factor 1 on every frame (§5.2 Experiment A: "the workload of the games is constant").
 *   <li>{@link Mode#FLUCTUATING}: a new level every {@code holdMin}..{@code holdMax} frames (§5.2 Experiment B:
 *       "the SM group allocation scheme changes approximately every three frames").
 *   <li>{@link Mode#DYNAMIC}: Figure 18's shape, stretches of {@code stretchMin}..{@code stretchMax} frames that
 *       alternate between a stable level (blue regions) and fluctuation as above (white regions), starting stable.
 * </ul>
 *
 * <p>Stable levels carry no per-frame noise: Eq. 2's state is then exactly 0 inside a stable stretch, and Eq. 5
 * keeps the same SM split frame after frame, as the paper's "stable" requires.
 *
 * @param mode       which of the three shapes
 * @param low        lowest factor, in (0, 1)
 * @param high       highest factor, &gt; 1
 * @param holdMin    fewest frames a fluctuating level is held (&gt; 0)
 * @param holdMax    most frames a fluctuating level is held (&gt;= holdMin)
 * @param stretchMin fewest frames of a stretch in dynamic mode (&gt; 0)
 * @param stretchMax most frames of a stretch in dynamic mode (&gt;= stretchMin)
 */
public record LoadTrace(Mode mode, double low, double high, int holdMin, int holdMax, int stretchMin,
    int stretchMax) {

  /** The three load modes. */
  public enum Mode { STABLE, FLUCTUATING, DYNAMIC }

  /** §5.2 Experiment B's range relative to its 14.8 ms mean: 12 ms. */
  public static final double PAPER_LOW = 12.0 / 14.8;
  /** §5.2 Experiment B's range relative to its 14.8 ms mean: 16 ms. */
  public static final double PAPER_HIGH = 16.0 / 14.8;
  /** §5.2: the level changes "approximately every three frames": held 2 to 4 frames, 3 on average. */
  static final int HOLD_MIN = 2;
  static final int HOLD_MAX = 4;
  /**
   * Figure 18's stable and fluctuating regions (the paper gives no lengths): 1 to 3 s each at 120 FPS, long enough
   * for the scheme selector to settle in each, several of each in a minute's run. Assumed.
   */
  static final int STRETCH_MIN = 120;
  static final int STRETCH_MAX = 360;

  public LoadTrace {
    if (!(low > 0 && low < 1 && high > 1) || Double.isInfinite(high)) {
      throw new IllegalArgumentException("need 0 < low < 1 < high, got " + low + ", " + high);
    }
    if (holdMin <= 0 || holdMax < holdMin || stretchMin <= 0 || stretchMax < stretchMin) {
      throw new IllegalArgumentException("need 0 < holdMin <= holdMax and 0 < stretchMin <= stretchMax");
    }
  }

  /** Constant load. */
  public static LoadTrace stable() {
    return of(Mode.STABLE);
  }

  /** §5.2 Experiment B: fluctuating all the time in the paper's relative range. */
  public static LoadTrace fluctuating() {
    return of(Mode.FLUCTUATING);
  }

  /** Figure 18: stable and fluctuating stretches alternating, in the paper's relative range. */
  public static LoadTrace dynamic() {
    return of(Mode.DYNAMIC);
  }

  private static LoadTrace of(Mode mode) {
    return new LoadTrace(mode, PAPER_LOW, PAPER_HIGH, HOLD_MIN, HOLD_MAX, STRETCH_MIN, STRETCH_MAX);
  }

  /** The exponent γ of the level distribution that makes its mean 1. */
  double gamma() {
    return (high - 1) / (1 - low);
  }

  /** A new sequence of per-frame factors; the same seed gives the same factors. */
  public Levels levels(long seed) {
    return new Levels(new SplittableRandom(seed));
  }

  /** The factors of one run, generated as far as asked and remembered, so any frame can be asked again. */
  public final class Levels {
    private final SplittableRandom random;
    private double[] factors = new double[256];
    private int generated;
    private boolean stableStretch = true;
    private int stretchLeft;
    private int holdLeft;
    private double level = 1.0;

    private Levels(SplittableRandom random) {
      this.random = random;
    }

    /** The load factor of frame {@code frame} (0-based). */
    public double factor(long frame) {
      if (frame < 0 || frame >= Integer.MAX_VALUE) throw new IllegalArgumentException("frame out of range: " + frame);
      while (generated <= frame) {
        if (generated == factors.length) factors = Arrays.copyOf(factors, 2 * factors.length);
        factors[generated] = nextFactor(); // before counting it: the first stretch is stable (generated == 0)
        generated++;
      }
      return factors[(int) frame];
    }

    private double nextFactor() {
      return switch (mode) {
        case STABLE -> 1.0;
        case FLUCTUATING -> fluctuate();
        case DYNAMIC -> alternate();
      };
    }

    /** Figure 18: a stable stretch at one level, then a fluctuating stretch, and so on. */
    private double alternate() {
      if (stretchLeft == 0) {
        stableStretch = generated == 0 || !stableStretch;
        stretchLeft = between(stretchMin, stretchMax);
        holdLeft = 0;
        if (stableStretch) level = draw();
      }
      stretchLeft--;
      return stableStretch ? level : fluctuate();
    }

    private double fluctuate() {
      if (holdLeft == 0) {
        level = draw();
        holdLeft = between(holdMin, holdMax);
      }
      holdLeft--;
      return level;
    }

    private double draw() {
      return low + (high - low) * Math.pow(random.nextDouble(), gamma());
    }

    private int between(int min, int max) {
      return min + random.nextInt(max - min + 1);
    }
  }
}
