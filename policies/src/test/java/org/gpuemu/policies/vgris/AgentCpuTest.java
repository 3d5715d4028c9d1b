package org.gpuemu.policies.vgris;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AgentCpuTest {
  private static final PresentMode SLA = new PresentMode.SlaAware(33_000_000L, 20);
  private static final PresentMode SHARE = new PresentMode.ProportionalShare(0.5);
  private static final PresentMode PASS = new PresentMode.PassThrough();

  /** Figure 12's PostProcess totals: the agent's work over PostProcess's 158 FPS frame, to the paper's digits. */
  @Test
  void figure12_postProcessTotals_replayedOverItsFrame() {
    double frame = 1e9 / 158.0;
    // the paper gives two decimals of a percent: ±0.005 % of the frame
    assertEquals(6.74, 100.0 * AgentCpu.perPresent(SLA, false) / frame, 0.005);
    assertEquals(1.56, 100.0 * AgentCpu.perPresent(SHARE, false) / frame, 0.005);
  }

  /** §4.4: the Flush makes SLA-aware's path the more expensive one; a Present not intercepted costs nothing. */
  @Test
  void slaAwareCostsMoreThanProportionalShare_andPassThroughNothing() {
    assertTrue(AgentCpu.perPresent(SLA, false) > AgentCpu.perPresent(SHARE, false));
    assertEquals(0, AgentCpu.perPresent(PASS, false));
    assertEquals(AgentCpu.perPresent(SLA, false), AgentCpu.perPresent(PASS, true));
  }
}
