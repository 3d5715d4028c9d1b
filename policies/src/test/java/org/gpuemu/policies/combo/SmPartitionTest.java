package org.gpuemu.policies.combo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SmPartitionTest {
  private static final double QOS_120 = 1e9 / 120;

  @ParameterizedTest(name = "{0} SMs of 82 at render {1} of the target")
  @CsvSource({
      // Figure 11: frames needing 50 and then 60 of 82 SMs
      "50, 0.6097", "60, 0.7317",
      // Table 4's SM ratios (medium quality) are the render time over the QoS target, rounded up to whole SMs:
      // Served Steel 68.97 % (56.6 SMs), DUTM 73.17 % (60 SMs), Quake 2 72.29 % (59.3), The Ascent 39.73 % (32.6)
      "57, 0.6897", "60, 0.7317", "60, 0.7229", "33, 0.3973"})
  void eq5_renderSmsAreTotalTimesRenderTimeOverQosTarget_roundedUp(int sms, double ratio) {
    assertEquals(sms, SmPartition.renderSms(82, Math.round(ratio * QOS_120), QOS_120));
  }

  @Test
  void eq5_table6ExperimentA_gives73SmsToTheGame_and9ToMriq() {
    // §5.2: 14.8 ms per frame against 16.7 ms (60 FPS): 82 × 14.8 / 16.667 = 72.8, so 73 and 82 − 73 = 9
    assertEquals(new SmLayout.Split(73, 9), SmPartition.split(82, 14_800_000, 1e9 / 60));
  }

  @Test
  void eq5_asPrinted_wouldGiveMoreSmsThanTheGpuHas() {
    // Eq. 5 prints SM_total × QoS / rendertime; for DUTM medium that is 82 / 0.7317 = 112 SMs of 82
    double printed = 82 * QOS_120 / (0.7317 * QOS_120);
    assertTrue(printed > 82);
    assertEquals(60, SmPartition.renderSms(82, Math.round(0.7317 * QOS_120), QOS_120));
  }

  @Test
  void eq5_isTheFewestSmsThatMeetTheTarget() {
    // on n SMs a frame takes render × 82 / n (§5.4); n meets the target, n − 1 does not
    for (long render = 100_000; render < QOS_120; render += 37_813) {
      int n = SmPartition.renderSms(82, render, QOS_120);
      assertTrue(render * 82.0 / n <= QOS_120, "render " + render + " on " + n);
      if (n > 1) assertTrue(render * 82.0 / (n - 1) > QOS_120, "render " + render + " on " + (n - 1));
    }
  }

  @Test
  void eq5_aWholeNumberOfSmsIsNotRoundedUpByFloatingPointNoise() {
    // 5 ms of 10 ms on 82 SMs is 41 SMs exactly (82 × 0.005 / 0.01 is 41.000000000000004 in doubles)
    assertEquals(41, SmPartition.renderSms(82, 5_000_000, 10_000_000));
  }

  @Test
  void eq5_isClampedToOneSm_andToTheWholeGpu() {
    assertEquals(1, SmPartition.renderSms(82, 0, QOS_120));
    assertEquals(82, SmPartition.renderSms(82, Math.round(QOS_120), QOS_120));
    assertEquals(new SmLayout.Split(82, 0), SmPartition.split(82, 2 * Math.round(QOS_120), QOS_120));
  }
}
