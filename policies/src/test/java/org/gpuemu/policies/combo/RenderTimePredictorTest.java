package org.gpuemu.policies.combo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.gpuemu.workloads.ComboGame;
import org.gpuemu.workloads.RenderScene;
import org.gpuemu.workloads.WorkloadCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RenderTimePredictorTest {
  @Test
  void eq4_timeRtIsAPerPixelSample_timeCudaBPerPixelTriangle() {
    // a = 0.5 ns per pixel-sample, b = 2e-6 ns per pixel-triangle; 2560x1440 = 3,686,400 pixels:
    // time_rt = 0.5 × 3,686,400 × 2 = 3,686,400 ns; time_cuda = 2e-6 × 3,686,400 × 500,000 = 3,686,400 ns
    RenderTimePredictor p = new RenderTimePredictor(0.5, 2e-6);
    RenderTimePredictor.Estimate e = p.estimate(new RenderScene(2560, 1440, 2, 500_000));
    assertEquals(3_686_400, e.rtNanos());
    assertEquals(3_686_400, e.cdNanos());
    assertEquals(7_372_800, e.totalNanos());
  }

  @Test
  void fit_isLeastSquaresThroughTheOrigin_perTerm() {
    // one pixel per frame: x = samples = (1, 2), RT times (2, 4.2) ns·1000 → a = Σxy/Σx² = (2 + 8.4)/5 = 2.08 µs;
    // x = triangles = (1, 3), CD times (1, 3) → b = 1 µs exactly
    List<ComboGame.ProfiledFrame> frames = List.of(
        new ComboGame.ProfiledFrame(new RenderScene(1, 1, 1, 1), 2_000, 1_000),
        new ComboGame.ProfiledFrame(new RenderScene(1, 1, 2, 3), 4_200, 3_000));
    RenderTimePredictor p = RenderTimePredictor.fit(frames);
    assertEquals(2_080, p.a(), 1e-9);
    assertEquals(1_000, p.b(), 1e-9);
  }

  @ParameterizedTest
  @ValueSource(strings = {"combo-steel-dynamic", "combo-dutm-dynamic", "combo-quake2-low-dynamic",
      "combo-ascent-medium", "combo-table6-dynamic"})
  void fit_onAGamesProfile_predictsEveryFrameOfItsRun(String name) {
    // the games follow Eq. 4 exactly, so the fitted predictor is within a nanosecond of every kernel's time
    ComboGame game = (ComboGame) WorkloadCatalog.get(name);
    RenderTimePredictor p = RenderTimePredictor.fit(game.profile());
    ComboGame.SceneTrace scenes = game.scenes(3);
    for (int k = 0; k < 5_000; k++) {
      RenderScene s = scenes.scene(k);
      assertEquals(game.rtNanos(s), p.estimate(s).rtNanos(), 1, name + " frame " + k);
      assertEquals(game.cdNanos(s), p.estimate(s).cdNanos(), 1, name + " frame " + k);
    }
  }

  @Test
  void fit_needsFrames_andCoefficientsMustBePositive() {
    assertThrows(IllegalArgumentException.class, () -> RenderTimePredictor.fit(List.of()));
    assertThrows(IllegalArgumentException.class, () -> new RenderTimePredictor(0, 1));
    assertThrows(IllegalArgumentException.class, () -> new RenderTimePredictor(1, Double.POSITIVE_INFINITY));
  }
}
