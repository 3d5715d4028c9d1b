package org.gpuemu.emulator.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyKind;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.junit.jupiter.api.Test;

/** The one decision of which parts a time-sharing policy switches on, over every registered GPU policy. */
class PolicyPartsTest {

  private static final Path SCENARIO = Path.of(System.getProperty("conf.dir", "../conf"), "scenarios", "baseline",
      "default-contention.conf");

  /** The parts of {@code policy} made with its defaults, as a run makes it. */
  private static String partsOf(String policy) throws Exception {
    Settings.PolicyChoice choice = ScenarioLoader.load(SCENARIO, new ScenarioLoader.Overrides(null, null, null,
        Map.of("scheduler.gpu.policy", policy))).gpuPolicy();
    PolicyParts p = PolicyParts.of(choice.create(PolicyKind.GPU), choice.spec().inputs());
    List<String> on = new ArrayList<>();
    if (p.presentGate() != null) on.add("vgris-controller");
    if (p.cpuTime()) on.add("cpu-time");
    if (p.busAndMemory()) on.add("bus-and-memory");
    if (p.gpuCoscheduled()) on.add("gpu-coscheduling");
    if (p.cpuCoscheduled()) on.add("cpu-coscheduling");
    if (p.slicing() != null) on.add("kernel-slicing");
    return String.join(",", on);
  }

  @Test
  void everyGpuPolicy_getsThePartsOfItsPaper_andTheBaselinesNone() throws Exception {
    Map<String, String> parts = new TreeMap<>();
    for (String name : PolicyCatalog.builtIn().names(PolicyKind.GPU)) parts.put(name, partsOf(name));
    // VGRIS's three policies need its controller; VMCG its CPU time and bus/memory shares; FairGV its GPU-centric
    // coscheduling and kernel slicing; Pegasus (strict-co) the cores' switches; the baselines and NVIDIA's vGPU schedulers nothing
    assertEquals(Map.ofEntries(
        Map.entry("credit-hs", ""),
        Map.entry("credit-poll", ""),
        Map.entry("fairgv", "gpu-coscheduling,kernel-slicing"),
        Map.entry("fcfs", ""),
        Map.entry("gvirt", ""),
        Map.entry("round-robin", ""),
        Map.entry("strict-co", "cpu-coscheduling"),
        Map.entry("vgpu-best-effort", ""),
        Map.entry("vgpu-equal-share", ""),
        Map.entry("vgpu-fixed-share", ""),
        Map.entry("vgris-hybrid", "vgris-controller"),
        Map.entry("vgris-share", "vgris-controller"),
        Map.entry("vgris-sla", "vgris-controller"),
        Map.entry("vmcg", "cpu-time,bus-and-memory")), parts);
  }
}
