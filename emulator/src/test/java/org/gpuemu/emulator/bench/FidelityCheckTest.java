package org.gpuemu.emulator.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gpuemu.emulator.bench.FidelityCheck.Call;
import org.gpuemu.emulator.bench.FidelityCheck.Comparison;
import org.gpuemu.emulator.bench.FidelityCheck.Difference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fidelity section's comparison of two summary.json documents, on hand-made summaries: no run. */
class FidelityCheckTest {
  @TempDir Path dir;

  private static Map<String, Object> vm(double share, double fps, int frames) {
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("gpu_share", share);
    v.put("fps", fps);
    v.put("frames", frames);
    return v;
  }

  private static Map<String, Object> summary(Map<String, Object> vms, double mmr, Double lambda) {
    Map<String, Object> fairness = new HashMap<>();
    fairness.put("mmr", mmr);
    fairness.put("lambda", lambda); // null when summary.json has none
    fairness.put("normalized_by", "gpu time");
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("vms", vms);
    s.put("fairness", fairness);
    return s;
  }

  private static Map<String, Object> twoVms(double shareA, double fpsA, double shareB, double mmr, Double lambda) {
    Map<String, Object> vms = new LinkedHashMap<>();
    vms.put("a", vm(shareA, fpsA, fpsA > 0 ? 100 : 0));
    vms.put("b", vm(shareB, 0, 0));
    return summary(vms, mmr, lambda);
  }

  @Test
  void difference_isRelative_fromHalfUp_andAbsoluteBelow() {
    Difference rel = Difference.of("fps", 61.0, 60.0);
    assertEquals("relative", rel.kind());
    assertEquals(1 / 60.0, rel.difference(), 1e-12);
    assertEquals(0.02, rel.tolerance());
    assertTrue(rel.within());

    Difference atHalf = Difference.of("share", 0.51, 0.5);
    assertEquals("relative", atHalf.kind(), "0.5 itself is compared relatively");
    assertEquals(0.02, atHalf.difference(), 1e-9);

    Difference abs = Difference.of("share", 0.3, 0.309);
    assertEquals("absolute", abs.kind(), "below 0.5: absolute");
    assertEquals(0.009, abs.difference(), 1e-12);
    assertEquals(0.01, abs.tolerance());
    assertTrue(abs.within(), "2.9 % relative, but 0.009 absolute");

    assertFalse(Difference.of("share", 0.0, 0.011).within(), "0.011 absolute");
    assertFalse(Difference.of("fps", 57.0, 60.0).within(), "5 % relative");
    assertTrue(Difference.of("lambda", -0.004, 0.0).within(), "a zero reference: absolute");
    assertEquals(0.0, Difference.of("x", 0.0, 0.0).difference());
  }

  @Test
  void largest_isTheDifferenceFurthestOutsideItsTolerance_notTheLargestNumber() {
    // a: fps 1.5 % off (relative, 0.75 of 2 %), its share 0.009 off (absolute, 0.9 of 0.01); b and mmr exact
    Comparison c = FidelityCheck.compare(twoVms(0.409, 59.1, 0.591, 0.8, 0.1), twoVms(0.4, 60.0, 0.591, 0.8, 0.1));
    assertTrue(c.within());
    assertEquals("vms.a.gpu_share", c.largest().figure(), "0.009 < 0.015 but nearer its tolerance");
    assertEquals("absolute", c.largest().kind());
    assertEquals(0.009, c.largest().difference(), 1e-12);

    Comparison worse = FidelityCheck.compare(twoVms(0.409, 58.0, 0.591, 0.8, 0.1), twoVms(0.4, 60.0, 0.591, 0.8,
        0.1));
    assertFalse(worse.within(), "fps 3.3 % off");
    assertEquals("vms.a.fps", worse.largest().figure());
    assertEquals("relative", worse.largest().kind());
  }

  @Test
  void figures_fpsOnlyForVmsWithFrames_lambdaWhenANumber_andTheComboAndGballoonNumbers() {
    Map<String, Object> s = twoVms(0.6, 30, 0.4, 0.66, null);
    @SuppressWarnings("unchecked")
    Map<String, Object> a = (Map<String, Object>) ((Map<String, Object>) s.get("vms")).get("a");
    a.put("memory_slots", Map.of("final", 7, "max", 9));
    a.put("frame_latency_ms", Map.of("p99", 33.0)); // not a key figure
    s.put("be_throughput", new LinkedHashMap<>(Map.of("total", 305.4)));
    Map<String, Double> f = FidelityCheck.figures(s, FidelityCheck.framedVms(s));
    assertEquals(Set.of("vms.a.fps", "vms.a.gpu_share", "vms.a.memory_slots.final", "vms.a.memory_slots.max",
        "vms.b.gpu_share", "fairness.mmr", "be_throughput.total"), f.keySet());
    assertEquals(9.0, f.get("vms.a.memory_slots.max"));
    assertEquals(305.4, f.get("be_throughput.total"));
    assertTrue(FidelityCheck.figures(s, Set.of("a", "b")).containsKey("vms.b.fps"),
        "b's fps counts when it showed frames in the other run");
  }

  @Test
  void fps_countsWhenEitherRunShowedFrames() {
    Comparison c = FidelityCheck.compare(twoVms(0.5, 0, 0.5, 1, 0.0), twoVms(0.5, 12, 0.5, 1, 0.0));
    assertEquals("vms.a.fps", c.largest().figure(), "12 fps in the reference, none in the run");
    assertEquals(1.0, c.largest().difference());
    assertFalse(c.within());
  }

  @Test
  void aFigureOnlyOneRunHas_isUnmatched_andNotWithin() {
    Comparison c = FidelityCheck.compare(twoVms(0.5, 30, 0.5, 1, null), twoVms(0.5, 30, 0.5, 1, 0.02));
    assertEquals(List.of("fairness.lambda (reference only)"), c.unmatched());
    assertFalse(c.within());
    assertEquals(0.0, c.largest().difference(), "every compared figure agrees");
    assertTrue(FidelitySection.largest(c).contains("unmatched: fairness.lambda (reference only)"));
  }

  @Test
  void noFigures_nothingLargest() {
    Comparison c = FidelityCheck.compare(Map.of(), Map.of());
    assertNull(c.largest());
    assertTrue(c.within());
  }

  @Test
  void call_verdictRight_missed_falseAlarm() {
    assertEquals(Call.CONFIRMED, Call.of(true, true));
    assertEquals(Call.MISSED, Call.of(true, false));
    assertEquals(Call.FALSE_ALARM, Call.of(false, true));
    assertEquals(Call.CAUGHT, Call.of(false, false));
    assertTrue(Call.CONFIRMED.right());
    assertFalse(Call.MISSED.right(), "faithful but outside: a missed error");
    assertTrue(Call.FALSE_ALARM.right(), "not faithful: right, but counted as a false alarm");
    assertTrue(Call.CAUGHT.right());
  }

  @Test
  void totals_countEachCall() {
    FidelityCheck.Totals t = FidelityCheck.Totals.of(List.of(Call.CONFIRMED, Call.CONFIRMED, Call.MISSED,
        Call.FALSE_ALARM, Call.CAUGHT), 4, 2);
    assertEquals(7, t.scenarios());
    assertEquals(2, t.errors());
    assertEquals(5, t.runs());
    assertEquals(3, t.faithful());
    assertEquals(3, t.within());
    assertEquals(4, t.verdictRight());
    assertEquals(1, t.missed());
    assertEquals(1, t.falseAlarms());
    assertEquals(4, t.referenceFaithful());
  }

  @Test
  void scenarioFiles_inPathOrder_filteredByAGlobWithOrWithoutConf() throws Exception {
    for (String f : List.of("vmcg/b.conf", "vmcg/a.conf", "combo/qos.conf", "combo/notes.txt", "gballoon/x.conf")) {
      Files.createDirectories(dir.resolve(f).getParent());
      Files.writeString(dir.resolve(f), "");
    }
    assertEquals(List.of(dir.resolve("combo/qos.conf"), dir.resolve("gballoon/x.conf"), dir.resolve("vmcg/a.conf"),
        dir.resolve("vmcg/b.conf")), FidelitySection.files(dir, null));
    assertEquals(List.of(dir.resolve("vmcg/a.conf"), dir.resolve("vmcg/b.conf")), FidelitySection.files(dir, "vmcg/*"));
    assertEquals(List.of(dir.resolve("combo/qos.conf")), FidelitySection.files(dir, "combo/qos"));
    assertEquals(List.of(dir.resolve("combo/qos.conf"), dir.resolve("gballoon/x.conf")),
        FidelitySection.files(dir, "{combo,gballoon}/*"));
    assertEquals(List.of(), FidelitySection.files(dir, "vgris/*"));
  }

  @Test
  void defaultSections_leaveFidelityOut() {
    assertFalse(Bench.Section.defaults().contains(Bench.Section.FIDELITY), "CI's bench --quick must stay short");
    assertFalse(Bench.Section.defaults().contains(Bench.Section.HOST_SCALE), "three scale searches: only when named");
    assertEquals(Bench.Section.values().length - 2, Bench.Section.defaults().size(), "every other section by default");
    Bench.Options plain = new Bench.Options(true, dir, null, Set.of(), null, null);
    assertEquals(Bench.Section.defaults(), plain.sections());
    Bench.Options only = new Bench.Options(true, dir, null, Set.of(Bench.Section.FIDELITY), dir, "vmcg/*");
    assertEquals(Set.of(Bench.Section.FIDELITY), only.sections());
  }
}
