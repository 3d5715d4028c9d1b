package org.gpuemu.workloads;

import java.util.SplittableRandom;

/**
 * How a game's frame cost changes over time (vgris.txt §4): 'ideal model' games have almost fixed objects and
 * views, so a stable FPS; 'reality model' games keep a constant FPS for a short time but vary from minute to
 * minute as scenes change.
 *
 * @param frameJitter  per-frame relative noise (uniform in ±jitter)
 * @param sceneLow     lowest scene complexity factor (reality model; 1 for ideal)
 * @param sceneHigh    highest scene complexity factor
 * @param sceneMinNanos shortest scene, emulated
 * @param sceneMaxNanos longest scene, emulated
 */
public record Variation(double frameJitter, double sceneLow, double sceneHigh, long sceneMinNanos,
    long sceneMaxNanos) {

  /** Stable frames: ±2 % per-frame noise, no scene changes (DirectX SDK samples). */
  public static Variation ideal() {
    return new Variation(0.02, 1.0, 1.0, Long.MAX_VALUE / 4, Long.MAX_VALUE / 4);
  }

  /**
   * Reality model: scenes of 20–60 s whose complexity is drawn uniformly in [low, high], and ±10 % per-frame
   * noise. The paper shows FPS changing 'from minute to minute'; 20–60 s scenes give that with a few changes in a
   * typical 2–3 minute run.
   */
  public static Variation reality(double low, double high) {
    return new Variation(0.10, low, high, 20_000_000_000L, 60_000_000_000L);
  }

  /**
   * A generator of complexity factors driven by emulated time; one per program. Scenes are drawn from a stream of
   * their own, split from {@code random} here, and the per-frame noise from {@code random}: a program's scenes then
   * depend only on the emulated time since its first frame, not on how many frames it drew before, so runs of one
   * seed under two policies (a scripted benchmark such as 3DMark, or a game's recorded session, compared natively
   * and under a scheduler) draw the same scenes at the same times. With one stream for both, a policy that let a program draw more frames shifted
   * every later scene, and the comparison measured scene luck more than the policy.
   */
  public Sampler sampler(SplittableRandom random) {
    return new Sampler(this, random);
  }

  /** Stateful sampler: the current scene lasts until its end time, then a new factor is drawn. */
  public static final class Sampler {
    private final Variation v;
    private final SplittableRandom random;
    private final SplittableRandom scenes;
    private long sceneEnd = -1;
    private double sceneFactor = 1.0;

    private Sampler(Variation v, SplittableRandom random) {
      this.v = v;
      // a program of one complexity has no scenes to keep apart: its frames draw from the one stream, lengths
      // included, as they were measured (those programs' figures stay what they were)
      this.scenes = v.sceneLow == v.sceneHigh ? null : random.split();
      this.random = random;
    }

    /** The complexity factor of a frame that starts at {@code emulatedNanos}. */
    public double factor(long emulatedNanos) {
      if (scenes == null) {
        if (emulatedNanos >= sceneEnd) {
          sceneFactor = v.sceneLow;
          sceneEnd = emulatedNanos + (v.sceneMinNanos == v.sceneMaxNanos ? v.sceneMinNanos
              : v.sceneMinNanos + (long) (random.nextDouble() * (v.sceneMaxNanos - v.sceneMinNanos)));
        }
        return sceneFactor * jitter();
      }
      if (sceneEnd < 0) sceneEnd = emulatedNanos; // the first scene starts with the first frame
      while (emulatedNanos >= sceneEnd) { // scenes follow each other on the emulated timeline, whatever the frames
        sceneFactor = v.sceneLow + scenes.nextDouble() * (v.sceneHigh - v.sceneLow);
        long len = v.sceneMinNanos == v.sceneMaxNanos ? v.sceneMinNanos
            : v.sceneMinNanos + (long) (scenes.nextDouble() * (v.sceneMaxNanos - v.sceneMinNanos));
        sceneEnd += Math.max(1, len);
      }
      return sceneFactor * jitter();
    }

    private double jitter() {
      return v.frameJitter == 0 ? 1.0 : 1.0 + (random.nextDouble() * 2 - 1) * v.frameJitter;
    }
  }
}
