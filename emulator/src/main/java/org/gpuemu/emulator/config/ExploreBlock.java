package org.gpuemu.emulator.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * A scenario's {@code explore} block: what {@code explore} judges in each of its runs beyond the checker and the
 * invariants (docs/guides/explore.md). Each property is written as an {@code expect} row is: a {@code metric} (a
 * dotted path into summary.json, {@code *} summing over keys) and what it must be ({@code at-least}, {@code at-most},
 * or {@code paper} within {@code tolerance}). With {@code outside-faults = true} the metric is a timeline field of
 * each VM ({@code vms.<vm>.<field>}, {@code vms.*.<field>}: every VM), which must hold in every metric period that no
 * fault window (injection to heal, plus {@code recovery}) touches. Nothing else reads the block: {@code run}
 * ignores it.
 *
 * @param properties the scenario's properties of its policy
 * @param keepVms VMs the shrinker never removes (those a property names are kept too)
 * @param recoveryNanos how long after a fault's heal its window still lasts (a VM catching up); -1: the guest's
 *                      give-up time ({@link FaultPlan.Channel#giveUpNanos}), the longest a request sent before the
 *                      heal can still fail
 */
public record ExploreBlock(List<Property> properties, List<String> keepVms, long recoveryNanos) {
  public static final ExploreBlock NONE = new ExploreBlock(List.of(), List.of(), -1);

  /** The block's keys (reference.conf: scenario-defaults.explore) and a property's (key-lists.explore-property). */
  private static final Set<String> BLOCK_KEYS =
      ConfigFactory.defaultReference().getObject("gpuemu.scenario-defaults.explore").keySet();
  private static final Set<String> ROW_KEYS =
      KeyLists.keys("explore-property");

  public ExploreBlock {
    properties = List.copyOf(properties);
    keepVms = List.copyOf(keepVms);
  }

  /**
   * One property: holds when the metric's value is within [{@code low}, {@code high}] (an open side is infinite).
   *
   * @param name what the summary table calls it (default: the metric and its bound)
   */
  public record Property(String name, String metric, double low, double high, boolean outsideFaults, String source) {
    /** Whether {@code value} satisfies it (NaN never does). */
    public boolean holds(double value) {
      return value >= low && value <= high;
    }

    /** The bound as written: {@code >= 0.9}, {@code <= 2}, {@code in [1, 2]}. */
    public String bound() {
      if (high == Double.POSITIVE_INFINITY) return ">= " + low;
      if (low == Double.NEGATIVE_INFINITY) return "<= " + high;
      return "in [" + low + ", " + high + "]";
    }

    /** The VM a metric {@code vms.<vm>.…} names; null for {@code *} or another metric. */
    public String vm() {
      String[] parts = metric.split("\\.");
      return parts.length >= 3 && parts[0].equals("vms") && !parts[1].equals("*") ? parts[1] : null;
    }
  }

  /** Reads the block of a scenario file (none when it has none); every problem as a line with its key path. */
  public static ExploreBlock read(Path file) throws ConfigProblems {
    Config user;
    try {
      user = ConfigFactory.parseFile(file.toFile(),
          ConfigParseOptions.defaults().setSyntax(ConfigSyntax.CONF).setAllowMissing(false)).resolve();
    } catch (ConfigException e) {
      throw ConfigProblems.of(file + ": not valid HOCON: " + e.getMessage());
    }
    if (!user.hasPath("scenario.explore")) return NONE;
    List<String> problems = new ArrayList<>();
    ExploreBlock block = check(user.getValue("scenario.explore"), "scenario.explore",
        (key, message) -> problems.add(file + ": " + key + ": " + message));
    if (!problems.isEmpty()) throw new ConfigProblems(problems);
    return block;
  }

  /** Checks the block at {@code path}; {@code problem} hears (key path, message) for each problem. */
  static ExploreBlock check(ConfigValue value, String path, BiConsumer<String, String> problem) {
    ConfigObject block = ConfigKeys.object(value, path, BLOCK_KEYS, problem);
    if (block == null) return NONE;
    List<Property> properties = new ArrayList<>();
    ConfigValue rows = block.get("properties");
    if (rows != null) {
      if (rows.valueType() != ConfigValueType.LIST) {
        problem.accept(path + ".properties", "expected a list of properties, e.g. [{ metric = fairness.mmr, "
            + "at-least = 0.9 }]");
      } else {
        int i = 0;
        for (ConfigValue row : (ConfigList) rows) {
          Property p = property(row, path + ".properties[" + i++ + "]", problem);
          if (p != null) properties.add(p);
        }
      }
    }
    List<String> keep = new ArrayList<>();
    ConfigValue k = block.get("keep-vms");
    if (k != null) {
      if (k.valueType() != ConfigValueType.LIST) {
        problem.accept(path + ".keep-vms", "expected a list of VM names, e.g. [vm1]");
      } else {
        for (ConfigValue v : (ConfigList) k) {
          if (v.valueType() != ConfigValueType.STRING) {
            problem.accept(path + ".keep-vms", "expected VM names, got " + v.render());
          } else {
            keep.add((String) v.unwrapped());
          }
        }
      }
    }
    long recovery = -1;
    ConfigValue r = block.get("recovery");
    if (r != null && !(r.valueType() == ConfigValueType.STRING && ((String) r.unwrapped()).isEmpty())) {
      recovery = FaultPlan.duration(r.valueType() == ConfigValueType.STRING ? (String) r.unwrapped() : "")
          .orElse(-1L);
      if (recovery < 0) problem.accept(path + ".recovery", "expected a duration >= 0 with a unit, e.g. 2s, got "
          + r.render());
    }
    return new ExploreBlock(properties, keep, recovery);
  }

  /**
   * A property's {@code outside-faults}: whether it is read outside the fault windows (false when absent); such a
   * property reads the timeline, so its metric must name a VM's field there.
   */
  private static boolean outsideFaults(ConfigObject row, String metric, BiConsumer<String, String> p) {
    boolean outside = false;
    ConfigValue o = row.get("outside-faults");
    if (o != null) {
      if (o.valueType() != ConfigValueType.BOOLEAN) {
        p.accept("outside-faults", "expected true or false, got " + o.render());
      } else {
        outside = (Boolean) o.unwrapped();
      }
    }
    if (outside && metric != null && !metric.matches("vms\\.[A-Za-z0-9_\\-*]+\\.[a-z_]+")) {
      p.accept("metric", "outside-faults reads the timeline: expected vms.<vm>.<field> or vms.*.<field>, e.g. "
          + "vms.*.gpu_share, got '" + metric + "'");
    }
    return outside;
  }

  private static Property property(ConfigValue value, String path, BiConsumer<String, String> problem) {
    int[] count = {0};
    BiConsumer<String, String> counted = (at, message) -> {
      count[0]++;
      problem.accept(at, message);
    };
    ConfigObject row = ConfigKeys.object(value, path, ROW_KEYS, counted);
    if (row == null) return null;
    BiConsumer<String, String> p = (key, message) -> counted.accept(path + "." + key, message);
    String metric = text(row, "metric", p);
    if (metric == null) {
      p.accept("metric", "missing; a property needs a metric, e.g. fairness.mmr or vms.vm1.fps");
    } else if (!metric.matches("[A-Za-z0-9_\\-*]+(\\.[A-Za-z0-9_\\-*]+)*")) {
      p.accept("metric", "expected a dotted path into summary.json, e.g. fairness.mmr or vms.*.fps, got '" + metric
          + "'");
    }
    boolean outside = outsideFaults(row, metric, p);
    Double least = number(row, "at-least", p);
    Double most = number(row, "at-most", p);
    Double paper = number(row, "paper", p);
    Double tolerance = number(row, "tolerance", p);
    Double relative = number(row, "relative-tolerance", p);
    double low = Double.NEGATIVE_INFINITY;
    double high = Double.POSITIVE_INFINITY;
    if (paper != null) {
      if (least != null || most != null) p.accept("paper", "set paper (with a tolerance) or at-least/at-most, not both");
      if ((tolerance == null) == (relative == null)) {
        p.accept("tolerance", "paper needs exactly one of tolerance or relative-tolerance");
      } else {
        double tol = tolerance != null ? tolerance : Math.abs(paper) * relative;
        if (tol < 0) p.accept(tolerance != null ? "tolerance" : "relative-tolerance", "expected a value >= 0");
        low = paper - tol;
        high = paper + tol;
      }
    } else {
      if (!row.containsKey("at-least") && !row.containsKey("at-most")) p.accept("at-least", "a property needs at-least, at-most, or paper with a "
          + "tolerance");
      if (tolerance != null || relative != null) p.accept("tolerance", "a tolerance goes with paper");
      if (least != null) low = least;
      if (most != null) high = most;
      if (low > high) p.accept("at-most", "below at-least");
    }
    String name = text(row, "name", p);
    String source = text(row, "source", p);
    if (count[0] > 0) return null;
    Property prop = new Property(name, metric, low, high, outside, source == null ? "" : source);
    return name != null ? prop : new Property(metric + " " + prop.bound() + (outside ? " outside faults" : ""),
        metric, low, high, outside, prop.source());
  }

  private static String text(ConfigObject row, String key, BiConsumer<String, String> p) {
    ConfigValue v = row.get(key);
    if (v == null) return null;
    if (v.valueType() != ConfigValueType.STRING || ((String) v.unwrapped()).isBlank()) {
      p.accept(key, "expected a non-empty string, got " + v.render());
      return null;
    }
    return (String) v.unwrapped();
  }

  private static Double number(ConfigObject row, String key, BiConsumer<String, String> p) {
    ConfigValue v = row.get(key);
    if (v == null) return null;
    if (v.valueType() != ConfigValueType.NUMBER || !Double.isFinite(((Number) v.unwrapped()).doubleValue())) {
      p.accept(key, "expected a number, got " + v.render());
      return null;
    }
    return ((Number) v.unwrapped()).doubleValue();
  }
}
