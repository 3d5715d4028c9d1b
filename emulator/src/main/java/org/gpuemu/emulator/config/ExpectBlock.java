package org.gpuemu.emulator.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import org.gpuemu.emulator.config.Expectations.Axis;
import org.gpuemu.emulator.config.Expectations.Groups;
import org.gpuemu.emulator.config.Expectations.Row;
import org.gpuemu.policies.spi.PolicyCatalog;

/**
 * Reads a scenario's {@code expect} block into {@link Expectations}: its own keys (the policies, durations, groups
 * and policy settings) here, each row by {@link ExpectRow} against the row schema of reference.conf
 * ({@code key-lists.expect-row}). Every problem goes to the caller with its key path.
 */
final class ExpectBlock {
  /** The block's keys and its groups' keys: those reference.conf declares (scenario-defaults.expect). */
  private static final ConfigObject DECLARED =
      ConfigFactory.defaultReference().getObject("gpuemu.scenario-defaults.expect");
  private static final Set<String> BLOCK_KEYS = DECLARED.keySet();
  private static final Set<String> GROUP_KEYS = ((ConfigObject) DECLARED.get("groups")).keySet();
  /** An axis's keys (reference.conf: key-lists.expect-axis). */
  private static final Set<String> AXIS_KEYS =
      KeyLists.keys("expect-axis");

  private ExpectBlock() {}


  /**
   * Checks the block at {@code path} (a scenario's {@code scenario.expect}); {@code problem} gets (key path,
   * message) for each problem. Returns what it could read.
   */
  static Expectations check(ConfigValue value, String path, Config rowTemplate, PolicyCatalog catalog,
      BiConsumer<String, String> problem) {
    ConfigObject block = ConfigKeys.object(value, path, BLOCK_KEYS, problem);
    if (block == null) return Expectations.none();
    List<String> policies = policies(block.get("policies"), path, catalog, problem);
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
    double timeScale = timeScale(block.get("time-scale"), path, problem);
    Groups groups = block.get("groups") == null ? Groups.NONE : groups(block.get("groups"), path + ".groups", problem);
    // rows are checked against the axes the block declares, even where one of them is bad (that is its own problem)
    boolean grouped = block.get("groups") instanceof ConfigObject g && g.get("axes") instanceof ConfigList l
        && !l.isEmpty();
    Map<String, Map<String, String>> settings = policySettings(block.get("policy-settings"), path, policies,
        problem);
    List<Row> rows = new ArrayList<>();
    ConfigValue r = block.get("rows");
    if (r == null || r.valueType() != ConfigValueType.LIST || ((ConfigList) r).isEmpty()) {
      problem.accept(path + ".rows", "expected a list of at least one row, e.g. [{ figure = \"Figure 8\", "
          + "metric = fairness.mmr, paper = 0.99, tolerance = 0.03, source = \"...\" }]");
    } else {
      ExpectRow.Block rowsOf = new ExpectRow.Block(rowTemplate.root(), policies, groups, grouped);
      int i = 0;
      for (ConfigValue item : (ConfigList) r) {
        ExpectRow.read(item, path + ".rows[" + i++ + "]", rowsOf, problem).ifPresent(rows::add);
      }
    }
    return new Expectations(paper, policies, duration, quick, timeScale, groups, settings, rows);
  }

  /** The block's {@code policies}: each a runnable policy, named once. */
  private static List<String> policies(ConfigValue p, String path, PolicyCatalog catalog,
      BiConsumer<String, String> problem) {
    List<String> policies = new ArrayList<>();
    if (p != null) {
      if (p.valueType() != ConfigValueType.LIST) {
        problem.accept(path + ".policies", "expected a list of policy names, e.g. [fairgv, credit-poll]");
      } else {
        int i = 0;
        for (ConfigValue item : (ConfigList) p) {
          String at = path + ".policies[" + i++ + "]";
          if (item.valueType() != ConfigValueType.STRING) {
            problem.accept(at, "expected a policy name, got " + item.render());
          } else if (!Expectations.runnable(catalog, (String) item.unwrapped())) {
            problem.accept(at, "unknown policy '" + item.unwrapped() + "'; valid: " + Expectations.runnableNames(catalog));
          } else if (policies.contains((String) item.unwrapped())) {
            problem.accept(at, "policy '" + item.unwrapped() + "' is named twice");
          } else {
            policies.add((String) item.unwrapped());
          }
        }
      }
    }
    return policies;
  }

  /** {@code time-scale}: 0 (the file's) or more. */
  private static double timeScale(ConfigValue scale, String path, BiConsumer<String, String> problem) {
    double timeScale = 0;
    if (scale != null) {
      if (scale.unwrapped() instanceof Number n && Double.isFinite(n.doubleValue()) && n.doubleValue() >= 0) {
        timeScale = n.doubleValue();
      } else {
        problem.accept(path + ".time-scale", "expected a time scale > 0 (0: the file's), got "
            + scale.render().replace('\n', ' '));
      }
    }
    return timeScale;
  }

  /** {@code policy-settings}: the scenario values set when the file runs under a policy, by policy and path. */
  private static Map<String, Map<String, String>> policySettings(ConfigValue ps, String path, List<String> policies,
      BiConsumer<String, String> problem) {
    Map<String, Map<String, String>> settings = new LinkedHashMap<>();
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
    return settings;
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
      String name = ExpectRow.text(axis, "name", at, true, p);
      if (name != null && !name.matches("[a-z0-9-]+")) {
        p.accept(at + ".name", "expected a name in lower case, e.g. game, got '" + name + "'");
      } else if (name != null && !names.add(name)) {
        p.accept(at + ".name", "axis '" + name + "' is named twice");
      }
      String where = ExpectRow.text(axis, "path", at, true, p);
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
}
