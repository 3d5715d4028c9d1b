package org.gpuemu.policies.spi;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One parameter of a policy: its name (a scenario sets it beside {@code policy = name}), its default written as in a
 * scenario file (HOCON: {@code 16ms}, {@code 2}, {@code 0.9}, {@code 384MiB}, {@code true}, {@code fcfs}) and one
 * line saying what it is and where its value comes from. The emulator checks a scenario's value against the
 * parameter's type, rejects a key no parameter has, and hands the policy typed values ({@link
 * org.gpuemu.policies.PolicyParams}): durations as emulated nanoseconds, sizes as bytes, integers as {@code Long},
 * reals as {@code Double}, flags and texts as {@code String}. Durations and integers must be &gt; 0; finer range checks
 * are the policy's own (its constructor throws {@link IllegalArgumentException}, e.g. with {@link
 * org.gpuemu.policies.ParamChecks}), and {@code validate} reports them at the scenario's key.
 *
 * @param name the key, lower-case words joined by '-'
 * @param type how the value is read
 * @param defaultValue the default, as a scenario would write it
 * @param description one line
 */
public record Param(String name, Type type, String defaultValue, String description) {
  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9]*(-[a-z0-9]+)*");
  private static final Pattern DURATION = Pattern.compile("\\d+(\\.\\d+)?\\s*(ns|us|ms|s|m|h|d)");
  private static final Pattern BYTES = Pattern.compile("\\d+\\s*(B|KiB|MiB|GiB|TiB)");

  /** How a parameter's value is read. */
  public enum Type {
    /** Emulated time with a unit ({@code 16ms}); the policy reads nanoseconds ({@code PolicyParams.nanos}). */
    DURATION,
    /** A whole number ({@code PolicyParams.count}). */
    INTEGER,
    /** Any real number ({@code PolicyParams.real}). */
    REAL,
    /** A size with a unit ({@code 384MiB}); the policy reads bytes ({@code PolicyParams.count}). */
    BYTES,
    /** true or false ({@code ParamChecks.flag}). */
    FLAG,
    /** A name or mode ({@code PolicyParams.text}). */
    TEXT
  }

  public Param {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(defaultValue, "defaultValue");
    Objects.requireNonNull(description, "description");
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("parameter name '" + name + "' must be lower-case words joined by '-'");
    }
    if (name.equals("policy")) throw new IllegalArgumentException("'policy' is the key that names the policy");
    String problem = switch (type) {
      case DURATION -> DURATION.matcher(defaultValue).matches() ? null : "a duration with a unit, e.g. 16ms";
      case INTEGER -> defaultValue.matches("-?\\d+") ? null : "a whole number, e.g. 2";
      case REAL -> defaultValue.matches("-?\\d+(\\.\\d+)?") ? null : "a number, e.g. 0.9";
      case BYTES -> BYTES.matcher(defaultValue).matches() ? null : "a size with a unit, e.g. 384MiB";
      case FLAG -> defaultValue.equals("true") || defaultValue.equals("false") ? null : "true or false";
      case TEXT -> defaultValue.isBlank() || defaultValue.matches(".*[\"{}\\[\\]=:#,].*") ? "a plain word" : null;
    };
    if (problem != null) {
      throw new IllegalArgumentException(
          "parameter '" + name + "': default '" + defaultValue + "' is not " + problem);
    }
  }

  /**
   * The default as the policy reads it: a duration in emulated nanoseconds and a size in bytes ({@code Long}), an
   * integer as {@code Long}, a real as {@code Double}, a flag or text as {@code String}.
   */
  public Object typedDefault() {
    return switch (type) {
      case DURATION -> scaled(defaultValue, DURATION_UNITS);
      case BYTES -> scaled(defaultValue, BYTE_UNITS);
      case INTEGER -> Long.parseLong(defaultValue);
      case REAL -> Double.parseDouble(defaultValue);
      case FLAG, TEXT -> defaultValue;
    };
  }

  private static final java.util.Map<String, Long> DURATION_UNITS = java.util.Map.of("ns", 1L, "us", 1_000L,
      "ms", 1_000_000L, "s", 1_000_000_000L, "m", 60_000_000_000L, "h", 3_600_000_000_000L, "d", 86_400_000_000_000L);
  private static final java.util.Map<String, Long> BYTE_UNITS = java.util.Map.of("B", 1L, "KiB", 1L << 10,
      "MiB", 1L << 20, "GiB", 1L << 30, "TiB", 1L << 40);

  private static long scaled(String value, java.util.Map<String, Long> units) {
    String number = value.replaceAll("[^0-9.].*$", "").trim();
    String unit = value.substring(number.length()).trim();
    return new java.math.BigDecimal(number).multiply(java.math.BigDecimal.valueOf(units.get(unit))).longValueExact();
  }

  /** A duration, e.g. {@code Param.duration("slice", "16ms", "time slice (the paper's §5.1)")}. */
  public static Param duration(String name, String defaultValue, String description) {
    return new Param(name, Type.DURATION, defaultValue, description);
  }

  /** A whole number. */
  public static Param integer(String name, long defaultValue, String description) {
    return new Param(name, Type.INTEGER, Long.toString(defaultValue), description);
  }

  /** A real number. */
  public static Param real(String name, double defaultValue, String description) {
    return new Param(name, Type.REAL, Double.toString(defaultValue), description);
  }

  /** A size, e.g. {@code "384MiB"}. */
  public static Param bytes(String name, String defaultValue, String description) {
    return new Param(name, Type.BYTES, defaultValue, description);
  }

  /** true or false. */
  public static Param flag(String name, boolean defaultValue, String description) {
    return new Param(name, Type.FLAG, Boolean.toString(defaultValue), description);
  }

  /** A name or mode. */
  public static Param text(String name, String defaultValue, String description) {
    return new Param(name, Type.TEXT, defaultValue, description);
  }
}
