package org.gpuemu.emulator.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyKind;

/**
 * A scenario's {@code expect} block: the paper's numbers its figure reports, which {@code reproduce} checks
 * (docs/guides/reproducing.md). Keys and defaults are in reference.conf ({@code scenario-defaults.expect} and
 * {@code expect-row}); every problem is reported with its key path, e.g. {@code scenario.expect.rows[2].tolerance}.
 *
 * @param paper the paper whose figure this is; null: the name of the scenario file's folder
 * @param policies the policies the figure compares; the file is run under each (as {@code compare}); empty: the
 *                 file's own policy only
 * @param durationNanos emulated length of a reproduce run; 0: the file's duration
 * @param quickDurationNanos the same under {@code --quick}; 0: the duration cut to {@link #QUICK_WALL_NANOS} of
 *                           wall time at the file's time scale
 * @param timeScale the time scale of a reproduce run; 0: the file's. Under the conservative order a run's figures
 *                  are the same at any scale (docs/concepts/time-and-order.md), so a long reproduction may run in
 *                  fast forward
 * @param groups the co-location groups (or any other variants) the figure runs the file in: every combination of
 *               its axes' values, each under every policy; none: the file as it is
 * @param policySettings scenario values set when the file runs under a policy, by policy and path (the paper's
 *                       variant of a policy: §5.2's relaxed scheme before headroom merging)
 */
public record Expectations(String paper, List<String> policies, long durationNanos, long quickDurationNanos,
    double timeScale, Groups groups, Map<String, Map<String, String>> policySettings, List<Row> rows) {
  /** Under --quick a run lasts at most this much wall time unless the file sets {@code quick-duration}. */
  public static final long QUICK_WALL_NANOS = 2_000_000_000L;

  public Expectations {
    policies = List.copyOf(policies);
    rows = List.copyOf(rows);
    policySettings = Map.copyOf(policySettings);
  }

  /** No block: nothing to reproduce. */
  public static Expectations none() {
    return new Expectations(null, List.of(), 0, 0, 0, Groups.NONE, Map.of(), List.of());
  }

  public boolean isEmpty() {
    return rows.isEmpty();
  }

  /**
   * One claim of the paper about one metric.
   *
   * @param metric dotted path into {@code summary.json}, e.g. {@code fairness.mmr} or {@code vms.vm1.fps}
   * @param policy the run it reads: a name of {@link #policies}, or null for the first (the file's own policy when
   *               there are none)
   * @param over null, or a policy whose value of the same metric divides this one's (a ratio: 1.14 = 14 % more)
   * @param target what the paper reports
   * @param direction null, or the ordering the paper reports against another policy's value of the metric
   * @param source where the paper's number is and why the tolerance is what it is
   * @param aggregate over the block's groups: the mean, the largest or the smallest group's value ({@link
   *                  Aggregate#NONE} when the block has no groups)
   * @param where the groups the aggregate is over, by axis name and label (empty: every group)
   * @param input whether the paper's number is an input of the model (a calibration point): the row then shows
   *              how the run compares with it, and never counts as reproduced
   * @param perKey whether the metric's {@code *} segment is taken key by key: the mean over the keys of each key's
   *               value (with {@code over}: of each key's ratio), instead of the sum (gballoon Figure 7: the mean of
   *               the benchmarks' normalised performance)
   * @param unmeasured {@link Unmeasured#NONE} for a row read from the runs (it has a metric); otherwise what the
   *                   figure or table is when no run can give its number (then there is no metric)
   * @param why null, or the measured reason the emulator differs from the paper's number (written after the runs,
   *            from what they measured; it changes no verdict)
   * @param basis what the row can show: judged, or calibrated / by construction / input (differs) with the constant
   *              or input it rests on; where its tolerance comes from; the abstract's claim it stands for, if any
   */
  public record Row(String figure, String metric, String policy, String over, Target target, Direction direction,
      String source, Aggregate aggregate, Map<String, String> where, boolean input, boolean perKey,
      Unmeasured unmeasured, String why, Basis basis) {
    public Row {
      // in the file's order: the row's label in the table names its groups in it
      where = Collections.unmodifiableMap(new LinkedHashMap<>(where));
      basis = basis == null ? Basis.JUDGED : basis;
    }

    /** A row judged from its runs, with no stated tolerance source or headline claim. */
    public Row(String figure, String metric, String policy, String over, Target target, Direction direction,
        String source, Aggregate aggregate, Map<String, String> where, boolean input, boolean perKey,
        Unmeasured unmeasured, String why) {
      this(figure, metric, policy, over, target, direction, source, aggregate, where, input, perKey, unmeasured, why,
          Basis.JUDGED);
    }

    /** A row read from the runs, with no measured reason beside it. */
    public Row(String figure, String metric, String policy, String over, Target target, Direction direction,
        String source, Aggregate aggregate, Map<String, String> where, boolean input, boolean perKey) {
      this(figure, metric, policy, over, target, direction, source, aggregate, where, input, perKey, Unmeasured.NONE,
          null);
    }

    /** A row over no groups, not an input, summing at a {@code *} (the shape of every row before groups). */
    public Row(String figure, String metric, String policy, String over, Target target, Direction direction,
        String source) {
      this(figure, metric, policy, over, target, direction, source, Aggregate.NONE, Map.of(), false, false);
    }
  }

  /** What a measured row can show about the model. */
  public enum Kind {
    /** An outcome the model could have missed: judged against the paper's number. */
    JUDGED("", null),
    /** The model was fitted on this figure (or on a number its value is derived from): key {@code calibrated}. */
    CALIBRATED("calibrated", "calibrated"),
    /** The value follows from an input or assumption whatever the policy does: key {@code by-construction}. */
    BY_CONSTRUCTION("by-construction", "by construction"),
    /** The model deliberately uses another number than the paper's here: key {@code input-differs}. */
    INPUT_DIFFERS("input-differs", "input (differs)");

    private final String key;
    private final String label;

    Kind(String key, String label) {
      this.key = key;
      this.label = label;
    }

    /** The row's key that declares it ("" for a judged row). */
    public String key() {
      return key;
    }

    /** The verdict's label (null for a judged row). */
    public String label() {
      return label;
    }
  }

  /** Where a row's tolerance comes from: the first word of its {@code tolerance-from}. */
  public static final List<String> TOLERANCE_SOURCES = List.of(
      "digits",      // the digits the paper prints (half a unit of the last one, or the table's printed step)
      "spread",      // a spread the paper reports: a relative standard deviation, a range over its run or its runs
      "frame",       // one frame per period: a per-second FPS is a count of whole frames
      "gap",         // half the gap to the number the paper gives the compared policy or point
      "plot",        // the resolution a plot can be read at (its axis step, a bar's width)
      "model",       // a variation of the model's own inputs the paper states (a scene's complexity drawn in ±15 %)
      "convention"); // a fixed fraction the paper does not give (10 % for a single-run figure, a third of a gain)

  /**
   * How a measured row is judged beyond its target.
   *
   * @param kind judged, or what it rests on instead
   * @param restsOn for a row not judged: the constant or input it rests on, or (input differs) both numbers and the
   *                reason; null for a judged row
   * @param toleranceFrom where the row's tolerance comes from, starting with one of {@link #TOLERANCE_SOURCES}
   *                      (null: the row has no tolerance)
   * @param headline null, or the abstract's claim this row stands for ({@code reproduce headline})
   */
  public record Basis(Kind kind, String restsOn, String toleranceFrom, String headline) {
    public static final Basis JUDGED = new Basis(Kind.JUDGED, null, null, null);
  }

  /**
   * A figure or table of the paper that no run gives a number for (key {@code unmeasured}); its row has no metric
   * and its {@code source} says what it shows and where the emulator has it, or why it does not.
   */
  public enum Unmeasured {
    /** A row read from the runs. */
    NONE(""),
    /** Its numbers are constants of the model: the testbed, a configuration, a table the model is built on. */
    INPUT("input"),
    /** It prints no number: a diagram, a code listing, an example's timeline. */
    NO_NUMBER("no-number"),
    /** Its numbers are of something the emulator does not model. */
    NOT_MODELLED("not-modelled");

    private final String key;

    Unmeasured(String key) {
      this.key = key;
    }

    /** The value of the row's {@code unmeasured} key. */
    public String key() {
      return key;
    }
  }

  /** How a row's value is taken over the block's groups. */
  public enum Aggregate {
    NONE(""), MEAN("mean"), MAX("max"), MIN("min");

    private final String label;

    Aggregate(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  /**
   * One axis of the groups: the scenario value at {@code path} takes each of {@code values} in turn (HOCON text: a
   * name, a number, or an object such as a whole {@code vms} block), called by its label (the value itself when the
   * file gives no labels).
   */
  public record Axis(String name, String path, List<String> values, List<String> labels) {
    public Axis {
      values = List.copyOf(values);
      labels = List.copyOf(labels);
    }
  }

  /** One group: its label ("steel/vgg16/lbm", the axes' labels joined by '/'), its label per axis, what it sets. */
  public record Group(String label, Map<String, String> labels, Map<String, String> sets) {
    public Group {
      labels = Collections.unmodifiableMap(new LinkedHashMap<>(labels));
      sets = Collections.unmodifiableMap(new LinkedHashMap<>(sets));
    }

    /** Whether this group has, on every axis of {@code where}, its label or one of its alternatives ("cp|mrif"). */
    public boolean matches(Map<String, String> where) {
      for (Map.Entry<String, String> w : where.entrySet()) {
        if (!List.of(w.getValue().split("\\|")).contains(labels.get(w.getKey()))) return false;
      }
      return true;
    }
  }

  /**
   * The groups a figure runs: every combination of the axes' values (the first axis varying slowest), and the
   * labels of the ones {@code --quick} runs.
   */
  public record Groups(List<Axis> axes, List<String> quick) {
    public static final Groups NONE = new Groups(List.of(), List.of());

    public Groups {
      axes = List.copyOf(axes);
      quick = List.copyOf(quick);
    }

    public boolean isEmpty() {
      return axes.isEmpty();
    }

    /** Every group, in order; one group of no label that sets nothing when there are no axes. */
    public List<Group> all() {
      List<Group> groups = new ArrayList<>(List.of(new Group("", Map.of(), Map.of())));
      for (Axis axis : axes) {
        List<Group> next = new ArrayList<>();
        for (Group g : groups) {
          for (int i = 0; i < axis.values().size(); i++) {
            Map<String, String> labels = new LinkedHashMap<>(g.labels());
            labels.put(axis.name(), axis.labels().get(i));
            Map<String, String> sets = new LinkedHashMap<>(g.sets());
            sets.put(axis.path(), axis.values().get(i));
            next.add(new Group(g.label().isEmpty() ? axis.labels().get(i) : g.label() + "/" + axis.labels().get(i),
                labels, sets));
          }
        }
        groups = next;
      }
      return List.copyOf(groups);
    }

    /** The groups a run makes: all, or under --quick the ones {@link #quick} names (all when it names none). */
    public List<Group> run(boolean quickRun) {
      if (!quickRun || quick.isEmpty()) return all();
      return all().stream().filter(g -> quick.contains(g.label())).toList();
    }
  }

  /** What the paper reports for a row's value. */
  public sealed interface Target {}

  /**
   * A value, or a range {@code [low, high]}, within an absolute tolerance; {@code relative} is the fraction the
   * file gave it as (NaN: given as absolute).
   */
  public record Value(double low, double high, double tolerance, double relative) implements Target {}

  /**
   * A bound: at least (or at most) this, as the paper states it; {@code tolerance} is 0 for a bound the paper states
   * as a number, and the spread the paper reports for a claim in prose ("≤ 1" against a spread of 7 %).
   */
  public record Bound(double bound, boolean atLeast, double tolerance) implements Target {
    public Bound(double bound, boolean atLeast) {
      this(bound, atLeast, 0);
    }

    /** Whether a value satisfies the bound within its tolerance. */
    public boolean holds(double value) {
      return atLeast ? value >= bound - tolerance : value <= bound + tolerance;
    }
  }

  /** No number: the paper reports only the ordering ({@link Row#direction}). */
  public enum OrderingOnly implements Target { INSTANCE }

  /**
   * The row's value is greater (or less) than {@code policy}'s; or, with {@code groups} (not empty), than the same
   * value (policy, ratio, aggregate) taken over those groups instead of the row's own {@code where}: combo.txt's
   * "higher improvements for compute-intensive BE applications" than for memory-intensive ones.
   */
  public record Direction(boolean greater, String policy, Map<String, String> groups) {
    public Direction {
      groups = groups == null ? Map.of() : Map.copyOf(groups);
    }

    /** Against another policy's run. */
    public Direction(boolean greater, String policy) {
      this(greater, policy, Map.of());
    }

    /** What it compares with, as the table prints it: the policy, or "game=steel". */
    public String against() {
      if (groups.isEmpty()) return policy;
      List<String> parts = new ArrayList<>();
      groups.forEach((axis, labels) -> parts.add(axis + "=" + labels));
      return String.join(", ", parts);
    }
  }

  private static final Set<String> BLOCK_KEYS = Set.of("paper", "policies", "duration", "quick-duration", "time-scale",
      "groups", "policy-settings", "rows");
  private static final Set<String> GROUP_KEYS = Set.of("axes", "quick");
  private static final Set<String> AXIS_KEYS = Set.of("name", "path", "values", "labels");

  /**
   * Checks the block at {@code path} (a scenario's {@code scenario.expect}); {@code problem} gets (key path,
   * message) for each problem. Returns what it could read.
   */
  static Expectations check(ConfigValue value, String path, Config rowTemplate, PolicyCatalog catalog,
      BiConsumer<String, String> problem) {
    ConfigObject block = ConfigKeys.object(value, path, BLOCK_KEYS, problem);
    if (block == null) return none();
    List<String> policies = new ArrayList<>();
    ConfigValue p = block.get("policies");
    if (p != null) {
      if (p.valueType() != ConfigValueType.LIST) {
        problem.accept(path + ".policies", "expected a list of policy names, e.g. [fairgv, credit-poll]");
      } else {
        int i = 0;
        for (ConfigValue item : (ConfigList) p) {
          String at = path + ".policies[" + i++ + "]";
          if (item.valueType() != ConfigValueType.STRING) {
            problem.accept(at, "expected a policy name, got " + item.render());
          } else if (!runnable(catalog, (String) item.unwrapped())) {
            problem.accept(at, "unknown policy '" + item.unwrapped() + "'; valid: " + runnableNames(catalog));
          } else if (policies.contains((String) item.unwrapped())) {
            problem.accept(at, "policy '" + item.unwrapped() + "' is named twice");
          } else {
            policies.add((String) item.unwrapped());
          }
        }
      }
    }
    String paper = null;
    ConfigValue named = block.get("paper");
    if (named != null) {
      if (named.valueType() == ConfigValueType.STRING && ((String) named.unwrapped()).matches("[a-z0-9-]+")) {
        paper = (String) named.unwrapped();
      } else {
        problem.accept(path + ".paper", "expected a paper's name in lower case, e.g. vgris, got " + named.render());
      }
    }
    long duration = duration(block.get("duration"), path + ".duration", problem);
    long quick = duration(block.get("quick-duration"), path + ".quick-duration", problem);
    double timeScale = 0;
    ConfigValue scale = block.get("time-scale");
    if (scale != null) {
      if (scale.unwrapped() instanceof Number n && Double.isFinite(n.doubleValue()) && n.doubleValue() >= 0) {
        timeScale = n.doubleValue();
      } else {
        problem.accept(path + ".time-scale", "expected a time scale > 0 (0: the file's), got "
            + scale.render().replace('\n', ' '));
      }
    }
    Groups groups = block.get("groups") == null ? Groups.NONE : groups(block.get("groups"), path + ".groups", problem);
    // rows are checked against the axes the block declares, even where one of them is bad (that is its own problem)
    boolean grouped = block.get("groups") instanceof ConfigObject g && g.get("axes") instanceof ConfigList l
        && !l.isEmpty();
    Map<String, Map<String, String>> settings = new LinkedHashMap<>();
    ConfigValue ps = block.get("policy-settings");
    if (ps != null) {
      if (ps.valueType() != ConfigValueType.OBJECT) {
        problem.accept(path + ".policy-settings", "expected an object keyed by policy, e.g. { combo-relaxed { "
            + "\"scheduler.gpu.merge-headrooms\" = false } }");
      } else {
        for (Map.Entry<String, ConfigValue> e : ((ConfigObject) ps).entrySet()) {
          String at = path + ".policy-settings." + ConfigUtil.joinPath(e.getKey());
          if (!policies.contains(e.getKey())) {
            problem.accept(at, "policy '" + e.getKey() + "' is not run: name it in scenario.expect.policies");
          } else if (e.getValue().valueType() != ConfigValueType.OBJECT) {
            problem.accept(at, "expected an object of scenario paths and values, e.g. { \"scheduler.gpu.merge-headrooms\" "
                + "= false }");
          } else {
            Map<String, String> sets = new LinkedHashMap<>();
            for (Map.Entry<String, ConfigValue> v : ((ConfigObject) e.getValue()).entrySet()) {
              sets.put(v.getKey(), v.getValue().valueType() == ConfigValueType.STRING ? (String) v.getValue().unwrapped()
                  : v.getValue().render());
            }
            settings.put(e.getKey(), sets);
          }
        }
      }
    }
    List<Row> rows = new ArrayList<>();
    ConfigValue r = block.get("rows");
    if (r == null || r.valueType() != ConfigValueType.LIST || ((ConfigList) r).isEmpty()) {
      problem.accept(path + ".rows", "expected a list of at least one row, e.g. [{ figure = \"Figure 8\", "
          + "metric = fairness.mmr, paper = 0.99, tolerance = 0.03, source = \"...\" }]");
    } else {
      int i = 0;
      for (ConfigValue item : (ConfigList) r) {
        row(item, path + ".rows[" + i++ + "]", rowTemplate.root(), policies, groups, grouped, problem).ifPresent(rows::add);
      }
    }
    return new Expectations(paper, policies, duration, quick, timeScale, groups, settings, rows);
  }

  /** The {@code groups} block: its axes (each a name, a scenario path, values and their labels) and the quick ones. */
  private static Groups groups(ConfigValue value, String path, BiConsumer<String, String> problem) {
    ConfigObject block = ConfigKeys.object(value, path, GROUP_KEYS, problem);
    if (block == null) return Groups.NONE;
    List<Axis> axes = new ArrayList<>();
    ConfigValue a = block.get("axes");
    if (a == null || a.valueType() != ConfigValueType.LIST) {
      problem.accept(path + ".axes", "expected a list of axes (empty: no groups), e.g. [{ name = game, path = "
          + "vms.game.workload, values = [combo-steel, combo-dutm] }]");
      return Groups.NONE;
    }
    int i = 0;
    Set<String> names = new LinkedHashSet<>();
    Set<String> paths = new LinkedHashSet<>();
    for (ConfigValue item : (ConfigList) a) {
      String at = path + ".axes[" + i++ + "]";
      int[] count = {0};
      BiConsumer<String, String> p = (k, m) -> {
        count[0]++;
        problem.accept(k, m);
      };
      ConfigObject axis = ConfigKeys.object(item, at, AXIS_KEYS, p);
      if (axis == null) continue;
      String name = text(axis, "name", at, true, p);
      if (name != null && !name.matches("[a-z0-9-]+")) {
        p.accept(at + ".name", "expected a name in lower case, e.g. game, got '" + name + "'");
      } else if (name != null && !names.add(name)) {
        p.accept(at + ".name", "axis '" + name + "' is named twice");
      }
      String where = text(axis, "path", at, true, p);
      if (where != null && !paths.add(where)) p.accept(at + ".path", "path '" + where + "' is set by two axes");
      List<String> values = hoconValues(axis.get("values"), at + ".values", p);
      List<String> labels = axis.get("labels") == null ? values : strings(axis.get("labels"), at + ".labels", true, p);
      if (values.size() != labels.size() && count[0] == 0) {
        p.accept(at + ".labels", "expected one label per value (" + values.size() + "), got " + labels.size());
      }
      for (String label : labels) {
        if (!label.matches("[A-Za-z0-9_.-]+")) p.accept(at + ".labels", "a label is letters, digits, '.', '_' or "
            + "'-' (it names a folder), got '" + label + "'");
      }
      if (new LinkedHashSet<>(labels).size() != labels.size()) p.accept(at + ".labels", "labels must differ");
      if (count[0] == 0) axes.add(new Axis(name, where, values, labels));
    }
    Groups groups = new Groups(axes, List.of());
    List<String> quick = block.get("quick") == null ? List.of()
        : strings(block.get("quick"), path + ".quick", false, problem);
    Set<String> known = new LinkedHashSet<>();
    groups.all().forEach(g -> known.add(g.label()));
    for (String q : quick) {
      if (axes.size() == ((ConfigList) a).size() && !known.contains(q)) {
        problem.accept(path + ".quick", "no group '" + q + "'; a group is its axes' labels joined by '/', e.g. "
            + known.iterator().next());
      }
    }
    return new Groups(axes, quick);
  }

  /**
   * An axis's values as HOCON text, each set at the axis's path as it stands: a simple name or number as it is, any
   * other string quoted, an object or list rendered.
   */
  private static List<String> hoconValues(ConfigValue v, String path, BiConsumer<String, String> p) {
    List<String> out = new ArrayList<>();
    if (v == null || v.valueType() != ConfigValueType.LIST || ((ConfigList) v).isEmpty()) {
      p.accept(path, "expected a list of at least one value, got " + (v == null ? "nothing" : v.render()
          .replace('\n', ' ')));
      return out;
    }
    for (ConfigValue item : (ConfigList) v) {
      if (item.valueType() == ConfigValueType.STRING) {
        String text = (String) item.unwrapped();
        out.add(text.matches("[A-Za-z0-9_.-]+") ? text : ConfigUtil.quoteString(text));
      } else if (item.valueType() == ConfigValueType.NULL) {
        p.accept(path, "expected values, got null");
      } else {
        out.add(item.render(com.typesafe.config.ConfigRenderOptions.concise()));
      }
    }
    return out;
  }

  /** A list of non-empty strings ({@code nonEmpty}: of at least one). */
  private static List<String> strings(ConfigValue v, String path, boolean nonEmpty, BiConsumer<String, String> p) {
    List<String> out = new ArrayList<>();
    if (v == null || v.valueType() != ConfigValueType.LIST || (nonEmpty && ((ConfigList) v).isEmpty())) {
      p.accept(path, "expected a list of " + (nonEmpty ? "at least one string" : "strings") + ", got "
          + (v == null ? "nothing" : v.render().replace('\n', ' ')));
      return out;
    }
    for (ConfigValue item : (ConfigList) v) {
      if (item.valueType() == ConfigValueType.NUMBER) {
        out.add(item.render()); // a label may be a number: a count of VMs
      } else if (item.valueType() != ConfigValueType.STRING || ((String) item.unwrapped()).isBlank()) {
        p.accept(path, "expected non-empty strings, got " + item.render());
      } else {
        out.add((String) item.unwrapped());
      }
    }
    return out;
  }

  /** Reads the {@code scenario.expect} block of a scenario file (none when it has none); bad input as problems. */
  public static Expectations read(Path file, PolicyCatalog catalog) throws ConfigProblems {
    Config user;
    try {
      user = ConfigFactory.parseFile(file.toFile(),
          ConfigParseOptions.defaults().setSyntax(ConfigSyntax.CONF).setAllowMissing(false)).resolve();
    } catch (ConfigException e) {
      throw ConfigProblems.of(file + ": not valid HOCON: " + e.getMessage());
    }
    if (!user.hasPath("scenario.expect")) return none();
    List<String> problems = new ArrayList<>();
    Expectations result = check(user.getValue("scenario.expect"), "scenario.expect",
        ConfigFactory.defaultReference().getConfig("gpuemu.expect-row"), catalog,
        (key, message) -> problems.add(file + ": " + key + ": " + message));
    if (!problems.isEmpty()) throw new ConfigProblems(problems);
    return result;
  }

  private static Optional<Row> row(ConfigValue value, String path, ConfigObject template, List<String> policies,
      Groups groups, boolean grouped, BiConsumer<String, String> problem) {
    int[] count = {0};
    BiConsumer<String, String> p = (k, m) -> {
      count[0]++;
      problem.accept(k, m);
    };
    ConfigObject row = ConfigKeys.object(value, path, template.keySet(), p);
    if (row == null) return Optional.empty();
    String figure = text(row, "figure", path, true, p);
    String kind = text(row, "unmeasured", path, false, p);
    if (kind != null) return unmeasured(row, figure, kind, path, p, count);
    String why = text(row, "why", path, false, p);
    String metric = text(row, "metric", path, true, p);
    if (metric != null && !metric.matches("[A-Za-z0-9_\\-*]+(\\.[A-Za-z0-9_\\-*]+)*")) {
      p.accept(path + ".metric", "expected a dotted path into summary.json, e.g. fairness.mmr, vms.vm1.fps or "
          + "vms.*.fps (a sum over the VMs), got '"
          + metric + "'");
    }
    String source = text(row, "source", path, true, p);
    String policy = policyRef(row, "policy", path, policies, p);
    String over = policyRef(row, "over", path, policies, p);
    String greater = policyRef(row, "greater-than", path, policies, p);
    String less = policyRef(row, "less-than", path, policies, p);
    Direction direction = null;
    String greaterGroups = text(row, "greater-than-groups", path, false, p);
    String lessGroups = text(row, "less-than-groups", path, false, p);
    if (over != null && (greater != null || less != null)) {
      p.accept(path + ".over", "a ratio (over) already orders the two runs against 1; drop greater-than/less-than");
    } else if (greater != null && less != null) {
      p.accept(path + ".less-than", "set greater-than or less-than, not both");
    } else if (greater != null || less != null) {
      direction = new Direction(greater != null, greater != null ? greater : less);
    }
    if (greaterGroups != null || lessGroups != null) {
      String key = greaterGroups != null ? "greater-than-groups" : "less-than-groups";
      if (direction != null || (greaterGroups != null && lessGroups != null)) {
        p.accept(path + "." + key, "one ordering per row: greater-than, less-than, greater-than-groups or "
            + "less-than-groups");
      } else if (!grouped) {
        p.accept(path + "." + key, "the block has no groups to compare (scenario.expect.groups)");
      } else {
        direction = new Direction(greaterGroups != null, null,
            where(greaterGroups != null ? greaterGroups : lessGroups, path + "." + key, groups, p));
      }
    }
    String self = policy != null ? policy : policies.isEmpty() ? null : policies.get(0);
    for (String k : new String[] {"over", "greater-than", "less-than"}) {
      ConfigValue v = row.get(k);
      if (v != null && self != null && self.equals(v.unwrapped())) {
        p.accept(path + "." + k, "compares the run of policy '" + self + "' with itself");
      }
    }
    Double tolerance = number(row, "tolerance", path, p);
    Double relative = number(row, "relative-tolerance", path, p);
    Double atLeast = number(row, "at-least", path, p);
    Double atMost = number(row, "at-most", path, p);
    ConfigValue paper = row.get("paper");
    int targets = (paper != null ? 1 : 0) + (atLeast != null ? 1 : 0) + (atMost != null ? 1 : 0);
    Target target = OrderingOnly.INSTANCE;
    if (targets > 1) {
      p.accept(path, "set one of paper, at-least, at-most");
    } else if (paper != null) {
      double[] range = paperValue(paper, path + ".paper", p);
      if (tolerance != null && relative != null) {
        p.accept(path + ".relative-tolerance", "set tolerance (absolute) or relative-tolerance, not both");
      } else if (tolerance == null && relative == null) {
        p.accept(path, "a paper value needs tolerance (absolute) or relative-tolerance (a fraction of it), with its "
            + "reason in source");
      } else if (range != null) {
        double tol = tolerance != null ? tolerance : relative * Math.max(Math.abs(range[0]), Math.abs(range[1]));
        String key = tolerance != null ? "tolerance" : "relative-tolerance";
        if (!(tol >= 0)) p.accept(path + "." + key, "expected a number >= 0");
        target = new Value(range[0], range[1], tol, tolerance != null ? Double.NaN : relative);
      }
    } else {
      double boundTolerance = 0;
      if (relative != null) {
        p.accept(path + ".relative-tolerance", "a bound (at-least, at-most) takes an absolute tolerance, or none");
      } else if (tolerance != null && atLeast == null && atMost == null) {
        p.accept(path + ".tolerance", "a tolerance goes with a paper value or a bound");
      } else if (tolerance != null) {
        if (!(tolerance >= 0)) p.accept(path + ".tolerance", "expected a number >= 0");
        boundTolerance = tolerance;
      }
      if (atLeast != null) target = new Bound(atLeast, true, boundTolerance);
      if (atMost != null) target = new Bound(atMost, false, boundTolerance);
      if (targets == 0 && !row.containsKey("greater-than") && !row.containsKey("less-than")
          && !row.containsKey("greater-than-groups") && !row.containsKey("less-than-groups")) {
        p.accept(path, "set what the paper reports: paper (with a tolerance), at-least, at-most, greater-than or "
            + "less-than");
      }
    }
    Aggregate aggregate = Aggregate.NONE;
    String aggregateName = text(row, "groups", path, false, p);
    if (aggregateName != null) {
      if (!grouped) {
        p.accept(path + ".groups", "the block has no groups to take a value over (scenario.expect.groups)");
      } else {
        switch (aggregateName) {
          case "mean" -> aggregate = Aggregate.MEAN;
          case "max" -> aggregate = Aggregate.MAX;
          case "min" -> aggregate = Aggregate.MIN;
          default -> p.accept(path + ".groups", "expected mean, max or min, got '" + aggregateName + "'");
        }
      }
    } else if (grouped) {
      p.accept(path + ".groups", "required where the block has groups: mean, max or min (of the groups' values)");
    }
    String w = text(row, "where", path, false, p);
    Map<String, String> where = w == null ? Map.of() : where(w, path + ".where", groups, p);
    boolean input = flag(row, "input", path, p);
    boolean perKey = flag(row, "per-key", path, p);
    if (perKey && metric != null && java.util.Arrays.stream(metric.split("\\.")).filter(x -> x.equals("*")).count() != 1) {
      p.accept(path + ".per-key", "takes a metric with one * segment, e.g. benchmarks.*.performance, got '" + metric
          + "'");
    }
    Basis basis = basis(row, path, target, input, p);
    if (count[0] > 0) return Optional.empty();
    return Optional.of(new Row(figure, metric, policy, over, target, direction, source, aggregate, where, input,
        perKey, Unmeasured.NONE, why, basis));
  }

  /**
   * A measured row's basis: at most one of {@code calibrated}, {@code by-construction} and {@code input-differs}
   * (each naming what the row rests on; none with {@code input}); {@code tolerance-from}, required with a tolerance;
   * {@code headline}.
   */
  private static Basis basis(ConfigObject row, String path, Target target, boolean input,
      BiConsumer<String, String> p) {
    Kind kind = Kind.JUDGED;
    String restsOn = null;
    for (Kind k : Kind.values()) {
      if (k == Kind.JUDGED || !row.containsKey(k.key())) continue;
      String text = text(row, k.key(), path, false, p);
      if (kind != Kind.JUDGED) {
        p.accept(path + "." + k.key(), "set one of calibrated, by-construction, input-differs");
      } else if (input) {
        p.accept(path + "." + k.key(), "an input row (input = true) is not judged already; drop one");
      } else {
        kind = k;
        restsOn = text;
      }
    }
    String from = text(row, "tolerance-from", path, false, p);
    boolean tolerated = target instanceof Value || target instanceof Bound b && b.tolerance() > 0;
    if (from != null && !tolerated) {
      p.accept(path + ".tolerance-from", "the row has no tolerance (a paper value with tolerance, or a bound with "
          + "one) for it to explain");
    } else if (from != null && !TOLERANCE_SOURCES.contains(from.split("[ :,;]", 2)[0])) {
      p.accept(path + ".tolerance-from", "expected a text starting with one of " + TOLERANCE_SOURCES
          + " (where the tolerance comes from), got '" + from + "'");
    } else if (from == null && tolerated && !input) {
      p.accept(path + ".tolerance-from", "required with a tolerance: where it comes from, starting with one of "
          + TOLERANCE_SOURCES + ", e.g. \"digits: the paper prints 0.99\"");
    }
    String headline = text(row, "headline", path, false, p);
    return new Basis(kind, restsOn, from, headline);
  }

  /** A row no run gives a number for: figure, unmeasured and source, nothing else. */
  private static Optional<Row> unmeasured(ConfigObject row, String figure, String kind, String path,
      BiConsumer<String, String> p, int[] count) {
    Optional<Unmeasured> known = java.util.Arrays.stream(Unmeasured.values())
        .filter(u -> u != Unmeasured.NONE && u.key().equals(kind)).findFirst();
    if (known.isEmpty()) p.accept(path + ".unmeasured", "expected input, no-number or not-modelled, got '" + kind + "'");
    for (String key : row.keySet()) {
      if (!Set.of("figure", "unmeasured", "source", "headline").contains(key)) {
        p.accept(path + "." + ConfigUtil.joinPath(key), "a row with unmeasured reads no run: it takes figure, "
            + "unmeasured, source and headline only");
      }
    }
    String source = text(row, "source", path, true, p);
    String headline = text(row, "headline", path, false, p);
    if (count[0] > 0) return Optional.empty();
    return Optional.of(new Row(figure, null, null, null, OrderingOnly.INSTANCE, null, source, Aggregate.NONE, Map.of(),
        known.get() == Unmeasured.INPUT, false, known.get(), null, new Basis(Kind.JUDGED, null, null, headline)));
  }

  /**
   * Groups by axis and label, "game=quake2, dnn=vgg16"; a label may be alternatives, "cuda=cp|mrif" (a group with any
   * of them).
   */
  private static Map<String, String> where(String text, String path, Groups groups, BiConsumer<String, String> p) {
    Map<String, String> where = new LinkedHashMap<>();
    for (String part : text.split(",")) {
      String[] kv = part.trim().split("=");
      Optional<Axis> axis = kv.length != 2 ? Optional.empty()
          : groups.axes().stream().filter(x -> x.name().equals(kv[0].trim())).findFirst();
      if (axis.isEmpty() || !axis.get().labels().containsAll(List.of(kv[1].trim().split("\\|")))) {
        p.accept(path, "expected axis=label[|label][, axis=label], an axis of scenario.expect.groups and its labels, "
            + "got '" + part.trim() + "'");
      } else {
        where.put(kv[0].trim(), kv[1].trim());
      }
    }
    return where;
  }

  private static boolean flag(ConfigObject row, String key, String path, BiConsumer<String, String> p) {
    ConfigValue v = row.get(key);
    if (v == null) return false;
    if (v.unwrapped() instanceof Boolean b) return b;
    p.accept(path + "." + key, "expected true or false, got " + v.render());
    return false;
  }

  private static double[] paperValue(ConfigValue v, String path, BiConsumer<String, String> p) {
    if (v.unwrapped() instanceof Number n) return new double[] {n.doubleValue(), n.doubleValue()};
    if (v.valueType() == ConfigValueType.LIST && ((ConfigList) v).size() == 2
        && ((ConfigList) v).get(0).unwrapped() instanceof Number lo
        && ((ConfigList) v).get(1).unwrapped() instanceof Number hi && lo.doubleValue() <= hi.doubleValue()) {
      return new double[] {lo.doubleValue(), hi.doubleValue()};
    }
    p.accept(path, "expected a number or a range [low, high], got " + v.render().replace('\n', ' '));
    return null;
  }

  private static String text(ConfigObject row, String key, String path, boolean required,
      BiConsumer<String, String> p) {
    ConfigValue v = row.get(key);
    if (v == null) {
      if (required) p.accept(path + "." + key, "required; expected a string");
      return null;
    }
    if (v.valueType() != ConfigValueType.STRING || ((String) v.unwrapped()).isBlank()) {
      p.accept(path + "." + key, "expected a non-empty string, got " + v.render().replace('\n', ' '));
      return null;
    }
    return (String) v.unwrapped();
  }

  private static Double number(ConfigObject row, String key, String path, BiConsumer<String, String> p) {
    ConfigValue v = row.get(key);
    if (v == null) return null;
    if (!(v.unwrapped() instanceof Number n) || !Double.isFinite(n.doubleValue())) {
      p.accept(path + "." + key, "expected a number, got " + v.render().replace('\n', ' '));
      return null;
    }
    return n.doubleValue();
  }

  /** A policy a row names: it must be one the block's {@code policies} runs. */
  private static String policyRef(ConfigObject row, String key, String path, List<String> policies,
      BiConsumer<String, String> p) {
    String name = text(row, key, path, false, p);
    if (name == null) return null;
    if (!policies.contains(name)) {
      p.accept(path + "." + key, "policy '" + name + "' is not run: name it in scenario.expect.policies "
          + (policies.isEmpty() ? "(empty: only the file's own policy runs)" : policies.toString()));
      return null;
    }
    return name;
  }

  private static long duration(ConfigValue v, String path, BiConsumer<String, String> p) {
    if (v == null) return 0;
    try {
      if (v.valueType() != ConfigValueType.STRING) throw new ConfigException.Generic("not a string");
      long n = ConfigFactory.empty().withValue("v", v).getDuration("v").toNanos();
      if (n < 0) throw new ConfigException.Generic("negative");
      return n;
    } catch (ConfigException e) {
      p.accept(path, "expected a duration >= 0 with a unit, e.g. 2s (0s: the default), got "
          + v.render().replace('\n', ' '));
      return 0;
    }
  }

  /** Whether reproduce can run a scenario under this policy: a GPU, space or memory policy. */
  public static boolean runnable(PolicyCatalog catalog, String name) {
    if (SharingModes.modeEntry(name)) return true; // mig, mps: the run sets gpu.mode (docs/guides/sharing-modes.md)
    return catalog.find(name).filter(e -> RUNNABLE.contains(e.spec().kind())).isPresent();
  }

  private static final Set<PolicyKind<?>> RUNNABLE = Set.of(PolicyKind.GPU, PolicyKind.SPACE, PolicyKind.MEMORY);

  private static String runnableNames(PolicyCatalog catalog) {
    Set<String> names = new LinkedHashSet<>();
    for (PolicyKind<?> k : PolicyKind.ALL) if (RUNNABLE.contains(k)) names.addAll(catalog.names(k));
    names.add("mig");
    names.add("mps");
    return String.join(", ", names);
  }
}
