package org.gpuemu.policies.nvidia;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.gpuemu.policies.nvidia.VgpuSchedulerSettings.Scheduler;
import org.junit.jupiter.api.Test;

/** Every RmPVMRL example of NVIDIA AI Enterprise User Guide v5.0 §7.3, decoded, and its clamping rules. */
class VgpuSchedulerSettingsTest {
  private static void expect(long dword, Scheduler s, boolean strict, int aa, int hz, int tt) {
    assertEquals(new VgpuSchedulerSettings(s, strict, aa, hz, tt), VgpuSchedulerSettings.decode(dword),
        Long.toHexString(dword));
  }

  @Test
  void theGuidesExamples() {
    expect(0x00, Scheduler.BEST_EFFORT, true, 33, 0, 0);
    expect(0x01, Scheduler.EQUAL_SHARE, true, 33, 0, 0); // "equal share [...] strict round-robin [...] defaults"
    expect(0x00030003L, Scheduler.EQUAL_SHARE, false, 33, 0, 3); // "without a strict round-robin [...] 3 ms"
    expect(0x11, Scheduler.FIXED_SHARE, true, 33, 0, 0);
    expect(0x00180011L, Scheduler.FIXED_SHARE, false, 33, 0, 24); // "24 (0x18) ms long"
    expect(0x3c3c0001L, Scheduler.EQUAL_SHARE, true, 60, 960, 0); // "averaging factor of 60 [...] 960 Hz"
    expect(0x3c3c0011L, Scheduler.FIXED_SHARE, true, 60, 960, 0);
  }

  @Test
  void clamping() {
    expect(0x500100_01L, Scheduler.EQUAL_SHARE, true, 60, 63, 0); // AA 0x50 > 0x3C: 60; FFF 0x001 < 0x3F: 63
    expect(0x01FFF001L, Scheduler.EQUAL_SHARE, true, 1, 960, 0); // FFF 0xFFF > 0x3C0: 960
    expect(0x00200001L, Scheduler.EQUAL_SHARE, false, 33, 0, 30); // TT 0x20 > 0x1E: 30 ms
  }

  @Test
  void densityDefaults() {
    // §7.3 Table 1: at most 8 vGPUs per GPU: 2 ms and 480 Hz; more: 1 ms and 960 Hz
    VgpuType a10c = VgpuType.of("A100-10C").orElseThrow();
    VgpuType a5c = VgpuType.of("A100-5C").orElseThrow();
    VgpuType a4c = VgpuType.of("A100-4C").orElseThrow();
    VgpuSchedulerSettings defaults = VgpuSchedulerSettings.decode(0x01);
    assertEquals(480, defaults.effectiveFrequencyHz(a10c));
    assertEquals(480, defaults.effectiveFrequencyHz(a5c)); // exactly 8: "less than or equal to 8"
    assertEquals(960, defaults.effectiveFrequencyHz(a4c));
    assertEquals(2, VgpuSchedulerSettings.decode(0x01).effectiveTimeSliceMs(a5c));
    assertEquals(1, VgpuSchedulerSettings.decode(0x01).effectiveTimeSliceMs(a4c));
    assertEquals(0.25, VgpuType.of("T4-4C").orElseThrow().fixedShare());
  }
}
