package org.gpuemu.policies.combo;

import java.util.Objects;

/**
 * What a space-sharing policy learns about its run before the first event.
 *
 * @param totalSms    the GPU's SMs (RTX 3090: 82, combo.txt Table 1)
 * @param fps         the game's frame rate; a frame's QoS target is 1/fps
 * @param predictor   Eq. 4, fitted offline on the game ({@link RenderTimePredictor#fit})
 * @param colocation  the GPU's co-location table, the same one its SM groups execute with
 */
public record SpaceSetup(int totalSms, double fps, RenderTimePredictor predictor, ColocationTable colocation) {
  public SpaceSetup {
    if (totalSms <= 0) throw new IllegalArgumentException("a GPU needs SMs, got " + totalSms);
    if (!(fps > 0) || Double.isInfinite(fps)) throw new IllegalArgumentException("fps must be finite and > 0: " + fps);
    Objects.requireNonNull(predictor, "predictor");
    Objects.requireNonNull(colocation, "colocation");
  }
}
