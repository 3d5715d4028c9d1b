package org.gpuemu.emulator.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.gpuemu.emulator.config.Settings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bench's generated scenarios load like users' files. */
class ScenarioTextTest {
  @TempDir Path dir;

  @Test
  void generatedScenario_loadsWithItsScaleDurationSettingsAndVms() throws Exception {
    Settings.Scenario s = new ScenarioText("path-3vm", "three sync loops")
        .scale(10).durationSeconds(2.5).set("host.cores", "3").set("gpu.context-switch", "0us")
        .vms("vm", 3, "workload = sync-loop, vcpus = 1, sync-wait = poll")
        .load(dir);
    assertTrue(Files.isRegularFile(dir.resolve("path-3vm.conf")));
    assertEquals(10.0, s.timeScale());
    assertEquals(2_500_000_000L, s.durationNanos());
    assertEquals(3, s.host().cores());
    assertEquals(0, s.gpu().contextSwitchNanos());
    assertEquals(3, s.vms().size());
    for (int i = 0; i < 3; i++) {
      Settings.Vm vm = s.vms().get(i);
      assertEquals("vm" + i, vm.name(), "one VM per line keeps the file's order");
      assertEquals("sync-loop", vm.workload());
      assertEquals(Settings.SyncWait.POLL, vm.syncWait());
      assertEquals(1, vm.vcpus());
    }
  }

  @Test
  void everyBenchScenario_isValid() {
    new ScenarioText("load", "x").durationSeconds(1).vm("a", "workload = dirt3").load(dir);
    TimerSection.loadScenario().load(dir);
    RequestPathSection.scenario(64, 10, 20).load(dir);
  }

  @Test
  void anInvalidScenario_isABenchBug_notBadInput() {
    ScenarioText bad = new ScenarioText("bad", "x").vm("a", "workload = no-such-workload");
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> bad.load(dir));
    assertTrue(e.getMessage().contains("workload"), e.getMessage());
  }
}
