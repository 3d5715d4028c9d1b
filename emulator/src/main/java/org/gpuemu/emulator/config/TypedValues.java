package org.gpuemu.emulator.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import org.gpuemu.workloads.KernelType;

/**
 * Typed readers of a section's values where the schema (reference.conf) declares the key: each checks the value's
 * kind and range, reports a problem at the key's full path and returns a marker (-1, NaN, null) after one, so the
 * reader goes on and every problem is reported at once.
 */
final class TypedValues {
  private final BiConsumer<String, String> problem;

  TypedValues(BiConsumer<String, String> problem) {
    this.problem = problem;
  }

  boolean knownKeys(ConfigObject o, ConfigObject template, String path, Set<String> extra) {
    Set<String> allowed = new TreeSet<>(template.keySet());
    allowed.addAll(extra);
    return knownKeys(o, allowed, path);
  }

  boolean knownKeys(ConfigObject o, Set<String> allowed, String path) {
    boolean ok = true;
    for (String key : o.keySet()) {
      if (!allowed.contains(key)) ok = bad(path + "." + ConfigUtil.joinPath(key), "unknown key; expected one of "
          + new TreeSet<>(allowed));
    }
    return ok;
  }

  boolean bad(String path, String message) {
    problem.accept(path, message);
    return false;
  }

  String description(Config c, String path, String fallback) {
    String d = text(c, "description", path);
    return d == null || d.isBlank() ? fallback : d;
  }

  /** A duration in nanoseconds: > 0, or >= 0 when {@code zeroAllowed}; -1 after a problem. */
  long nanos(Config c, String key, String path, boolean zeroAllowed) {
    String at = path + "." + key;
    ConfigValue v = c.getValue(key);
    long n;
    try {
      if (v.valueType() != ConfigValueType.STRING) throw new ConfigException.BadValue(key, "no unit");
      n = c.getDuration(key).toNanos();
    } catch (ConfigException e) {
      problem.accept(at, "expected a duration with a unit, e.g. 5ms, got " + v.render());
      return -1;
    }
    if (zeroAllowed ? n < 0 : n <= 0) {
      problem.accept(at, "expected a duration " + (zeroAllowed ? ">= 0" : "> 0") + ", got " + v.render());
      return -1;
    }
    return n;
  }

  /** A whole number >= {@code min}; -1 after a problem. */
  long integer(Config c, String key, String path, long min) {
    ConfigValue v = c.getValue(key);
    Object raw = v.unwrapped();
    if (!(raw instanceof Integer || raw instanceof Long) || ((Number) raw).longValue() < min
        || ((Number) raw).longValue() > Integer.MAX_VALUE) {
      problem.accept(path + "." + key, "expected a whole number from " + min + " to " + Integer.MAX_VALUE + ", got "
          + v.render());
      return -1;
    }
    return ((Number) raw).longValue();
  }

  double real(Config c, String key, String path) {
    ConfigValue v = c.getValue(key);
    if (!(v.unwrapped() instanceof Number n)) {
      problem.accept(path + "." + key, "expected a number, got " + v.render());
      return Double.NaN;
    }
    return n.doubleValue();
  }

  boolean bool(Config c, String key, String path) {
    ConfigValue v = c.getValue(key);
    if (!(v.unwrapped() instanceof Boolean b)) {
      problem.accept(path + "." + key, "expected true or false, got " + v.render());
      return false;
    }
    return b;
  }

  String text(Config c, String key, String path) {
    ConfigValue v = c.getValue(key);
    if (v.valueType() != ConfigValueType.STRING && !(v.unwrapped() instanceof Number)) {
      problem.accept(path + "." + key, "expected a name (string), got " + v.render());
      return null;
    }
    return String.valueOf(v.unwrapped());
  }

  ConfigList list(Config c, String key, String path) {
    ConfigValue v = c.getValue(key);
    if (v.valueType() != ConfigValueType.LIST) {
      problem.accept(path + "." + key, "expected a list of objects [{ ... }, { ... }], got " + v.render());
      return null;
    }
    return (ConfigList) v;
  }

  KernelType type(Config c, String key, String path) {
    String t = text(c, key, path);
    if (t == null) return null;
    try {
      return KernelType.valueOf(t.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      problem.accept(path + "." + key, "expected RT, CD or TC, got '" + t + "'");
      return null;
    }
  }

  /** HOCON objects are unordered maps: the file's order, so that problems come in reading order. */
  static List<String> sortedByLine(ConfigObject o) {
    List<String> names = new ArrayList<>(o.keySet());
    names.sort(java.util.Comparator.comparingInt((String n) -> o.get(n).origin().lineNumber()).thenComparing(n -> n));
    return names;
  }
}
