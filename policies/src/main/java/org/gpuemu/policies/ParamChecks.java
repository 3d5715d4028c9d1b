package org.gpuemu.policies;

import java.util.List;

/**
 * Range checks a policy applies to its parameters when it is built. The configuration loader validates scenarios
 * first and reports every problem with its path; these checks only guard policies built directly (tests, tools)
 * so a nonsensical value fails at construction instead of as a stall mid-run.
 */
public final class ParamChecks {
  private ParamChecks() {}

  /** A duration parameter that must be > 0 nanoseconds. */
  public static long positiveNanos(PolicyParams params, String policy, String key) {
    return positive(params.nanos(key), policy, key);
  }

  /** A duration parameter that must be >= 0 nanoseconds. */
  public static long nonNegativeNanos(PolicyParams params, String policy, String key) {
    long value = params.nanos(key);
    if (value < 0) {
      throw new IllegalArgumentException(policy + ": parameter '" + key + "' must be >= 0, got " + value);
    }
    return value;
  }

  /** A count parameter that must be > 0 and fit an {@code int}. */
  public static int positiveCount(PolicyParams params, String policy, String key) {
    long value = positive(params.count(key), policy, key);
    if (value > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          policy + ": parameter '" + key + "' must be at most " + Integer.MAX_VALUE + ", got " + value);
    }
    return (int) value;
  }

  /** A real parameter that must be finite and > 0. */
  public static double positiveReal(PolicyParams params, String policy, String key) {
    double value = params.real(key);
    if (!(value > 0) || Double.isInfinite(value)) {
      throw new IllegalArgumentException(
          policy + ": parameter '" + key + "' must be a finite number > 0, got " + value);
    }
    return value;
  }

  /** A fraction parameter that must be in (0, 1]. */
  public static double fraction(PolicyParams params, String policy, String key) {
    double value = params.real(key);
    if (!(value > 0 && value <= 1)) {
      throw new IllegalArgumentException(policy + ": parameter '" + key + "' must be in (0, 1], got " + value);
    }
    return value;
  }

  /** A true/false parameter (reference.conf writes it as a boolean; the loader hands it on as text). */
  public static boolean flag(PolicyParams params, String policy, String key) {
    String value = params.text(key);
    if (!value.equals("true") && !value.equals("false")) {
      throw new IllegalArgumentException(policy + ": parameter '" + key + "' must be true or false, got " + value);
    }
    return value.equals("true");
  }

  /** A text parameter that must be one of {@code valid}. */
  public static String oneOf(PolicyParams params, String policy, String key, List<String> valid) {
    String value = params.text(key);
    if (!valid.contains(value)) {
      throw new IllegalArgumentException(
          policy + ": parameter '" + key + "' must be one of " + String.join(", ", valid) + ", got " + value);
    }
    return value;
  }

  private static long positive(long value, String policy, String key) {
    if (value <= 0) {
      throw new IllegalArgumentException(policy + ": parameter '" + key + "' must be > 0, got " + value);
    }
    return value;
  }
}
