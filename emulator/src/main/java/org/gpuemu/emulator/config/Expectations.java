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
 * {@code key-lists.expect-row}); every problem is reported with its key path, e.g. {@code scenario.expect.rows[2].tolerance}.
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
      // in the file's order, so the claim reads the same in every run (Map.copyOf's order changes between JVMs)
      groups = groups == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(groups));
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
    Expectations result = ExpectBlock.check(user.getValue("scenario.expect"), "scenario.expect",
        KeyLists.of("expect-row").toConfig(), catalog,
        (key, message) -> problems.add(file + ": " + key + ": " + message));
    if (!problems.isEmpty()) throw new ConfigProblems(problems);
    return result;
  }

  /** Whether reproduce can run a scenario under this policy: a GPU, space or memory policy. */
  public static boolean runnable(PolicyCatalog catalog, String name) {
    if (SharingModes.modeEntry(name)) return true; // mig, mps: the run sets gpu.mode (docs/guides/sharing-modes.md)
    return catalog.find(name).filter(e -> RUNNABLE.contains(e.spec().kind())).isPresent();
  }

  private static final Set<PolicyKind<?>> RUNNABLE = Set.of(PolicyKind.GPU, PolicyKind.SPACE, PolicyKind.MEMORY);

  static String runnableNames(PolicyCatalog catalog) {
    Set<String> names = new LinkedHashSet<>();
    for (PolicyKind<?> k : PolicyKind.ALL) if (RUNNABLE.contains(k)) names.addAll(catalog.names(k));
    names.add("mig");
    names.add("mps");
    return String.join(", ", names);
  }
}
