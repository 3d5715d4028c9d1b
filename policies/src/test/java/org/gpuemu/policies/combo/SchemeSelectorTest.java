package org.gpuemu.policies.combo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class SchemeSelectorTest {
  private static final long MS = 1_000_000L;

  @Test
  void eq2_stableRenderTimes_haveStateZero() {
    assertEquals(0.0, SchemeSelector.state(List.of(14_800_000L, 14_800_000L, 14_800_000L)));
  }

  @Test
  void eq2_isRangeOverMean() {
    // §5.2's dynamic load: between 12 and 16 ms around a mean of 14.8 ms: (16 − 12) / 14.8 = 27 %
    assertEquals(4.0 / 14.8, SchemeSelector.state(List.of(12 * MS, 16 * MS, 16 * MS, 15_200_000L)), 1e-12);
    assertEquals(0.0, SchemeSelector.state(List.of()));
  }

  @Test
  void eq3_stateOf9Percent_isStatic_10Percent_isDynamic() {
    // §5.3: "If the parameter state is 9%, the workload is judged as static"; Eq. 3: dynamic from 10 % on
    SchemeSelector s = new SchemeSelector(3, SchemeSelector.PAPER_THRESHOLD);
    assertEquals(Scheme.EXACT, s.schemeFor(0.09));
    assertEquals(Scheme.RELAXED, s.schemeFor(0.10));
    assertEquals(Scheme.EXACT, s.schemeFor(0.0999));
  }

  @Test
  void observe_isRelaxedUntilTheWindowIsFull_thenFollowsEq3OverTheLatestFrames() {
    SchemeSelector s = new SchemeSelector(3, 0.1);
    assertEquals(Scheme.RELAXED, s.observe(10 * MS));
    assertEquals(Scheme.RELAXED, s.observe(10 * MS));
    assertEquals(Scheme.EXACT, s.observe(10 * MS), "three equal frames: state 0");
    // a jump to 12 ms: (12 − 10) / 10.67 = 18.75 %
    assertEquals(Scheme.RELAXED, s.observe(12 * MS));
    assertEquals(2.0 / (32.0 / 3), s.state(), 1e-12);
    assertEquals(Scheme.RELAXED, s.observe(12 * MS));
    // the 10 ms frames have left the window: state 0 again
    assertEquals(Scheme.EXACT, s.observe(12 * MS));
    // a 5 % wobble stays static: (12.6 − 12) / 12.2 = 4.9 %
    assertEquals(Scheme.EXACT, s.observe(12_600_000));
  }

  @Test
  void windowAndThreshold_mustBePositive() {
    assertThrows(IllegalArgumentException.class, () -> new SchemeSelector(0, 0.1));
    assertThrows(IllegalArgumentException.class, () -> new SchemeSelector(3, 0));
  }
}
