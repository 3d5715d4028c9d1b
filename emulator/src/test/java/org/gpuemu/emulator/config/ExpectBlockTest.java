package org.gpuemu.emulator.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.gpuemu.emulator.config.ScenarioLoader.Overrides;
import org.gpuemu.policies.spi.PolicyCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code scenario.expect} block: accepted and typed when good, one line per problem with its key path. */
class ExpectBlockTest {
  @TempDir Path dir;

  private Path file(String expect) throws IOException {
    return Files.writeString(dir.resolve("f.conf"), "scenario {\n  vms { a { workload = dirt3 } }\n  expect "
        + expect + "\n}\n");
  }

  private List<String> problems(String expect) throws IOException {
    Path f = file(expect);
    ConfigProblems e = assertThrows(ConfigProblems.class, () -> ScenarioLoader.load(f, Overrides.none()));
    // reproduce reads the block itself too: it must report the same problems
    ConfigProblems again = assertThrows(ConfigProblems.class, () -> Expectations.read(f, PolicyCatalog.builtIn()));
    assertEquals(e.problems(), again.problems());
    return e.problems();
  }

  private void onlyProblem(String expect, String path, String says) throws IOException {
    List<String> p = problems(expect);
    assertEquals(1, p.size(), "one problem expected: " + p);
    assertTrue(p.get(0).startsWith(dir.resolve("f.conf") + ": " + path + ": "), p.get(0));
    assertTrue(p.get(0).contains(says), p.get(0));
  }

  @Test
  void goodBlock_isAccepted_andTyped() throws Exception {
    Path f = file("""
        {
          policies = [fairgv, credit-poll]
          quick-duration = 200ms
          rows = [
            { figure = "Figure 8", metric = fairness.mmr, paper = 0.99, tolerance = 0.03, tolerance-from = digits,
              source = "s" }
            { figure = "Figure 8", policy = credit-poll, metric = fairness.mmr, less-than = fairgv, source = "s" }
            { figure = "Fig. 13", policy = credit-poll, over = fairgv, metric = gpu.utilization, paper = [1.0, 1.2],
              relative-tolerance = 0.1, tolerance-from = "convention: 10 %", source = "s" }
            { figure = "Table 2", metric = vms.a.fps, at-least = 30, source = "s" }
          ]
        }""");
    ScenarioLoader.load(f, Overrides.none());
    Expectations e = Expectations.read(f, PolicyCatalog.builtIn());
    assertEquals(List.of("fairgv", "credit-poll"), e.policies());
    assertEquals(200_000_000L, e.quickDurationNanos());
    assertEquals(new Expectations.Value(0.99, 0.99, 0.03, Double.NaN), e.rows().get(0).target());
    assertEquals(new Expectations.Direction(false, "fairgv"), e.rows().get(1).direction());
    // relative tolerance is of the paper's larger end: 10 % of 1.2
    assertEquals(0.12, ((Expectations.Value) e.rows().get(2).target()).tolerance(), 1e-12);
    assertEquals(new Expectations.Bound(30, true), e.rows().get(3).target());
    assertInstanceOf(Expectations.OrderingOnly.class, e.rows().get(1).target());
  }

  @Test
  void noBlock_readsAsNothingToReproduce() throws Exception {
    Path f = Files.writeString(dir.resolve("g.conf"), "scenario { vms { a { workload = dirt3 } } }");
    assertTrue(Expectations.read(f, PolicyCatalog.builtIn()).isEmpty());
  }

  @Test
  void unknownKeys_areNamedWithTheirPath() throws IOException {
    onlyProblem("{ polices = [], rows = [{ figure = F, metric = m, at-least = 1, source = s }] }",
        "scenario.expect.polices", "unknown key");
    onlyProblem("{ rows = [{ figure = F, metric = m, at-least = 1, source = s, tolerence = 1 }] }",
        "scenario.expect.rows[0].tolerence", "unknown key");
  }

  @Test
  void badValues_areNamedWithTheirPath() throws IOException {
    onlyProblem("{ rows = [{ figure = F, metric = m, paper = high, tolerance = 1, source = s }] }",
        "scenario.expect.rows[0].paper", "a number or a range");
    onlyProblem("{ rows = [{ figure = F, metric = m, paper = 1, tolerance = -1, tolerance-from = digits, source = s }] }",
        "scenario.expect.rows[0].tolerance", ">= 0");
    onlyProblem("{ quick-duration = 5, rows = [{ figure = F, metric = m, at-least = 1, source = s }] }",
        "scenario.expect.quick-duration", "duration");
    onlyProblem("{ policies = [nonesuch], rows = [{ figure = F, metric = m, at-least = 1, source = s }] }",
        "scenario.expect.policies[0]", "unknown policy 'nonesuch'");
    onlyProblem("{ rows = [{ figure = F, metric = \"vms..fps\", at-least = 1, source = s }] }",
        "scenario.expect.rows[0].metric", "dotted path");
    onlyProblem("{ rows = [] }", "scenario.expect.rows", "at least one row");
  }

  @Test
  void aPaperValue_needsExactlyOneTolerance_andEveryRowASource() throws IOException {
    onlyProblem("{ rows = [{ figure = F, metric = m, paper = 1, source = s }] }", "scenario.expect.rows[0]",
        "needs tolerance");
    onlyProblem("{ rows = [{ figure = F, metric = m, at-least = 1, relative-tolerance = 0.1, source = s }] }",
        "scenario.expect.rows[0].relative-tolerance", "a bound");
    onlyProblem("{ rows = [{ figure = F, metric = m, at-least = 1 }] }", "scenario.expect.rows[1 - 1].source".replace(
        "1 - 1", "0"), "required");
  }

  @Test
  void aTolerance_statesWhereItComesFrom() throws Exception {
    onlyProblem("{ rows = [{ figure = F, metric = m, paper = 1, tolerance = 0.1, source = s }] }",
        "scenario.expect.rows[0].tolerance-from", "required with a tolerance");
    onlyProblem("{ rows = [{ figure = F, metric = m, paper = 1, tolerance = 0.1, tolerance-from = \"a guess\", "
        + "source = s }] }", "scenario.expect.rows[0].tolerance-from", "starting with one of [digits, spread");
    onlyProblem("{ rows = [{ figure = F, metric = m, at-least = 1, tolerance-from = digits, source = s }] }",
        "scenario.expect.rows[0].tolerance-from", "has no tolerance");
    // a claim in prose: a bound with the tolerance the paper's spread implies
    Path f = file("{ rows = [{ figure = F, metric = m, at-most = 1, tolerance = 0.013, tolerance-from = \"spread: "
        + "RSD 7 % over 30 runs\", source = s }] }");
    Expectations.Row row = Expectations.read(f, PolicyCatalog.builtIn()).rows().get(0);
    assertEquals(new Expectations.Bound(1, false, 0.013), row.target());
    assertEquals("spread: RSD 7 % over 30 runs", row.basis().toleranceFrom());
  }

  @Test
  void aRowThatCouldNotHaveFailed_namesWhatItRestsOn() throws Exception {
    Path f = file("""
        { rows = [
          { figure = F, metric = m, at-least = 1, calibrated = "K = 2, fitted on F", source = s }
          { figure = F, metric = m, at-least = 1, by-construction = "the share is the input", headline = "claim",
            source = s }
          { figure = F, metric = m, at-least = 1, input-differs = "paper 1, model 2: why", source = s }
          { figure = G, unmeasured = not-modelled, headline = "a claim with no counterpart", source = s }
        ] }""");
    List<Expectations.Row> rows = Expectations.read(f, PolicyCatalog.builtIn()).rows();
    assertEquals(new Expectations.Basis(Expectations.Kind.CALIBRATED, "K = 2, fitted on F", null, null),
        rows.get(0).basis());
    assertEquals(new Expectations.Basis(Expectations.Kind.BY_CONSTRUCTION, "the share is the input", null, "claim"),
        rows.get(1).basis());
    assertEquals(Expectations.Kind.INPUT_DIFFERS, rows.get(2).basis().kind());
    assertEquals("a claim with no counterpart", rows.get(3).basis().headline());
    onlyProblem("{ rows = [{ figure = F, metric = m, at-least = 1, calibrated = a, by-construction = b, source = s }] }",
        "scenario.expect.rows[0].by-construction", "set one of");
    onlyProblem("{ rows = [{ figure = F, metric = m, at-least = 1, calibrated = a, input = true, source = s }] }",
        "scenario.expect.rows[0].calibrated", "input row");
  }

  @Test
  void aRow_mayNameOnlyPoliciesTheBlockRuns() throws IOException {
    onlyProblem("{ policies = [fairgv], rows = [{ figure = F, metric = m, greater-than = credit-poll, source = s }] }",
        "scenario.expect.rows[0].greater-than", "not run");
    onlyProblem("{ rows = [{ figure = F, metric = m, policy = fairgv, at-least = 1, source = s }] }",
        "scenario.expect.rows[0].policy", "only the file's own policy");
  }

  private static final String AXES = """
      groups {
        axes = [
          { name = game, path = vms.a.workload, values = [dirt3, nba2012], labels = [dirt, nba] }
          { name = load, path = vms.a.weight, values = ["1", "2"] }
        ]
        quick = [nba/2]
      }""";

  @Test
  void groups_areEveryCombinationOfTheAxes_andRowsTakeAMeanMaxOrMinOverThem() throws Exception {
    Path f = file("{\n  policies = [fcfs, round-robin]\n  time-scale = 1000\n" + AXES + """

          policy-settings { round-robin { "vms.a.weight" = 3 } }
          rows = [
            { figure = F, metric = vms.a.fps, over = fcfs, policy = round-robin, groups = mean, where = "game=nba",
              paper = 1, tolerance = 0.1, tolerance-from = plot, source = s }
            { figure = F, metric = gpu.utilization, groups = max, at-most = 0.9, input = true, source = s }
          ]
        }""");
    ScenarioLoader.load(f, Overrides.none());
    Expectations e = Expectations.read(f, PolicyCatalog.builtIn());
    assertEquals(1000, e.timeScale());
    List<Expectations.Group> all = e.groups().all();
    // the first axis varies slowest; a label is the axes' labels joined by '/'
    assertEquals(List.of("dirt/1", "dirt/2", "nba/1", "nba/2"), all.stream().map(Expectations.Group::label).toList());
    assertEquals(java.util.Map.of("vms.a.workload", "nba2012", "vms.a.weight", "2"), all.get(3).sets());
    assertEquals(List.of("nba/2"), e.groups().run(true).stream().map(Expectations.Group::label).toList());
    assertEquals(4, e.groups().run(false).size());
    assertEquals(java.util.Map.of("round-robin", java.util.Map.of("vms.a.weight", "3")), e.policySettings());
    Expectations.Row mean = e.rows().get(0);
    assertEquals(Expectations.Aggregate.MEAN, mean.aggregate());
    assertEquals(java.util.Map.of("game", "nba"), mean.where());
    assertTrue(all.get(2).matches(mean.where()) && !all.get(0).matches(mean.where()));
    assertTrue(e.rows().get(1).input());
    assertEquals(Expectations.Aggregate.MAX, e.rows().get(1).aggregate());
  }

  @Test
  void groupProblems_areNamedWithTheirPath() throws IOException {
    String row = "rows = [{ figure = F, metric = m, at-least = 1, source = s%s }]";
    onlyProblem("{\n" + AXES + "\n" + row.formatted("") + " }", "scenario.expect.rows[0].groups", "required");
    onlyProblem("{ " + row.formatted(", groups = mean") + " }", "scenario.expect.rows[0].groups", "no groups");
    onlyProblem("{\n" + AXES + "\n" + row.formatted(", groups = median") + " }", "scenario.expect.rows[0].groups",
        "mean, max or min");
    onlyProblem("{\n" + AXES + "\n" + row.formatted(", groups = mean, where = \"game=halo\"") + " }",
        "scenario.expect.rows[0].where", "axis=label");
    onlyProblem("{\n" + AXES.replace("nba/2", "halo/2") + "\n" + row.formatted(", groups = mean") + " }",
        "scenario.expect.groups.quick", "no group 'halo/2'");
    onlyProblem("{ groups { axes = [{ name = game, path = vms.a.workload, values = [dirt3], labels = [a, b] }] }\n"
        + row.formatted(", groups = mean") + " }", "scenario.expect.groups.axes[0].labels", "one label per value");
    onlyProblem("{ policy-settings { fairgv { x = 1 } }\n" + row.formatted("") + " }",
        "scenario.expect.policy-settings.fairgv", "not run");
    onlyProblem("{ time-scale = -1\n" + row.formatted("") + " }", "scenario.expect.time-scale", "time scale");
    onlyProblem("{ " + row.formatted(", input = maybe") + " }", "scenario.expect.rows[0].input", "true or false");
  }

  @Test
  void anAxisValue_mayBeAnObject_aWholeVmsBlock_andALabelANumber() throws Exception {
    Path f = file("""
        {
          policies = [static-384, static-1024]
          groups { axes = [{ name = vms, path = vms, labels = [1, 2]
            values = [{ a { workload = valley } }, { a { workload = valley }, b { workload = valley } }] }] }
          rows = [{ figure = F, metric = "vms.*.fps", per-key = true, groups = mean, where = "vms=2", at-least = 1,
            source = s }]
        }""");
    Expectations e = Expectations.read(f, PolicyCatalog.builtIn());
    Expectations.Group two = e.groups().all().get(1);
    assertEquals("2", two.label());
    // HOCON text, set at the path as it stands: the loader reads it as an object
    assertEquals(2, ScenarioLoader.load(f, new Overrides(null, null, null, two.sets())).vms().size());
    assertTrue(e.rows().get(0).perKey());
    onlyProblem("{ rows = [{ figure = F, metric = vms.a.fps, per-key = true, at-least = 1, source = s }] }",
        "scenario.expect.rows[0].per-key", "one * segment");
  }

  @Test
  void anUnmeasuredRow_takesFigureKindAndSourceOnly_andAWhyGoesBesideAMeasuredRow() throws Exception {
    Path f = file("""
        {
          rows = [
            { figure = "Figure 8", metric = fairness.mmr, at-least = 0.99, why = "measured: 0.86, because ...", source = "s" }
            { figure = "Figure 3", unmeasured = no-number, source = "a diagram: the parts are ..." }
            { figure = "Table 1", unmeasured = input, source = "the testbed: gpu.sms = 82" }
            { figure = "Table 5", unmeasured = not-modelled, source = "no L2 in the model" }
          ]
        }""");
    ScenarioLoader.load(f, Overrides.none());
    List<Expectations.Row> rows = Expectations.read(f, PolicyCatalog.builtIn()).rows();
    assertEquals("measured: 0.86, because ...", rows.get(0).why());
    assertEquals(Expectations.Unmeasured.NONE, rows.get(0).unmeasured());
    assertEquals(List.of(Expectations.Unmeasured.NO_NUMBER, Expectations.Unmeasured.INPUT,
        Expectations.Unmeasured.NOT_MODELLED), rows.subList(1, 4).stream().map(Expectations.Row::unmeasured).toList());
    assertEquals(null, rows.get(1).metric());
    assertTrue(rows.get(2).input(), "an unmeasured input counts as an input");
  }

  @Test
  void anUnmeasuredRow_withAMetricOrAnUnknownKind_isBadInput() throws IOException {
    onlyProblem("{ rows = [{ figure = \"Figure 3\", unmeasured = no-number, metric = fairness.mmr, source = \"s\" }] }",
        "scenario.expect.rows[0].metric", "reads no run");
    onlyProblem("{ rows = [{ figure = \"Figure 3\", unmeasured = diagram, source = \"s\" }] }",
        "scenario.expect.rows[0].unmeasured", "expected input, no-number or not-modelled");
  }


  @Test
  void anOrderingBetweenGroups_namesAxesAndLabelsOfTheBlock() throws Exception {
    String rows = """
        { policies = [pilotfish, combo], groups { axes = [{ name = game, path = vms.a.workload, values = [dirt3, nba2012],
          labels = [dirt, nba] }] }, rows = [{ figure = "Figure 13", metric = fairness.mmr, policy = combo,
          over = pilotfish, groups = mean, where = "game=dirt", greater-than-groups = "%s", source = "s" }] }""";
    Path f = file(rows.formatted("game=nba"));
    Expectations.Row row = Expectations.read(f, PolicyCatalog.builtIn()).rows().get(0);
    assertEquals(new Expectations.Direction(true, null, java.util.Map.of("game", "nba")), row.direction());
    onlyProblem(rows.formatted("game=nba|quake"), "scenario.expect.rows[0].greater-than-groups",
        "an axis of scenario.expect.groups and its labels");
  }

  @Test
  void anOrderingBetweenGroups_readsInTheFilesOrder_inEveryRun() {
    // Map.copyOf's iteration order is salted per JVM: eight axes keep the file's order only if the record keeps it
    java.util.Map<String, String> groups = new java.util.LinkedHashMap<>();
    for (String axis : List.of("wc", "sleep", "game", "dnn", "cuda", "vms", "mode", "load")) groups.put(axis, "x");
    Expectations.Direction d = new Expectations.Direction(true, null, groups);
    assertEquals(List.copyOf(groups.keySet()), List.copyOf(d.groups().keySet()));
    assertEquals("wc=x, sleep=x, game=x, dnn=x, cuda=x, vms=x, mode=x, load=x", d.against());
  }
}
