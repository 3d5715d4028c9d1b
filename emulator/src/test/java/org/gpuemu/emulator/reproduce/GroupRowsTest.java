package org.gpuemu.emulator.reproduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.config.Expectations;
import org.gpuemu.emulator.config.Expectations.Aggregate;
import org.gpuemu.emulator.config.Expectations.Axis;
import org.gpuemu.emulator.config.Expectations.Groups;
import org.gpuemu.emulator.config.Expectations.Row;
import org.gpuemu.emulator.config.Expectations.Value;
import org.junit.jupiter.api.Test;

/** Rows over groups (combo's 128 co-location groups): a ratio per group and seed, then the mean, max or min. */
class GroupRowsTest {
  private static final Groups GAMES = new Groups(List.of(new Axis("game", "vms.game.workload",
      List.of("combo-steel", "combo-quake2", "combo-dutm"), List.of("steel", "quake2", "dutm"))), List.of());
  private static final Value GAIN = new Value(1.14, 1.14, 0.05, Double.NaN);

  /** Runs whose total BE throughput is {@code combo[g][seed]} and {@code pilotfish[g][seed]} per group g. */
  private static Map<String, Map<String, List<Reproduction.Run>>> runs(double[][] combo, double[][] pilotfish,
      boolean trusted) {
    Map<String, Map<String, List<Reproduction.Run>>> runs = new LinkedHashMap<>();
    List<String> labels = List.of("steel", "quake2", "dutm");
    for (int g = 0; g < combo.length; g++) {
      Map<String, List<Reproduction.Run>> byPolicy = new LinkedHashMap<>();
      byPolicy.put("pilotfish", seeds(pilotfish[g], trusted));
      byPolicy.put("combo", seeds(combo[g], trusted));
      runs.put(labels.get(g), byPolicy);
    }
    return runs;
  }

  private static List<Reproduction.Run> seeds(double[] totals, boolean trusted) {
    List<Reproduction.Run> list = new ArrayList<>();
    for (double t : totals) list.add(new Reproduction.Run(Map.of("be_throughput", Map.of("total", t)), trusted));
    return list;
  }

  private static Report.Row judge(Row row, Map<String, Map<String, List<Reproduction.Run>>> runs) {
    Expectations e = new Expectations("combo", List.of("pilotfish", "combo"), 0, 0, 1000, GAMES, Map.of(), List.of(row));
    Reproduction.Figure f = new Reproduction.Figure("combo", "combo/evaluation", Path.of("evaluation.conf"), e,
        Map.of());
    return FigureJudge.judgeRow(f, row, runs, new ArrayList<>());
  }

  private static Row ratio(Aggregate aggregate, Map<String, String> where) {
    return new Row("Figure 13", "be_throughput.total", "combo", "pilotfish", GAIN, null, "s", aggregate, where, false,
        false, Expectations.Unmeasured.NONE, null, null);
  }

  @Test
  void theMeanOfTheGroupsRatios_perSeed_thenTheMedianOfTheSeeds() {
    // ratios: steel 1.2 / 1.0, quake2 1.5 / 1.3, dutm 1.05 / 1.1 -> means per seed 1.25 and 1.133..., median 1.19
    double[][] combo = {{120, 100}, {150, 130}, {105, 110}};
    double[][] pilotfish = {{100, 100}, {100, 100}, {100, 100}};
    Report.Row r = judge(ratio(Aggregate.MEAN, Map.of()), runs(combo, pilotfish, true));
    assertEquals(List.of(1.25, (1.0 + 1.3 + 1.1) / 3), r.seedValues());
    assertEquals((1.25 + 3.4 / 3) / 2, r.judged().median(), 1e-12);
    // the median (1.19) is outside 1.14 +- 0.05 but above 1; seed 2 alone (1.133) is within: the seeds disagree
    assertEquals(ClaimVerdict.UNSTABLE, r.judged().verdict());
    assertEquals("seeds: same direction, reproduced; the median's verdict: same direction", r.judged().note());
    assertEquals("combo / pilotfish, mean of 3 groups", r.policy());
    // each group's value is the median of its seeds
    assertEquals(Map.of("steel", 1.1, "quake2", 1.4, "dutm", 1.075), r.groupValues());
  }

  @Test
  void aBaseOfZero_contradictsTheRatio_andSaysSo_butAMissingValueIsNotRun() {
    // the base policy measured 0 (as gVirt's λ with every VM perfectly fair): no base for the paper's ratio
    double[][] combo = {{120}, {150}, {105}};
    double[][] zero = {{0}, {0}, {0}};
    Report.Row r = judge(ratio(Aggregate.MEAN, Map.of()), runs(combo, zero, true));
    assertEquals(ClaimVerdict.CONTRADICTS, r.judged().verdict());
    assertEquals("pilotfish's be_throughput.total is 0 in a run: no base for the paper's ratio", r.judged().note());
    // a value the runs do not have at all stays "not run"
    Row missing = new Row("Figure 13", "be_throughput.none", "combo", "pilotfish", GAIN, null, "s", Aggregate.MEAN,
        Map.of(), false, false, Expectations.Unmeasured.NONE, null, null);
    assertEquals(ClaimVerdict.NOT_RUN, judge(missing, runs(combo, zero, true)).judged().verdict());
  }

  @Test
  void maxMinAndWhere_pickTheirGroups() {
    double[][] combo = {{120}, {150}, {105}};
    double[][] pilotfish = {{100}, {100}, {100}};
    assertEquals(List.of(1.5), judge(ratio(Aggregate.MAX, Map.of()), runs(combo, pilotfish, true)).seedValues());
    assertEquals(List.of(1.05), judge(ratio(Aggregate.MIN, Map.of()), runs(combo, pilotfish, true)).seedValues());
    Report.Row quake = judge(ratio(Aggregate.MEAN, Map.of("game", "quake2")), runs(combo, pilotfish, true));
    assertEquals(List.of(1.5), quake.seedValues());
    assertEquals("combo / pilotfish, mean of 1 group (game quake2)", quake.policy());
  }

  @Test
  void aMissingValueInAnyGroup_leavesTheRowNotRun_andAnUntrustedRunMakesItUnfaithful() {
    assertEquals(Arrays.asList(1.0, null),
        FigureJudge.aggregate(List.of(List.of(1.0, 2.0), Arrays.asList(1.0, null)), Aggregate.MEAN));
    double[][] combo = {{120}, {150}, {105}};
    double[][] pilotfish = {{100}, {100}, {100}};
    Report.Row r = judge(ratio(Aggregate.MEAN, Map.of()), runs(combo, pilotfish, false));
    assertFalse(r.faithful());
    // the mean ratio 1.25 would be "same direction"; a run that cannot be trusted never supports a claim
    assertEquals(ClaimVerdict.UNFAITHFUL, r.judged().verdict());
    assertNull(FigureJudge.aggregate(List.of(), Aggregate.MAX).stream().findFirst().orElse(null));
  }

  @Test
  void aPerKeyRow_isTheMeanOfTheKeysRatios_notTheRatioOfTheirSums() {
    // gballoon Figure 7: the benchmarks' performance normalised to gVirt-384, averaged (1.5 and 0.5: 1.0), where
    // the sums' ratio would be (15 + 1) / (10 + 2) = 1.33
    Map<String, Object> big = Map.of("benchmarks", Map.of("valley", Map.of("performance", 15.0),
        "midori", Map.of("performance", 1.0)));
    Map<String, Object> small = Map.of("benchmarks", Map.of("valley", Map.of("performance", 10.0),
        "midori", Map.of("performance", 2.0)));
    Map<String, Map<String, List<Reproduction.Run>>> runs = Map.of("", Map.of(
        "static-384", List.of(new Reproduction.Run(small, true)),
        "gballoon", List.of(new Reproduction.Run(big, true))));
    Row row = new Row("Figure 7", "benchmarks.*.performance", "gballoon", "static-384",
        new Value(1.08, 1.08, 0.027, Double.NaN), null, "s", Aggregate.NONE, Map.of(), false, true, Expectations.Unmeasured.NONE, null, null);
    Expectations e = new Expectations("gballoon", List.of("static-384", "gballoon"), 0, 0, 0, Groups.NONE, Map.of(),
        List.of(row));
    Reproduction.Figure f = new Reproduction.Figure("gballoon", "gballoon/mixed-15vms", Path.of("m.conf"), e,
        Map.of());
    assertEquals(List.of(1.0), FigureJudge.judgeRow(f, row, runs, new ArrayList<>()).seedValues());
    // a segment with a * in it sums the keys it matches
    Map<String, Object> doc = Map.of("vms", Map.of("c1", Map.of("cpu_ms", 2.0), "c2", Map.of("cpu_ms", 3.0),
        "v1", Map.of("cpu_ms", 7.0)));
    assertEquals(5.0, FigureJudge.at(doc, "vms.c*.cpu_ms").orElseThrow());
    assertEquals(12.0, FigureJudge.at(doc, "vms.*.cpu_ms").orElseThrow());
  }

  @Test
  void unmeasuredRows_haveTheirVerdictAndNoValue_andAWhyIsListedUnderTheTable() {
    Row why = new Row("Figure 13", "be_throughput.total", "combo", "pilotfish", GAIN, null, "s", Aggregate.MEAN,
        Map.of(), false, false, Expectations.Unmeasured.NONE, "VGG16's kernels fit few idle periods", null);
    Report.Row measured = judge(why, runs(new double[][] {{130}, {120}, {110}}, new double[][] {{100}, {100}, {100}},
        true));
    assertEquals(ClaimVerdict.SAME_DIRECTION, measured.judged().verdict(), "1.2 is outside 1.14 +- 0.05, above 1");
    Expectations e = new Expectations("combo", List.of("pilotfish", "combo"), 0, 0, 1000, GAMES, Map.of(),
        List.of(why, unmeasured("Figure 3", Expectations.Unmeasured.NO_NUMBER),
            unmeasured("Table 1", Expectations.Unmeasured.INPUT),
            unmeasured("Table 5", Expectations.Unmeasured.NOT_MODELLED)));
    Reproduction.Figure f = new Reproduction.Figure("combo", "combo/evaluation", Path.of("evaluation.conf"), e,
        Map.of());
    List<Report.Row> rows = FigureJudge.judge(f, runs(new double[][] {{130}, {120}, {110}},
        new double[][] {{100}, {100}, {100}}, true), new ArrayList<>());
    assertEquals(List.of(ClaimVerdict.SAME_DIRECTION, ClaimVerdict.NO_NUMBER, ClaimVerdict.INPUT, ClaimVerdict.NOT_MODELLED),
        rows.stream().map(r -> r.judged().verdict()).toList());
    assertNull(rows.get(1).judged().median());
    String md = Report.markdown(Report.document("reproduce combo", false, 1, 1, rows));
    assertTrue(md.contains("| Figure 3 | `combo/evaluation` |  | – | no run: see source | – | – | no number | yes |"),
        md);
    assertTrue(md.contains("| Table 1 | `combo/evaluation` |  | – | no run: see source | – | – | input | yes |"), md);
    assertTrue(md.contains("1 same direction, 0 contradicts, 0 unstable, 0 unfaithful, 0 not run, 0 not judged "
        + "(quick), 0 calibrated, 0 by construction, 0 input (differs), 1 input, 1 no number, 1 not modelled"), md);
    assertTrue(md.contains("Why, as measured:\n\n- Figure 13, combo / pilotfish, mean of 3 groups, "
        + "`be_throughput.total`, paper 1.14 ± 0.05 (ratio to pilotfish): VGG16's kernels fit few idle periods\n"), md);
  }

  @Test
  void anOrderingBetweenGroups_comparesTheSameValueOverTheOtherGroups() {
    // Quake 2's mean ratio against Severed Steel's (combo.txt §6.3: "the highest throughput improvements with Quake 2")
    Row quake2 = new Row("Figure 13", "be_throughput.total", "combo", "pilotfish", Expectations.OrderingOnly.INSTANCE,
        new Expectations.Direction(true, null, Map.of("game", "steel|dutm")), "s", Aggregate.MEAN,
        Map.of("game", "quake2"), false, false, Expectations.Unmeasured.NONE, null, null);
    Map<String, Map<String, List<Reproduction.Run>>> runs = runs(new double[][] {{130}, {120}, {110}},
        new double[][] {{100}, {100}, {100}}, true);
    Report.Row r = judge(quake2, runs);
    // quake2 1.2 against the mean of steel 1.3 and dutm 1.1: 1.2, not greater
    assertEquals(ClaimVerdict.CONTRADICTS, r.judged().verdict());
    assertEquals("(ratio to pilotfish), > game=steel|dutm", r.claim());
    Row steel = new Row("Figure 13", "be_throughput.total", "combo", "pilotfish", Expectations.OrderingOnly.INSTANCE,
        new Expectations.Direction(true, null, Map.of("game", "quake2|dutm")), "s", Aggregate.MEAN,
        Map.of("game", "steel"), false, false, Expectations.Unmeasured.NONE, null, null);
    assertEquals(ClaimVerdict.REPRODUCED, judge(steel, runs).judged().verdict(), "1.3 > the mean of 1.2 and 1.1");
  }

  private static Row unmeasured(String figure, Expectations.Unmeasured kind) {
    return new Row(figure, null, null, null, Expectations.OrderingOnly.INSTANCE, null, "what it shows",
        Aggregate.NONE, Map.of(), kind == Expectations.Unmeasured.INPUT, false, kind, null, null);
  }

}
