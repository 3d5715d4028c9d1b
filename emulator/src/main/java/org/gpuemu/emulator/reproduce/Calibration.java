package org.gpuemu.emulator.reproduce;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.Expectations;
import org.gpuemu.emulator.config.KeyLists;

/**
 * The constants the model was fitted on a paper's figure with (conf/reproduction/calibration.conf): each names the
 * constant, its value, how it was derived, and the rows of the figure it was fitted on. {@code reproduce} reads it
 * before any run and refuses (bad input) a row it lists that is not declared {@code calibrated} (or an
 * {@code input}): a figure the model was fitted on can never be judged reproduced, and the list is where a new
 * fitted constant is written down.
 *
 * <p>A table rather than an annotation on the constant: the fitted numbers live in Java fields, in literal
 * expressions of the workload catalog and in policy parameters' defaults, where an annotation cannot go; a table is
 * read by the reproduction itself (no class-path scanning) and rendered with it.
 */
public final class Calibration {
  /** The table's file, beside the scenario folder: {@code <conf>/../reproduction/calibration.conf}. */
  public static final String FILE = "reproduction/calibration.conf";

  /** A constant's keys and a row's (reference.conf: key-lists.calibration-constant, calibration-row). */
  private static final Set<String> KEYS =
      KeyLists.keys("calibration-constant");
  private static final Set<String> ROW_KEYS =
      KeyLists.keys("calibration-row");

  /**
   * One fitted constant.
   *
   * @param constant where it is, e.g. "WorkloadCatalog.shadowVolume: GPU time per frame"
   * @param value its value, as the code has it
   * @param derivation how it was derived from the paper
   * @param paper the paper whose figure it was fitted on
   * @param rows the rows of that figure it was fitted on
   */
  public record Constant(String constant, String value, String derivation, String paper, List<Selector> rows) {}

  /**
   * Rows of a figure: every row of {@code figure}, or only those of {@code scenario} (a file under conf/scenarios,
   * without .conf), {@code metric}, {@code policy} and paper value {@code paper} (a row with that value, not an
   * ordering beside it) when given.
   */
  public record Selector(String figure, String scenario, String metric, String policy, Double paper) {
    /** Whether a row of the figure file {@code scenario} of {@code paper} is one of these. */
    public boolean matches(String scenarioName, Expectations.Row row) {
      return figure.equals(row.figure()) && (scenario == null || scenario.equals(scenarioName))
          && (metric == null || metric.equals(row.metric()))
          && (policy == null || policy.equals(row.policy()))
          && (paper == null || row.target() instanceof Expectations.Value v && v.low() == paper);
    }
  }

  private Calibration() {}

  /** The table beside {@code conf} (the scenario folder); empty when there is none (a folder of one's own). */
  public static List<Constant> near(Path conf) throws ConfigProblems {
    Path parent = conf.toAbsolutePath().getParent();
    if (parent == null || !Files.isRegularFile(parent.resolve(FILE))) return List.of();
    return read(parent.resolve(FILE));
  }

  /** Reads the table; every problem (key path and what is expected) at once. */
  public static List<Constant> read(Path file) throws ConfigProblems {
    Config c;
    try {
      c = ConfigFactory.parseFile(file.toFile(), ConfigParseOptions.defaults().setSyntax(ConfigSyntax.CONF)
          .setAllowMissing(false)).resolve();
    } catch (ConfigException e) {
      throw ConfigProblems.of(file + ": not valid HOCON: " + e.getMessage());
    }
    List<String> problems = new ArrayList<>();
    List<Constant> out = new ArrayList<>();
    if (!c.hasPath("constants")) throw ConfigProblems.of(file + ": constants: required; expected a list");
    List<? extends Config> entries;
    try {
      entries = c.getConfigList("constants");
    } catch (ConfigException e) {
      throw ConfigProblems.of(file + ": constants: expected a list of objects with keys " + new TreeSet<>(KEYS));
    }
    for (int i = 0; i < entries.size(); i++) {
      out.add(constant(entries.get(i), file + ": constants[" + i + "]", problems));
    }
    if (!problems.isEmpty()) throw new ConfigProblems(problems);
    return List.copyOf(out);
  }

  /** One entry of {@code constants} at {@code at}; its problems go to {@code problems}. */
  private static Constant constant(Config e, String at, List<String> problems) {
    for (String key : e.root().keySet()) {
      if (!KEYS.contains(key)) problems.add(at + "." + key + ": unknown key; expected one of " + new TreeSet<>(KEYS));
    }
    String constant = text(e, "constant", at, problems);
    String value = text(e, "value", at, problems);
    String derivation = text(e, "derivation", at, problems);
    String paper = text(e, "paper", at, problems);
    if (paper != null && !Reproduction.PAPERS.contains(paper)) {
      problems.add(at + ".paper: expected one of " + Reproduction.PAPERS + ", got '" + paper + "'");
    }
    List<Selector> rows = new ArrayList<>();
    List<? extends Config> selectors = List.of();
    try {
      selectors = e.getConfigList("rows");
    } catch (ConfigException ex) {
      problems.add(at + ".rows: expected a list of { figure, scenario, metric, policy, paper } (figure required)");
    }
    for (int j = 0; j < selectors.size(); j++) rows.add(selector(selectors.get(j), at + ".rows[" + j + "]", problems));
    if (selectors.isEmpty() && problems.stream().noneMatch(p -> p.startsWith(at + ".rows"))) {
      problems.add(at + ".rows: expected at least one row the constant was fitted on");
    }
    return new Constant(constant, value, derivation, paper, rows);
  }

  /** One row selector of a constant at {@code sat}. */
  private static Selector selector(Config s, String sat, List<String> problems) {
    for (String key : s.root().keySet()) {
      if (!ROW_KEYS.contains(key)) {
        problems.add(sat + "." + key + ": unknown key; expected one of " + new TreeSet<>(ROW_KEYS));
      }
    }
    String figure = text(s, "figure", sat, problems);
    Double paperValue = null;
    if (s.hasPath("paper")) {
      try {
        paperValue = s.getDouble("paper");
      } catch (ConfigException ex) {
        problems.add(sat + ".paper: expected the row's paper value, a number");
      }
    }
    return new Selector(figure, optional(s, "scenario"), optional(s, "metric"), optional(s, "policy"), paperValue);
  }

  /**
   * The constants a row was fitted with (empty: none): the entries of its paper with a selector matching it.
   *
   * @param scenario the row's file under conf/scenarios, without .conf ("vgris/sleep-vs-fps")
   */
  public static List<Constant> of(List<Constant> table, String paper, String scenario, Expectations.Row row) {
    return table.stream().filter(c -> c.paper().equals(paper)
        && c.rows().stream().anyMatch(s -> s.matches(scenario, row))).toList();
  }

  /**
   * The problems of a figure file's rows against the table: a measured row the table lists that is neither
   * {@code calibrated} nor an {@code input}.
   */
  public static List<String> check(List<Constant> table, Reproduction.Figure f) {
    List<String> problems = new ArrayList<>();
    List<Expectations.Row> rows = f.expect().rows();
    for (int i = 0; i < rows.size(); i++) {
      Expectations.Row row = rows.get(i);
      if (row.unmeasured() != Expectations.Unmeasured.NONE || row.input()
          || row.basis().kind() == Expectations.Kind.CALIBRATED) {
        continue;
      }
      List<Constant> fitted = of(table, f.paper(), f.name(), row);
      if (!fitted.isEmpty()) {
        problems.add(f.file() + ": scenario.expect.rows[" + i + "]: " + row.figure() + " is what "
            + fitted.get(0).constant() + " was fitted on (" + FILE + "): declare it calibrated = \"<the constant>\"");
      }
    }
    return problems;
  }

  private static String text(Config c, String key, String at, List<String> problems) {
    try {
      String s = c.getString(key);
      if (!s.isBlank()) return s;
    } catch (ConfigException e) {
      // reported below
    }
    problems.add(at + "." + key + ": required; expected a non-empty string");
    return null;
  }

  private static String optional(Config c, String key) {
    return c.hasPath(key) ? c.getString(key) : null;
  }
}
