package org.gpuemu.emulator.config;

import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.gpuemu.emulator.config.Expectations.Aggregate;
import org.gpuemu.emulator.config.Expectations.Axis;
import org.gpuemu.emulator.config.Expectations.Basis;
import org.gpuemu.emulator.config.Expectations.Bound;
import org.gpuemu.emulator.config.Expectations.Direction;
import org.gpuemu.emulator.config.Expectations.Groups;
import org.gpuemu.emulator.config.Expectations.Kind;
import org.gpuemu.emulator.config.Expectations.OrderingOnly;
import org.gpuemu.emulator.config.Expectations.Row;
import org.gpuemu.emulator.config.Expectations.Target;
import org.gpuemu.emulator.config.Expectations.Unmeasured;
import org.gpuemu.emulator.config.Expectations.Value;

/**
 * Reads one row of an {@code expect} block against the row schema of reference.conf ({@code key-lists.expect-row},
 * and {@code key-lists.unmeasured-row} for a row with {@code unmeasured}): what it measures, what the paper reports
 * (a value with its tolerance, a bound or an ordering), over which groups, and on what basis it is judged. A row with
 * a problem is reported and left out.
 */
final class ExpectRow {
  /** What every row of one block is read against: the row schema, the block's policies and groups. */
  record Block(ConfigObject template, List<String> policies, Groups groups, boolean grouped) {}

  private final Block block;
  private final ConfigObject row;
  private final String path;
  private final BiConsumer<String, String> p;
  /** The problems this row has had so far. */
  private final int[] count;

  private ExpectRow(Block block, ConfigObject row, String path, BiConsumer<String, String> p, int[] count) {
    this.block = block;
    this.row = row;
    this.path = path;
    this.p = p;
    this.count = count;
  }

  /** The row at {@code path}, or none when it has a problem ({@code problem} gets each). */
  static Optional<Row> read(ConfigValue value, String path, Block block, BiConsumer<String, String> problem) {
    int[] count = {0};
    BiConsumer<String, String> p = (k, m) -> {
      count[0]++;
      problem.accept(k, m);
    };
    ConfigObject row = ConfigKeys.object(value, path, block.template().keySet(), p);
    if (row == null) return Optional.empty();
    return new ExpectRow(block, row, path, p, count).read();
  }

  private Optional<Row> read() {
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
    String policy = policyRef(row, "policy", path, block.policies(), p);
    String over = policyRef(row, "over", path, block.policies(), p);
    Direction direction = direction(policy, over);
    Target target = target();
    Aggregate aggregate = aggregate();
    String w = text(row, "where", path, false, p);
    Map<String, String> where = w == null ? Map.of() : where(w, path + ".where", block.groups(), p);
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

  /** The row's ordering: greater-than or less-than another policy's run, or greater/less than other groups. */
  private Direction direction(String policy, String over) {
    Direction direction = null;
    String greater = policyRef(row, "greater-than", path, block.policies(), p);
    String less = policyRef(row, "less-than", path, block.policies(), p);
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
      } else if (!block.grouped()) {
        p.accept(path + "." + key, "the block has no groups to compare (scenario.expect.groups)");
      } else {
        direction = new Direction(greaterGroups != null, null,
            where(greaterGroups != null ? greaterGroups : lessGroups, path + "." + key, block.groups(), p));
      }
    }
    List<String> policies = block.policies();
    String self = policy != null ? policy : policies.isEmpty() ? null : policies.get(0);
    for (String k : new String[] {"over", "greater-than", "less-than"}) {
      ConfigValue v = row.get(k);
      if (v != null && self != null && self.equals(v.unwrapped())) {
        p.accept(path + "." + k, "compares the run of policy '" + self + "' with itself");
      }
    }
    return direction;
  }

  /** What the paper reports: a value with its tolerance, a bound, or only an ordering. */
  private Target target() {
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
    return target;
  }

  /** How the row's value is taken over the block's groups: required where there are groups. */
  private Aggregate aggregate() {
    Aggregate aggregate = Aggregate.NONE;
    String aggregateName = text(row, "groups", path, false, p);
    if (aggregateName != null) {
      if (!block.grouped()) {
        p.accept(path + ".groups", "the block has no groups to take a value over (scenario.expect.groups)");
      } else {
        switch (aggregateName) {
          case "mean" -> aggregate = Aggregate.MEAN;
          case "max" -> aggregate = Aggregate.MAX;
          case "min" -> aggregate = Aggregate.MIN;
          default -> p.accept(path + ".groups", "expected mean, max or min, got '" + aggregateName + "'");
        }
      }
    } else if (block.grouped()) {
      p.accept(path + ".groups", "required where the block has groups: mean, max or min (of the groups' values)");
    }
    return aggregate;
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
    } else if (from != null && !Expectations.TOLERANCE_SOURCES.contains(from.split("[ :,;]", 2)[0])) {
      p.accept(path + ".tolerance-from", "expected a text starting with one of " + Expectations.TOLERANCE_SOURCES
          + " (where the tolerance comes from), got '" + from + "'");
    } else if (from == null && tolerated && !input) {
      p.accept(path + ".tolerance-from", "required with a tolerance: where it comes from, starting with one of "
          + Expectations.TOLERANCE_SOURCES + ", e.g. \"digits: the paper prints 0.99\"");
    }
    String headline = text(row, "headline", path, false, p);
    return new Basis(kind, restsOn, from, headline);
  }

  /** An unmeasured row's keys, in reference.conf's order (key-lists.unmeasured-row), and how a message lists them. */
  private static final List<String> UNMEASURED_KEYS = KeyLists.inOrder("unmeasured-row");
  private static final String UNMEASURED_LISTED =
      String.join(", ", UNMEASURED_KEYS.subList(0, UNMEASURED_KEYS.size() - 1)) + " and "
          + UNMEASURED_KEYS.get(UNMEASURED_KEYS.size() - 1);

  /** A row no run gives a number for: the keys of key-lists.unmeasured-row, nothing else. */
  private static Optional<Row> unmeasured(ConfigObject row, String figure, String kind, String path,
      BiConsumer<String, String> p, int[] count) {
    Optional<Unmeasured> known = java.util.Arrays.stream(Unmeasured.values())
        .filter(u -> u != Unmeasured.NONE && u.key().equals(kind)).findFirst();
    if (known.isEmpty()) p.accept(path + ".unmeasured", "expected input, no-number or not-modelled, got '" + kind + "'");
    for (String key : row.keySet()) {
      if (!UNMEASURED_KEYS.contains(key)) {
        p.accept(path + "." + ConfigUtil.joinPath(key), "a row with unmeasured reads no run: it takes "
            + UNMEASURED_LISTED + " only");
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

  static String text(ConfigObject row, String key, String path, boolean required,
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
}
