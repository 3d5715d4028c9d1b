package org.gpuemu.policies.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class VgpuParamsTest {
  @Test
  void vgpuParams_threeArgumentForm_hasNoShare_andTheThirtyFpsSla() {
    VgpuParams vm = new VgpuParams(2, "dirt3", 1);
    assertFalse(vm.hasShare());
    assertTrue(Double.isNaN(vm.share()));
    assertEquals(30.0, vm.slaFps());
  }

  @Test
  void vgpuParams_keepsASetShareAndSla() {
    VgpuParams vm = new VgpuParams(0, "nba2012", 1, 0.3, 60.0);
    assertTrue(vm.hasShare());
    assertEquals(0.3, vm.share());
    assertEquals(60.0, vm.slaFps());
  }

  @Test
  void vgpuParams_rejectsSharesOutsideZeroToOne_namingTheVm() {
    assertEquals("VM a: share must be in (0, 1] or unset, got 0.0",
        assertThrows(IllegalArgumentException.class, () -> new VgpuParams(0, "a", 1, 0.0, 30)).getMessage());
    assertThrows(IllegalArgumentException.class, () -> new VgpuParams(0, "a", 1, 1.5, 30));
    new VgpuParams(0, "a", 1, 1.0, 30);
  }

  @Test
  void vgpuParams_rejectsANonPositiveSlaFps() {
    assertEquals("VM b: SLA FPS must be a finite number > 0, got 0.0",
        assertThrows(IllegalArgumentException.class, () -> new VgpuParams(1, "b", 1, Double.NaN, 0)).getMessage());
    assertThrows(IllegalArgumentException.class,
        () -> new VgpuParams(1, "b", 1, Double.NaN, Double.POSITIVE_INFINITY));
  }
}
